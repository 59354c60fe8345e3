import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalView } from '@legion-collective/core';
import { fileChange } from '@legion-collective/core/internal';
import { createTestLegion, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import { approvalCard } from './approval-card.js';

// The path on a card comes from a model: the diff must never show a file outside the workspace.
describe('approval cards', () => {
  let dir: string;
  let root: string;
  let test: TestLegion;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-card-'));
    root = join(dir, 'workspace');
    mkdirSync(root);
    // A real workspace: the card reads files through core's fileChange, with the workspace's policies.
    test = createTestLegion({
      root,
      participants: [
        userParticipant(),
        {
          id: 'developer',
          type: 'agent',
          name: 'developer',
          systemPrompt: 'You are developer.',
          model: { provider: 'scripted', model: 'developer' },
          policies: { file_read: { mode: 'auto', rules: [{ mode: 'deny', paths: ['private/**'] }] } },
        },
      ],
      entryAgent: 'developer',
    });
    mkdirSync(join(root, 'private'));
    writeFileSync(join(root, 'private', 'keys.txt'), 'PRIVATE KEY\n');
    writeFileSync(join(dir, 'secret.txt'), 'TOP SECRET\n');
    writeFileSync(join(root, 'notes.txt'), 'old line\nsame\n');
    symlinkSync(join(dir, 'secret.txt'), join(root, 'link.txt'));
  });
  afterEach(async () => {
    await test.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

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
  const changeOf = (view: ApprovalView) =>
    fileChange({
      workspaceRoot: root,
      auth: test.legion.auth,
      requester: test.legion.collective.get(view.requester),
      tool: view.tool,
      input: view.input,
    });
  const card = (tool: string, input: unknown) =>
    approvalCard(request(tool, input), ['user', 'coordinator'], changeOf(request(tool, input)), { index: 1, of: 1 });

  it('says under the reason whether a command runs sandboxed, and why not', () => {
    const withSandbox = (sandbox: ApprovalView['sandbox']) =>
      approvalCard({ ...request('shell_run', { command: 'make' }), sandbox }, ['user'], undefined, { index: 1, of: 1 }).split('\n');
    expect(withSandbox({ kind: 'sandboxed', detail: 'no network' })[3]).toBe('  runs sandboxed: no network');
    expect(withSandbox({ kind: 'unsandboxed', detail: '"sandbox" is "off" in the config' })[3]).toBe(
      '  NOT sandboxed: "sandbox" is "off" in the config',
    );
    expect(withSandbox({ kind: 'refused', detail: 'bwrap is missing' })[3]).toBe('  will NOT run: bwrap is missing');
    expect(withSandbox(undefined).join('\n')).not.toContain('sandbox');
  });

  it('shows a diff against the current file for file_write, and the chain that led to it', () => {
    const shown = card('file_write', { path: 'notes.txt', content: 'new line\nsame\n' });
    expect(shown).toContain('chain: user → coordinator → developer');
    expect(shown).toContain('notes.txt (replaces the file as it is now)');
    expect(shown).toContain('-old line');
    expect(shown).toContain('+new line');
  });

  it('shows file_edit as the diff of the file as it is and as it would be', () => {
    const shown = card('file_edit', { path: 'notes.txt', old_string: 'old line', new_string: 'edited line' });
    expect(shown).toContain('-old line');
    expect(shown).toContain('+edited line');
    expect(shown).toContain(' same');
    expect(shown).toContain('notes.txt (the file as it is now, edited)');
  });

  it('never reads a file outside the workspace (by .. or a symbolic link), in .legion/, or one whose reading is denied', () => {
    for (const path of ['../secret.txt', 'link.txt', join(dir, 'secret.txt'), '.legion/config.json', 'private/keys.txt']) {
      const shown = card('file_write', { path, content: 'x\n' });
      expect(shown, path).not.toContain('TOP SECRET');
      expect(shown, path).not.toContain('PRIVATE KEY');
      // Not "(new file)": the file may well exist; the card says it did not look, and why.
      expect(shown, path).toContain('current content not shown:');
      expect(shown, path).not.toContain('(new file)');
    }
    expect(card('file_write', { path: 'private/keys.txt', content: 'x\n' })).toContain('denied');
  });

  it('lists every argument of other tools whole, its own line breaks marked', () => {
    const shown = card('shell_run', { command: 'rm -rf build\nls', cwd: 'src' });
    expect(shown).toContain('  command: rm -rf build␊\n         │ ls\n  cwd: src');
  });

  // What an approval shows is what runs: the terminal must not act on anything in it.
  it('a CR, an erase or a cursor move in the input, the path, the diff or the names is shown, never sent raw', () => {
    const cards = [
      card('shell_run', { command: 'touch PWN1 #\r  command: echo harmless' }),
      card('shell_run', { command: 'touch PWN2 \x1b[2K\x1b[G  command: echo harmless' }),
      card('file_write', { path: 'a\x1b[1A\x1b[2K.txt', content: 'x\r\u202e\n' }),
      approvalCard(
        { ...request('shell_run', { command: 'ls' }), requester: 'dev\x1b]0;owned\x07', reason: 'why\r' },
        ['user\x1b[2J'],
        undefined,
        { index: 1, of: 1 },
      ),
    ];
    for (const shown of cards) expect(shown.replace(/\x1b\[(?:1|2|22|3[12356]|39)m/g, '')).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f\u202e]/);
    expect(cards[0]).toContain('command: touch PWN1 #␍  command: echo harmless');
    expect(cards[1]).toContain('command: touch PWN2 \\x1b[2K\\x1b[G  command: echo harmless');
    expect(cards[2]).toContain('a\\x1b[1A\\x1b[2K.txt');
    expect(cards[2]).toContain('+x␍<U+202E>');
  });

  it('a long command is on the card whole, and a long diff too', () => {
    const command = `echo ${'a'.repeat(200)} ${'b'.repeat(295)}`;
    expect(card('shell_run', { command }).replace(/\x1b\[\d+m/g, '')).toContain(`command: ${command}`);
    const content = Array.from({ length: 300 }, (_, index) => `line ${index}`).join('\n');
    expect(card('file_write', { path: 'new.txt', content })).toContain('+line 299');
  });
});
