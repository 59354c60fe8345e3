import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFileReferences } from './file-references.js';

describe('@path references in a message', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-refs-'));
    writeFileSync(join(root, 'plan.md'), '# plan\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('names workspace files the message refers to, for the agent to read with its own tools', () => {
    expect(withFileReferences('see @plan.md, please', root)).toBe(
      'see @plan.md, please\n\n(Referenced workspace files: plan.md — read them with your file tools.)',
    );
  });

  it('leaves the message alone for missing files, e-mail addresses and paths outside the workspace', () => {
    for (const text of ['see @missing.md', 'mail me at me@example.com', 'look at @../etc/passwd', 'no reference'])
      expect(withFileReferences(text, root)).toBe(text);
  });
});
