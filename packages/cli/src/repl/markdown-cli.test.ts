import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { LEGION, runLegion } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

if (TMUX_MISSING) console.warn('markdown-cli.test.ts: tmux is not installed, so these tests are skipped (apt-get install -y tmux).');

const ESC = '\x1b';

/** A reply with what a model writes: a heading, emphasis, a link, a list, a quote, a code block, a table. */
const REPLY = [
  '# Release plan',
  '',
  'Ship **the parser** first, then *the docs*; see [the notes](https://example.com/notes).',
  '',
  '- write the tests',
  '- fix the bug',
  '  - the nested part',
  '',
  '> measure before and after',
  '',
  '```ts',
  'const answer: number = 42;',
  'console.log(answer);',
  '```',
  '',
  '| Step | Owner |',
  '|------|-------|',
  '| parse | developer, who also writes the tests for every case the issue lists |',
  '| review | reviewer |',
].join('\n');

/** Markdown that tries to talk to the terminal: the clipboard from a link's address, a clear from a code label, a colour from a cell. */
const HOSTILE = [
  `Read [this](https://evil.example/${ESC}]52;c;cHduZWQ=\x07x) first.`,
  '',
  `\`\`\`sh${ESC}]52;c;b3duZWQ=\x07`,
  'echo safe',
  '```',
  '',
  '| a | b |',
  '|---|---|',
  `| ${ESC}[31mred | ok |`,
].join('\n');

// The REPL and legion run (the built binary, in tmux or piped) on a model that answers in
// markdown: the real Anthropic SDK against aimock on 127.0.0.1.
describe.skipIf(TMUX_MISSING)('replies are rendered from markdown on a terminal, raw for scripts and under NO_COLOR', () => {
  const workspace = useWorkspace('legion-markdown-');
  const { mock, env } = workspace;
  let terminal: TmuxTerminal;

  beforeEach(() => {
    workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-markdown', baseURL: mock.url });
    mock.on({ userMessage: 'plan please' }, { content: REPLY }, { latency: 5, chunkSize: 9 });
    mock.on({ userMessage: 'hostile please' }, { content: HOSTILE }, { latency: 5, chunkSize: 7 });
    terminal = new TmuxTerminal(workspace.dir);
    // OSC 52 from a program sets tmux's own buffer: what /copy puts there, and what a reply must not.
    appendFileSync(join(workspace.dir, 'repl.tmux.conf'), 'set -g set-clipboard on\n');
  });
  afterEach(() => terminal.kill());

  /** Starts `legion ARGS` in the terminal, with colours (as a terminal has them) unless `noColor`. */
  function launch(args: string[], noColor = false): void {
    const variables = Object.entries({ ...env(), NO_COLOR: noColor ? '1' : '', TERM: 'xterm-256color' }).map(
      ([name, value]) => `${name}=${value}`,
    );
    terminal.start(`${['env', ...variables, process.execPath, LEGION, ...args].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
  }

  /** The line that ends a turn: the reply is whole above it (a table's bottom may show while it still streams). */
  const TURN_END = /└─+┴─+┘\n {2}\(\d+ ms · /;

  /** The markers a raw reply shows and a rendered one does not. */
  const RAW_MARKERS = ['# Release plan', '**the parser**', '*the docs*', '](https://', '```', '|------|', '| Step |', '> measure'];

  it('the REPL renders heading, list, code block and table without raw markers; /raw shows them; /copy gives the code only', async () => {
    launch([]);
    await terminal.waitFor('/help for commands');
    terminal.type('plan please');
    const shown = await terminal.waitFor(TURN_END);
    const reply = shown.slice(shown.indexOf('you → coordinator: plan please'));
    for (const marker of RAW_MARKERS) expect(reply, marker).not.toContain(marker);
    expect(reply).toMatch(/^coordinator:\nRelease plan$/m);
    expect(reply).toContain('Ship the parser first, then the docs; see the notes (https://example.com/notes).');
    expect(reply).toMatch(/^- write the tests\n- fix the bug\n {2}- the nested part$/m);
    expect(reply).toContain('│ measure before and after');
    expect(reply).toMatch(/^╭─ ts\n {2}const answer: number = 42;\n {2}console\.log\(answer\);\n╰─$/m);
    // The table fits the 120 columns, its long cell wrapped under itself.
    expect(reply).toMatch(/^│ Step +│ Owner +│$/m);
    expect(reply).toMatch(/^│ parse +│ developer, who also writes the tests for every case the issue lists +│$/m);
    for (const line of reply.split('\n')) expect(line.length, line).toBeLessThanOrEqual(120);

    terminal.type('/raw');
    const raw = await terminal.waitFor('› /raw\n');
    await terminal.waitFor('| review | reviewer |', raw.indexOf('› /raw'));
    const rawShown = terminal.screen();
    expect(rawShown.slice(rawShown.indexOf('› /raw'))).toContain(REPLY);
    // One key away, too: Ctrl-T shows the last reply raw, and the next press the one before it.
    // (After the raw reply /raw printed: the live region below it is drawn over by what is printed next.)
    const before = terminal.screen().lastIndexOf('| review | reviewer |');
    terminal.keys('C-t');
    await terminal.waitFor('reply 1 back, as written:', before);
    await terminal.waitFor('| review | reviewer |', terminal.screen().indexOf('reply 1 back, as written:', before));
    terminal.keys('C-t');
    await terminal.waitFor('No reply before that one is kept.', before);

    expect(terminal.clipboard()).toBeUndefined();
    terminal.type('/copy');
    await terminal.waitFor('code block 1 of 1 (ts), 2 lines: on the clipboard (OSC 52), and bare below');
    expect(terminal.clipboard()).toBe('const answer: number = 42;\nconsole.log(answer);');
  }, 120_000);

  it("an agent's question is rendered from markdown on its card and in the scrollback once answered", async () => {
    const question = ['Which **release** do you want?', '', '- `1.4`, the stable one', '- `2.0`, the beta'].join('\n');
    mock.on(
      { userMessage: 'ask me', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_which', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: question }) }] },
    );
    mock.on({ userMessage: 'ask me', hasToolResult: true }, { content: 'Going with 2.0.' });
    launch([]);
    await terminal.waitFor('/help for commands');
    terminal.type('ask me');
    const card = await terminal.waitFor('type your answer and press Enter');
    const shownCard = card.slice(card.lastIndexOf('question from coordinator'));
    expect(shownCard).toMatch(/^ {2}Which release do you want\? *$/m);
    expect(shownCard).toMatch(/^ {2}- 1\.4, the stable one *\n {2}- 2\.0, the beta *$/m);
    for (const marker of ['**', '`']) expect(shownCard, marker).not.toContain(marker);
    terminal.type('2.0');
    const after = await terminal.waitFor('coordinator: Going with 2.0.');
    const asked = after.slice(after.lastIndexOf('coordinator asked'));
    expect(asked).toMatch(/^coordinator asked \(coordinator__user, via user → coordinator\): Which release do you want\? *$/m);
    expect(asked).toMatch(/^- 2\.0, the beta *$/m);
    expect(asked.slice(0, asked.indexOf('you → coordinator'))).not.toContain('**');
  }, 90_000);

  it('hostile markdown stays inert: escapes in a link, a code label and a table cell are shown, never acted on', async () => {
    launch([]);
    await terminal.waitFor('/help for commands');
    terminal.type('hostile please');
    const shown = await terminal.waitFor(TURN_END);
    expect(shown).toContain('this (https://evil.example/\\x1b]52;c;cHduZWQ=\\x07x)');
    expect(shown).toContain('╭─ sh\\x1b]52;c;b3duZWQ=\\x07');
    expect(shown).toMatch(/│ \\x1b\[31mred +│ ok +│/);
    // Neither OSC 52 reached the terminal: nothing was put on the clipboard.
    expect(terminal.clipboard()).toBeUndefined();
  }, 120_000);

  it('/clear clears the screen and keeps the scrollback', async () => {
    launch([]);
    await terminal.waitFor('/help for commands');
    terminal.type('plan please');
    await terminal.waitFor(/\n {2}\(\d+ ms · /);
    expect(terminal.visible()).toContain('Release plan');
    terminal.type('/clear');
    // The prompt stays ready on a screen without the reply; the reply is still in the scrollback.
    const deadline = Date.now() + 30_000;
    while (terminal.visible().includes('Release plan') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(terminal.visible()).not.toContain('Release plan');
    expect(terminal.screen()).toContain('Release plan');
    expect(terminal.screen()).toContain('you → coordinator: plan please');
    terminal.type('/raw');
    await terminal.waitFor('› /raw');
    expect(terminal.visible()).toContain('# Release plan');
  }, 120_000);

  it('under NO_COLOR the REPL shows the reply as the model wrote it', async () => {
    launch([], true);
    await terminal.waitFor('/help for commands');
    terminal.type('plan please');
    const shown = await terminal.waitFor('| review | reviewer |');
    expect(shown).toContain('coordinator: # Release plan');
    expect(shown).toContain('Ship **the parser** first');
    expect(shown).toContain('```ts');
  }, 120_000);

  it('legion run renders on a terminal, and prints the raw reply, byte for byte, into a pipe', async () => {
    launch(['run', 'plan please']);
    const shown = await terminal.waitFor('[legion exited: 0]');
    for (const marker of RAW_MARKERS) expect(shown, marker).not.toContain(marker);
    expect(shown).toMatch(/^╭─ ts$/m);
    expect(shown).toMatch(/^│ Step +│ Owner +│$/m);

    const piped = await runLegion(['run', 'plan please'], { cwd: workspace.dir, env: { ...process.env, ...env(), NO_COLOR: '' } });
    expect(piped.status, piped.stderr).toBe(0);
    expect(piped.stdout).toBe(`${REPLY}\n`);
    const log = await runLegion(['log', 'user__coordinator'], { cwd: workspace.dir, env: { ...process.env, ...env(), NO_COLOR: '' } });
    expect(log.stdout).toContain('  Ship **the parser** first');

    // legion log on a terminal renders each message under its header, indented.
    await terminal.kill();
    terminal = new TmuxTerminal(workspace.dir, 'log');
    launch(['log', 'user__coordinator']);
    const logged = await terminal.waitFor('[legion exited: 0]');
    for (const marker of RAW_MARKERS) expect(logged, marker).not.toContain(marker);
    expect(logged).toContain('  Ship the parser first, then the docs;');
    expect(logged).toMatch(/^ {2}╭─ ts\n {4}const answer: number = 42;$/m);
  }, 120_000);
});
