import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalView } from '@legion-collective/core';
import { approvalCard } from './approval-card.js';

// The path on a card comes from a model: the diff must never show a file outside the workspace.
describe('approval cards', () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-card-'));
    root = join(dir, 'workspace');
    mkdirSync(root);
    writeFileSync(join(dir, 'secret.txt'), 'TOP SECRET\n');
    writeFileSync(join(root, 'notes.txt'), 'old line\nsame\n');
    symlinkSync(join(dir, 'secret.txt'), join(root, 'link.txt'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const request = (tool: string, input: unknown): ApprovalView => ({
    id: 'apr_1',
    at: '2026-01-01T00:00:00.000Z',
    requester: 'developer',
    approver: 'user',
    tool,
    input,
    reason: 'write tools need approval by default',
    conversationId: 'coordinator__developer',
    status: 'pending',
  });
  const card = (tool: string, input: unknown) => approvalCard(request(tool, input), ['user', 'coordinator'], root, { index: 1, of: 1 });

  it('shows a diff against the current file for file_write, and the chain that led to it', () => {
    const shown = card('file_write', { path: 'notes.txt', content: 'new line\nsame\n' });
    expect(shown).toContain('chain: user → coordinator → developer');
    expect(shown).toContain('notes.txt (replaces the file)');
    expect(shown).toContain('-old line');
    expect(shown).toContain('+new line');
  });

  it('shows file_edit as the diff of the replaced text', () => {
    const shown = card('file_edit', { path: 'notes.txt', old_string: 'old line', new_string: 'edited line' });
    expect(shown).toContain('-old line');
    expect(shown).toContain('+edited line');
  });

  it('never reads a file outside the workspace, by .. or by a symbolic link', () => {
    for (const path of ['../secret.txt', 'link.txt', join(dir, 'secret.txt')]) {
      const shown = card('file_write', { path, content: 'x\n' });
      expect(shown, path).not.toContain('TOP SECRET');
      expect(shown, path).toContain('(new file)');
    }
  });

  it('lists the arguments of other tools, one line each', () => {
    const shown = card('shell_run', { command: 'rm -rf build\nls' });
    expect(shown).toContain('command: rm -rf build ⏎ ls');
  });
});
