import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// scripts/check-docs.mjs is what `npm run typecheck` runs on the documentation: these tests prove it
// passes the repository's docs and fails, naming the file and line, on a broken link or snippet.
const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(REPOSITORY, 'scripts/check-docs.mjs');

function check(root: string, ...flags: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [SCRIPT, '--root', root, ...flags], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('the documentation check', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-docs-check-'));
    mkdirSync(join(root, 'docs/guide'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("finds every relative link of the repository's README, docs and package READMEs", () => {
    const run = check(REPOSITORY, '--links-only');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('reports a link to a missing file or heading at its line, and accepts one that resolves', () => {
    writeFileSync(join(root, 'README.md'), '# Top\n\nSee [the guide](docs/guide/start.md#first-steps).\n');
    writeFileSync(
      join(root, 'docs/guide/start.md'),
      '# Start\n\n## First steps\n\nBack to [the top](../../README.md#top), on to [nowhere](missing.md) and [no heading](#last-steps).\n\n```bash\n[not a link](inside-a-fence.md)\n```\n',
    );
    const run = check(root, '--links-only');
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'docs/guide/start.md:5: link to missing.md: docs/guide/missing.md does not exist',
      'docs/guide/start.md:5: link to #last-steps: docs/guide/start.md has no heading #last-steps',
    ]);
  });

  it('reports a source file named in inline code that no longer exists, and accepts one that does', () => {
    mkdirSync(join(root, 'packages/core/src/runtime'), { recursive: true });
    writeFileSync(join(root, 'packages/core/src/runtime/tool-phase.ts'), 'export {};\n');
    writeFileSync(
      join(root, 'docs/guide/start.md'),
      '# Start\n\nThe tool phase (`runtime/tool-phase.ts`, `packages/core/src/runtime/tool-phase.ts`) and `dist/legion.js`.\n\nIts HTTP (`providers/node-http-fetch.ts`).\n',
    );
    const run = check(root, '--links-only');
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'docs/guide/start.md:5: `providers/node-http-fetch.ts` names no file of the repository (moved or renamed?)',
    ]);
  });

  it('compiles each ts block against the built packages and reports an error at its Markdown line', () => {
    // The packages as a user's project resolves them: the repository's node_modules, workspace links included.
    symlinkSync(join(REPOSITORY, 'node_modules'), join(root, 'node_modules'));
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Example',
        '',
        '```ts',
        "import { Legion } from '@legion-collective/core';",
        "const legion = Legion.open({ root: '.' });",
        'await legion.close();',
        '```',
        '',
        '```ts',
        "import { Legion } from '@legion-collective/core';",
        "await Legion.open({ root: '.' }).runAgent(42);",
        '```',
        '',
        '```ts fragment',
        'browser.prompt(question);',
        '```',
        '',
      ].join('\n'),
    );
    const run = check(root);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^README\.md:11: Argument of type 'number' is not assignable to parameter of type 'string'/m);
    // One problem (its explanation indented under it): the good block and the fragment pass.
    expect(run.stderr.split('\n').filter((line) => /^\S/.test(line))).toHaveLength(1);
  }, 120_000);
});
