import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { LEGION } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// The REPL in a real terminal (tmux): a write refused by another agent's claim is a line in the
// scrollback, and /claims lists and releases claims. Agents on the real Anthropic SDK against aimock.
describe.skipIf(TMUX_MISSING)('the legion REPL shows claims and their conflicts', () => {
  const workspace = useWorkspace('legion-repl-claims-');
  const { mock, env, useModel } = workspace;
  let terminal: TmuxTerminal;

  /** Writes without asking: the conflict, not an approval, is what this is about. */
  function writesFreely(participant: string, model: string): void {
    useModel(participant, { provider: 'anthropic', model, baseURL: mock.url });
    const file = join(workspace.dir, `.legion/collective/participants/${participant}.json`);
    writeFileSync(
      file,
      JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), policies: { file_write: 'auto' } }, null, 2),
    );
  }

  beforeEach(() => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-coord', baseURL: mock.url });
    writesFreely('developer', 'claude-dev');
    writesFreely('reviewer', 'claude-rev');
    terminal = new TmuxTerminal(workspace.dir);
  });
  afterEach(() => terminal.kill());

  it('a refused write is a line naming the holder; /claims lists the claim while the turn holds it, and releases it', async () => {
    const message = 'Write the notes, both of you';
    mock.on(
      { model: 'claude-coord', userMessage: message, hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_dev', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write NOTES.md' }) },
          { id: 'toolu_rev', name: 'communicate', arguments: JSON.stringify({ to: 'reviewer', message: 'Put the changelog in NOTES.md' }) },
        ],
      },
    );
    mock.on({ model: 'claude-coord', userMessage: message, hasToolResult: true }, { content: 'Both answered.' });
    mock.on(
      { model: 'claude-dev', userMessage: 'Write NOTES.md', hasToolResult: false },
      {
        toolCalls: [{ id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'NOTES.md', content: 'by developer\n' }) }],
      },
    );
    // The developer's turn goes on (a slow reply) and holds NOTES.md meanwhile.
    mock.on(
      { model: 'claude-dev', userMessage: 'Write NOTES.md', hasToolResult: true },
      { content: 'Checking NOTES.md line by line. '.repeat(50) },
      { latency: 40, chunkSize: 8 },
    );
    mock.on(
      { model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_rev_write', name: 'file_write', arguments: JSON.stringify({ path: 'NOTES.md', content: 'by reviewer\n' }) },
        ],
      },
      { latency: 300, chunkSize: 8 },
    );
    mock.on({ model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: true }, { content: 'It was taken.' });

    const variables = Object.entries(env()).map(([name, value]) => `${name}=${value}`);
    terminal.start(`${['env', ...variables, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
    await terminal.waitFor('/help for commands');
    terminal.type(message);
    await terminal.waitFor("⚠ reviewer's file_write on NOTES.md did not happen: developer is changing it (Write NOTES.md)");
    terminal.type('/claims');
    await terminal.waitFor(/NOTES\.md +developer \(coordinator__developer\) +\S+ +\S+ +Write NOTES\.md/);
    terminal.type('/claims release NOTES.md');
    await terminal.waitFor(/Released NOTES\.md \(held by developer since \S+\)\./);
    await terminal.waitFor('coordinator: Both answered.');
    terminal.type('/claims');
    await terminal.waitFor('No file is claimed: no running turn holds one.');
    expect(readFileSync(join(workspace.dir, 'NOTES.md'), 'utf8')).toBe('by developer\n');
  }, 90_000);
});
