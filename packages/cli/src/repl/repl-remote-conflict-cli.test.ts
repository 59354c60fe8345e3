import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, ParticipantInput, ToolResultBlock } from '@legion-collective/core';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { LEGION } from '../legion-process.test-support.js';

if (TMUX_MISSING)
  console.warn('repl-remote-conflict-cli.test.ts: tmux is not installed, so this REPL test is skipped (apt-get install -y tmux).');

/** An agent allowed to write files without asking: the conflict, not an approval, is what this is about. */
function writer(id: string): ParticipantInput {
  return { ...agentParticipant(id, { delegation: 'none' }), policies: { file_write: 'auto' } } as ParticipantInput;
}

function lastToolResult(messages: readonly Message[]): ToolResultBlock {
  const block = messages.at(-1)!.content.find((part) => part.type === 'tool_result');
  if (!block || block.type !== 'tool_result') throw new Error('no tool result in the last message');
  return block;
}

function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

// The turns run in this process (a Legion with no surface); the REPL is the built binary in a real
// terminal (tmux) on the same workspace, a second OS process that follows the session's logs.
describe.skipIf(TMUX_MISSING)('the REPL shows a claim conflict raised in another process', () => {
  let test: TestLegion;
  let terminal: TmuxTerminal;
  let home: string;
  afterEach(async () => {
    await terminal?.kill();
    await test?.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  it('names who was refused, the file, the holder and what it is doing, once', async () => {
    home = mkdtempSync(join(tmpdir(), 'legion-home-'));
    const alphaWrote = gate();
    const shown = gate();
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('lead'), writer('alpha'), writer('beta')],
      entryAgent: 'lead',
      scripts: {
        lead: [
          {
            toolCalls: [
              { id: 'to_alpha', name: 'communicate', input: { to: 'alpha', message: 'Write the release notes to NOTES.md' } },
              { id: 'to_beta', name: 'communicate', input: { to: 'beta', message: 'Put the changelog in NOTES.md' } },
            ],
          },
          { text: 'both answered' },
        ],
        alpha: [
          { toolCalls: [{ id: 'alpha_write', name: 'file_write', input: { path: 'NOTES.md', content: 'notes by alpha\n' } }] },
          async () => {
            alphaWrote.open();
            // Its turn holds NOTES.md until the terminal has shown beta's refused write.
            await shown.opened;
            return { text: 'alpha wrote NOTES.md' };
          },
        ],
        beta: [
          async () => {
            await alphaWrote.opened;
            return { toolCalls: [{ id: 'beta_write', name: 'file_write', input: { path: 'NOTES.md', content: 'changelog by beta\n' } }] };
          },
          (request) => ({ text: lastToolResult(request.messages).isError ? 'refused' : 'written' }),
        ],
      },
    });
    const session = await test.legion.sessions.create();

    terminal = new TmuxTerminal(test.root);
    const env = ['NO_COLOR=1', `XDG_CONFIG_HOME=${join(home, '.config')}`, `HOME=${home}`];
    terminal.start(`${['env', ...env, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
    await terminal.waitFor('/help for commands');

    const sent = test.legion.send(session, 'Write the notes, both of you');
    const line = "⚠ beta's file_write on NOTES.md did not happen: alpha is changing it (Write the release notes to NOTES.md)";
    await terminal.waitFor(line);
    shown.open();
    expect(await sent).toMatchObject({ status: 'success', reply: 'both answered' });
    expect(readFileSync(join(test.root, 'NOTES.md'), 'utf8')).toBe('notes by alpha\n');
    // The lead's reply comes after the conflict in the logs the REPL follows: once it shows, the conflict was read, once.
    await terminal.waitFor('both answered');
    expect(terminal.screen().split(line)).toHaveLength(2);
    test.assertScriptsDone();
  }, 90_000);
});
