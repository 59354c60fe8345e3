import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { enterOnReference } from './reference-enter.js';

describe('Enter on a message ending in an @reference', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-reference-enter-'));
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'plan.md'), '');
    writeFileSync(join(root, 'docs', 'plan.md.old'), '');
    writeFileSync(join(root, 'my notes.md'), '');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('sends a reference that names a file or folder exactly, quoted or not', () => {
    expect(enterOnReference('see @docs/plan.md', root)).toEqual({ action: 'send' });
    expect(enterOnReference('see @docs/', root)).toEqual({ action: 'send' });
    expect(enterOnReference('see @"my notes.md"', root)).toEqual({ action: 'send' });
  });

  it('fills in the first completion of one that names nothing', () => {
    expect(enterOnReference('line one\nsee @plan.m', root)).toEqual({ action: 'complete', text: 'line one\nsee @docs/plan.md' });
    expect(enterOnReference('see @"my no', root)).toEqual({ action: 'complete', text: 'see @"my notes.md"' });
  });

  it('leaves alone text ending in no reference, one nothing completes, and one outside the workspace', () => {
    expect(enterOnReference('mail me@example.com', root)).toBeUndefined();
    expect(enterOnReference('see @docs/plan.md now', root)).toBeUndefined();
    expect(enterOnReference('see @nothing-like-it', root)).toBeUndefined();
    expect(enterOnReference('see @../../etc/passwd', root)).toBeUndefined();
  });
});
