import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { matchingFiles } from './file-completion.js';

describe('matchingFiles (@path completion)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-complete-'));
    for (const dir of ['src/plan', 'node_modules/plan', '.git/plan', '.legion/plan', 'my docs'])
      mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, 'src/plan/plan.ts'), '');
    writeFileSync(join(root, 'src/replan.ts'), '');
    writeFileSync(join(root, 'my docs/plan notes.md'), '');
    symlinkSync(root, join(root, 'src/loop'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('offers workspace paths holding the query, names that start with it first, folders with a slash, never dependencies or tool folders', () => {
    const values = matchingFiles(root, 'plan').map((item) => item.value);
    expect(values).toEqual(['@src/plan/', '@src/plan/plan.ts', '@"my docs/plan notes.md"', '@src/replan.ts']);
  });

  it('does not follow symbolic links (a link to a parent cannot loop the walk)', () => {
    expect(matchingFiles(root, 'loop').map((item) => item.value)).toEqual(['@src/loop']);
  });
});
