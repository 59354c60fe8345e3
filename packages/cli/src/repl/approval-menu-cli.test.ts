import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { LEGION, runLegion } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// Cards answered only on purpose: the built binary in a real terminal (tmux), the model on the
// real Anthropic SDK against aimock on 127.0.0.1.
if (TMUX_MISSING) console.warn('approval-menu-cli.test.ts: tmux is not installed, so these tests are skipped (apt-get install -y tmux).');

describe.skipIf(TMUX_MISSING)('an approval card is answered from its menu only, a question only by a line typed for it', () => {
  const workspace = useWorkspace('legion-menu-');
  const { mock, env, useModel, toolResultSent } = workspace;
  let terminal: TmuxTerminal;

  beforeEach(() => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    terminal = new TmuxTerminal(workspace.dir);
  });
  afterEach(() => terminal.kill());

  async function startRepl(): Promise<void> {
    const variables = Object.entries(env()).map(([name, value]) => `${name}=${value}`);
    terminal.start(`${['env', ...variables, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
    await terminal.waitFor('/help for commands');
  }

  /** Given `userMessage`, the model writes notes.txt, then replies `reply`. */
  function scriptWrite(userMessage: string, reply: string): void {
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_notes', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello\n' }) }] },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: reply });
  }

  async function pendingApprovals(): Promise<Array<{ status: string }>> {
    const listed = await runLegion(['approvals', '--json'], { cwd: workspace.dir, env: { ...process.env, ...env() } });
    return (JSON.parse(listed.stdout) as { approvals: Array<{ status: string }> }).approvals;
  }

  /** The text in the input box: the lines between the two rules under the live region (the cursor, a space, dropped). */
  function inputLine(): string {
    const lines = terminal
      .screen()
      .trimEnd()
      .split('\n')
      .map((line) => line.trimEnd());
    const rules = lines.flatMap((line, index) => (/^─{20,}$/.test(line) ? [index] : []));
    return lines.slice(rules.at(-2)! + 1, rules.at(-1)).join('\n');
  }

  it('a sentence typed while a card is up decides nothing and stays in the input; a number and Enter decide', async () => {
    scriptWrite('Write the notes', 'The notes are handled.');
    mock.on({ model: 'claude-test', userMessage: 'sounds good, and add a title' }, { content: 'A title it is.' });
    await startRepl();
    terminal.type('Write the notes');
    const card = await terminal.waitFor('to choose, Enter to confirm');
    // Core's four choices, numbered, in core's order and words.
    expect(card).toMatch(/1\. Approve once .*\n.*2\. Approve for this session .*\n.*3\. Approve always .*\n.*4\. Reject /);
    // "sounds good" begins with s, "a" was "always": typed into the input, neither decides anything.
    terminal.type('sounds good, and add a title', false);
    await terminal.waitFor('the input holds text: the card takes no keys');
    expect(inputLine()).toBe('sounds good, and add a title');
    expect(await pendingApprovals()).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(toolResultSent('toolu_notes')).toBeUndefined();
    // Keys of the menu typed into the text are the text's too.
    terminal.type(' 2', false);
    await terminal.waitFor('sounds good, and add a title 2');
    terminal.keys('Down', 'Enter');
    await terminal.waitFor(/queued: sounds good, and add a title 2/);
    expect(await pendingApprovals()).toEqual([expect.objectContaining({ status: 'pending' })]);
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);
    // The input is empty again: a number and Enter answer the card.
    terminal.keys('2');
    await terminal.waitFor('❯ 2. Approve for this session');
    terminal.keys('Enter');
    await terminal.waitFor('approved coordinator → file_write');
    await terminal.waitFor('coordinator: The notes are handled.');
    expect(terminal.screen()).toMatch(/approved coordinator → file_write \(apr_\w+\) by user on terminal, for the session/);
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello\n');
    expect(toolResultSent('toolu_notes')).toMatch(/notes\.txt/);
  }, 90_000);

  it('Ctrl-C on text typed while a card is up clears the text; the turn and its card stay', async () => {
    scriptWrite('Write the notes', 'The notes are handled.');
    await startRepl();
    terminal.type('Write the notes');
    await terminal.waitFor('to choose, Enter to confirm');
    terminal.type('sounds good', false);
    await terminal.waitFor('the input holds text: the card takes no keys until it is empty (Ctrl-C clears it');
    // What a shell user presses to clear a line: the text goes, not the team's work.
    terminal.keys('C-c');
    await terminal.waitFor(/─\n *\n─/);
    expect(inputLine().trim()).toBe('');
    expect(terminal.screen()).not.toContain('cancelled (');
    expect(await pendingApprovals()).toEqual([expect.objectContaining({ status: 'pending' })]);
    terminal.keys('1');
    await terminal.waitFor('❯ 1. Approve once');
    terminal.keys('Enter');
    await terminal.waitFor('coordinator: The notes are handled.');
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello\n');
  }, 90_000);

  it('Enter with nothing chosen decides nothing; ↑/↓ choose and Enter confirms', async () => {
    scriptWrite('Write the notes', 'The notes are handled.');
    await startRepl();
    terminal.type('Write the notes');
    await terminal.waitFor('to choose, Enter to confirm');
    // An Enter meant for the input (pressed as the card came up) is no answer.
    terminal.keys('Enter');
    await terminal.waitFor('choose first: ↑/↓ or 1–4, then Enter');
    expect(await pendingApprovals()).toEqual([expect.objectContaining({ status: 'pending' })]);
    // ↓ from nothing is the first choice; ↑ from the first wraps to the last.
    terminal.keys('Down');
    await terminal.waitFor('❯ 1. Approve once');
    terminal.keys('Up');
    await terminal.waitFor('❯ 4. Reject');
    terminal.keys('Up', 'Up');
    await terminal.waitFor('❯ 2. Approve for this session');
    terminal.keys('Down');
    await terminal.waitFor('❯ 3. Approve always');
    terminal.keys('Down', 'Enter');
    await terminal.waitFor('reason for rejecting (shown to the agent; optional), then Enter:');
    // No reason: Enter on the empty input rejects without one.
    terminal.keys('Enter');
    await terminal.waitFor('coordinator: The notes are handled.');
    expect(toolResultSent('toolu_notes')).toBe('Rejected: user rejected it');
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);
  }, 90_000);

  it('a line typed before a question came is sent as a message, not as its answer; the line typed after answers it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    mock.on({ model: 'claude-test', userMessage: 'Ask me', hasToolResult: false }, async () => {
      await held;
      return {
        toolCalls: [{ id: 'toolu_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which version?' }) }],
      };
    });
    mock.on({ model: 'claude-test', userMessage: 'Ask me', hasToolResult: true }, { content: 'Noted the version.' });
    mock.on({ model: 'claude-test', userMessage: 'half a thought' }, { content: 'Got the thought.' });
    await startRepl();
    terminal.type('Ask me');
    await terminal.waitFor('working: coordinator');
    terminal.type('half a thought', false);
    await terminal.waitFor(/─\nhalf a thought *\n─/);
    release();
    await terminal.waitFor('the input held text when this question came: Enter sends that as a message');
    terminal.keys('Enter');
    await terminal.waitFor('"half a thought" goes as a message, not as the answer');
    await terminal.waitFor('type your answer and press Enter');
    expect(toolResultSent('toolu_ask')).toBeUndefined();
    terminal.type('2.0');
    await terminal.waitFor('coordinator: Got the thought.');
    expect(toolResultSent('toolu_ask')).toBe('2.0');
  }, 90_000);
});
