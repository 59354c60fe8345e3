import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { participantColour } from '../render/style.js';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { runLegion, LEGION } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

if (TMUX_MISSING) console.warn('repl-team-cli.test.ts: tmux is not installed, so these REPL tests are skipped (apt-get install -y tmux).');

// A team's work as the REPL shows it (the built binary in tmux): delegations with their message,
// delegates indented under them, the status line leading with what waits for the user, text in the
// order it was written, and what another process appends. Models on the real Anthropic and OpenAI
// SDKs against aimock on 127.0.0.1.
describe.skipIf(TMUX_MISSING)('the REPL shows a team at work, readably', () => {
  const workspace = useWorkspace('legion-team-');
  const { mock, env, useModel } = workspace;
  let terminal: TmuxTerminal;

  beforeEach(() => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-team', baseURL: mock.url });
    useModel('developer', { provider: 'openai', model: 'gpt-team', baseURL: `${mock.url}/v1` });
    terminal = new TmuxTerminal(workspace.dir);
  });
  afterEach(() => terminal.kill());

  async function startRepl(extraEnv: Record<string, string> = {}): Promise<void> {
    const variables = Object.entries({ ...env(), ...extraEnv }).map(([name, value]) => `${name}=${value}`);
    terminal.start(`${['env', ...variables, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
    await terminal.waitFor('/help for commands');
  }

  /** The coordinator, given `userMessage`, delegates `message` to the developer, then answers `reply` with its result. */
  function delegate(userMessage: string, message: string, reply: string): void {
    mock.on(
      { model: 'claude-team', userMessage, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_team', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message }) }] },
    );
    mock.on({ model: 'claude-team', userMessage, hasToolResult: true }, { content: reply });
  }

  /** The developer, given `userMessage`, writes `text` and calls `tool`, then replies `reply` (streamed slowly). */
  function developerCalls(userMessage: string, text: string | undefined, tool: { name: string; input: object }, reply: string): void {
    mock.on(
      { model: 'gpt-team', userMessage, hasToolResult: false },
      { ...(text ? { content: text } : {}), toolCalls: [{ id: 'call_dev', name: tool.name, arguments: JSON.stringify(tool.input) }] },
    );
    mock.on({ model: 'gpt-team', userMessage, hasToolResult: true }, { content: reply }, { latency: 40, chunkSize: 4 });
  }

  it("a delegation shows who asked whom and what, folded past four lines; the delegate's work is indented under it", async () => {
    const message = ['Summarize notes.txt for me.', 'Keep it short.', 'Plain words.', 'No lists.', 'Say who wrote it.', 'THE SIXTH LINE.'];
    delegate('Summarize the notes', message.join('\n'), 'The developer summarized the notes.');
    writeFileSync(join(workspace.dir, 'notes.txt'), 'Notes by Ada.\n');
    developerCalls(
      'Summarize notes.txt for me.',
      undefined,
      { name: 'file_read', input: { path: 'notes.txt' } },
      'Ada wrote notes; they are short and say little more than that, which makes them easy to summarize.',
    );
    await startRepl();
    terminal.type('Summarize the notes');
    // While the delegate streams, the status line says who works on what.
    await terminal.waitFor(/⋯ working: coordinator → developer · \d/);
    const shown = await terminal.waitFor('coordinator: The developer summarized the notes.');
    const lines = shown.split('\n').map((line) => line.replace(/ +$/, ''));
    const start = lines.indexOf('  coordinator → developer: Summarize notes.txt for me.');
    expect(start, shown).toBeGreaterThan(0);
    // Its message, folded: four lines, then how many more and the key that shows them.
    expect(lines.slice(start + 1, start + 5)).toEqual([
      '  Keep it short.',
      '  Plain words.',
      '  No lists.',
      '  … 2 more lines (Ctrl-O shows it whole)',
    ]);
    expect(shown).not.toContain('THE SIXTH LINE.');
    // The delegate's work one level in, its tool calls a level further; the delegation's result at the coordinator's.
    const read = lines.findIndex((line) => /^ {4}✓ developer {2}file_read {2}notes\.txt/.test(line));
    const replied = lines.findIndex((line) => line.startsWith('  developer → coordinator: Ada wrote notes;'));
    const result = lines.findIndex((line) => /^ {2}✓ coordinator → developer {2}"Summarize notes\.txt/.test(line));
    expect(read, shown).toBeGreaterThan(start);
    expect(replied, shown).toBeGreaterThan(read);
    expect(result, shown).toBeGreaterThan(replied);
    // Ctrl-O walks back through what was folded: the result, the file read, then the whole message.
    terminal.keys('C-o');
    terminal.keys('C-o');
    terminal.keys('C-o');
    const expanded = await terminal.waitFor('THE SIXTH LINE.');
    expect(expanded.slice(shown.length - 200)).toMatch(
      / {2}coordinator → developer: Summarize notes\.txt for me\.\n[\s\S]* {2}Say who wrote it\.\n {2}THE SIXTH LINE\./,
    );
  }, 90_000);

  it('while a card is up the status line says "waiting for you" and for what; text written before the call stays above the card', async () => {
    delegate('Write the greeting', 'Write greeting.txt', 'The greeting is written.');
    developerCalls(
      'Write greeting.txt',
      'I will write the greeting file now.',
      { name: 'file_write', input: { path: 'greeting.txt', content: 'hello\n' } },
      'Wrote greeting.txt.',
    );
    await startRepl();
    terminal.type('Write the greeting');
    const waiting = await terminal.waitFor('4. Reject');
    expect(waiting).toMatch(/⋯ waiting for you: 1 approval \(developer → file_write\) · \d/);
    terminal.keys('1', 'Enter');
    const shown = await terminal.waitFor('coordinator: The greeting is written.');
    // In the order it was produced: what the developer wrote, the card it then asked, the decision, the call.
    const text = shown.indexOf('developer → coordinator: I will write the greeting file now.');
    const card = shown.indexOf('developer wants to run file_write');
    const decision = shown.indexOf('✓ approved developer → file_write');
    expect(text, shown).toBeGreaterThan(0);
    expect(card, shown).toBeGreaterThan(text);
    expect(decision, shown).toBeGreaterThan(card);
    expect(shown.split('I will write the greeting file now.').length - 1).toBe(1);
    // The card gone, the status line no longer waits.
    expect(shown.slice(decision)).not.toContain('waiting for you');
  }, 90_000);

  it("parallel delegates to one agent are told apart by their conversation; each one's work sits under it", async () => {
    const delegation = (name: string) => ({
      id: `toolu_${name}`,
      name: 'communicate',
      arguments: JSON.stringify({ to: 'developer', conversation: name, message: `Count to ${name}` }),
    });
    mock.on(
      { model: 'claude-team', userMessage: 'Count twice', hasToolResult: false },
      { toolCalls: [delegation('three'), delegation('five')] },
    );
    mock.on({ model: 'claude-team', userMessage: 'Count twice', hasToolResult: true }, { content: 'Both counted.' });
    mock.on({ model: 'gpt-team', userMessage: 'Count to three' }, { content: 'One, two, three.' });
    mock.on({ model: 'gpt-team', userMessage: 'Count to five' }, { content: 'One, two, three, four, five.' });
    await startRepl();
    terminal.type('Count twice');
    const shown = await terminal.waitFor('coordinator: Both counted.');
    for (const [name, reply] of [
      ['three', 'One, two, three.'],
      ['five', 'One, two, three, four, five.'],
    ]) {
      expect(shown).toContain(`  coordinator → developer (${name}): Count to ${name}`);
      expect(shown).toContain(`  developer (${name}) → coordinator: ${reply}`);
    }
  }, 90_000);

  it('each participant is named in its own colour, the same in every line; NO_COLOR shows none', async () => {
    delegate('Say hello', 'Say hello to the user', 'The developer said hello.');
    mock.on({ model: 'gpt-team', userMessage: 'Say hello to the user' }, { content: 'Hello from the developer.' });
    // The colour code a participant's name is written in, as node:util styles it.
    const opening = (id: string): string => `\x1b[${inspect.colors[participantColour(id)]![0]}m`;
    expect(opening('coordinator')).not.toBe(opening('developer'));
    await startRepl({ NO_COLOR: '' });
    terminal.type('Say hello');
    await terminal.waitFor('coordinator: The developer said hello.');
    const coloured = terminal.screenWithStyles();
    const delegation = coloured.split('\n').find((line) => line.includes('Say hello to the user')) ?? '';
    expect(delegation).toContain(`${opening('coordinator')}coordinator`);
    expect(delegation).toContain(`${opening('developer')}developer`);
    const reply = coloured.split('\n').find((line) => line.includes('Hello from the developer.')) ?? '';
    expect(reply).toContain(`${opening('developer')}developer`);

    await terminal.kill();
    terminal = new TmuxTerminal(workspace.dir, 'plain');
    await startRepl();
    terminal.type('Say hello');
    await terminal.waitFor('coordinator: The developer said hello.');
    const plain = terminal.screenWithStyles().split('\n');
    for (const text of ['Say hello to the user', 'Hello from the developer.'])
      expect(plain.find((line) => line.includes(text))).not.toMatch(/\x1b\[/);
  }, 90_000);

  it('a message another process sends into the open conversation appears as it is appended', async () => {
    mock.on(
      { model: 'claude-team', userMessage: 'Hello from the other shell' },
      { content: 'Hello, other shell.\n\n- **first** point\n- second point' },
    );
    // With colours, as a person's terminal has them: replies are rendered from markdown.
    await startRepl({ NO_COLOR: '', TERM: 'xterm-256color' });
    // `legion run` in another shell: it works in the latest session, the one the REPL has open.
    const run = await runLegion(['run', 'Hello from the other shell'], { cwd: workspace.dir, env: { ...process.env, ...env() } });
    expect(run.status, run.stderr).toBe(0);
    const shown = await terminal.waitFor('coordinator (sent elsewhere): Hello, other shell.');
    expect(shown).toContain('you → coordinator (sent elsewhere): Hello from the other shell');
    expect(shown.indexOf('you → coordinator (sent elsewhere)')).toBeLessThan(shown.indexOf('coordinator (sent elsewhere): Hello, other'));
    // Rendered as a reply here would be: markdown on a terminal, not its raw markers.
    const reply = (await terminal.waitFor('second point')).slice(shown.indexOf('coordinator (sent elsewhere): Hello, other'));
    expect(reply).toMatch(/^- first point$/m);
    expect(reply).not.toContain('**first**');
  }, 90_000);
});
