import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './terminal.test-support.js';
import { LEGION, runLegion } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// What an approval shows is what runs: the built binary in a real terminal (tmux), the model on the
// real Anthropic SDK against aimock, asking to run commands written to fool the terminal.
if (TMUX_MISSING) console.warn('approval-spoof-cli.test.ts: tmux is not installed, so these tests are skipped (apt-get install -y tmux).');

const ESC = '\x1b';

describe.skipIf(TMUX_MISSING)('an approval card shows what will run, whatever the model put in it', () => {
  const workspace = useWorkspace('legion-spoof-');
  const { mock, env, useModel } = workspace;
  let terminal: TmuxTerminal;

  beforeEach(() => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    terminal = new TmuxTerminal(workspace.dir);
  });
  afterEach(() => terminal.kill());

  /** Given `userMessage`, the model runs `command` with shell_run, then replies `reply`. */
  function scriptShell(userMessage: string, command: string, reply: string): void {
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: `toolu_${userMessage.replace(/\W/g, '')}`, name: 'shell_run', arguments: JSON.stringify({ command }) }] },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: reply });
  }

  function launch(args: string[]): void {
    const variables = Object.entries(env()).map(([name, value]) => `${name}=${value}`);
    terminal.start(`${['env', ...variables, process.execPath, LEGION, ...args].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
  }

  it('the REPL card: a CR, an erased line or a cursor moved up leaves the command on screen, shown as it is; 1 runs exactly that', async () => {
    const attacks = [
      {
        message: 'Carriage return',
        command: 'touch PWN1 #\r  command: echo harmless',
        shown: 'command: touch PWN1 #␍  command: echo harmless',
        file: 'PWN1',
      },
      {
        message: 'Erase the line',
        command: `touch PWN2 #${ESC}[2K${ESC}[G  command: echo harmless`,
        shown: 'command: touch PWN2 #\\x1b[2K\\x1b[G  command: echo harmless',
        file: 'PWN2',
      },
      { message: 'Up and erase', command: `touch PWN3 #${ESC}[1A${ESC}[2K`, shown: 'command: touch PWN3 #\\x1b[1A\\x1b[2K', file: 'PWN3' },
    ];
    for (const attack of attacks) scriptShell(attack.message, attack.command, `Done: ${attack.file}.`);
    launch([]);
    await terminal.waitFor('/help for commands');
    for (const attack of attacks) {
      const before = terminal.screen().length;
      terminal.type(attack.message);
      const card = await terminal.waitFor('4. Reject', before);
      expect(card.slice(before)).toContain(attack.shown);
      expect(card.slice(before)).not.toMatch(/^\s*command: echo harmless/m);
      terminal.keys('1', 'Enter');
      await terminal.waitFor(`coordinator: Done: ${attack.file}.`, before);
      // What was approved ran: the file the shown command names exists.
      expect(existsSync(join(workspace.dir, attack.file)), attack.file).toBe(true);
    }
  }, 120_000);

  it('a 500-character command is on the card whole before answering, and /approvals shows it whole too', async () => {
    const command = `echo ${Array.from({ length: 70 }, (_, index) => `w${String(index).padStart(2, '0')}x`).join('-')}-END > long.txt`;
    expect(command.length).toBeGreaterThanOrEqual(360);
    const longer = `${command} # ${'z'.repeat(500 - command.length - 3)}`;
    expect(longer.length).toBe(500);
    scriptShell('Run the long one', longer, 'The long one ran.');
    launch([]);
    await terminal.waitFor('/help for commands');
    terminal.type('Run the long one');
    const card = await terminal.waitFor('4. Reject');
    // The card wraps it at the terminal's width: every character is there, in order.
    const flat = (text: string): string => text.replace(/\s+/g, '');
    expect(flat(card)).toContain(flat(`command: ${longer}`));
    expect(card).not.toContain('…');
    // Esc cancels the turn, and its approval with it; `legion approvals --all` still shows the whole input.
    terminal.keys('Escape');
    await terminal.waitFor('was cancelled with the turn: nothing of it will run');
    const listed = await runLegion(['approvals', '--all'], { cwd: workspace.dir, env: { ...process.env, ...env() } });
    expect(flat(listed.stdout)).toContain(flat(longer));
  }, 120_000);

  it('legion run asks on the terminal with the whole input, a CR shown: 1 runs exactly that', async () => {
    scriptShell('Carriage return', 'touch PWN4 #\r  command: echo harmless', 'Done: PWN4.');
    launch(['run', 'Carriage return']);
    const question = await terminal.waitFor('then Enter:');
    expect(question).toContain('command: touch PWN4 #␍  command: echo harmless');
    expect(question).not.toMatch(/^\s*command: echo harmless/m);
    terminal.type('1');
    const final = await terminal.waitFor('[legion exited:');
    expect(final).toContain('Done: PWN4.');
    expect(existsSync(join(workspace.dir, 'PWN4'))).toBe(true);
    expect(readFileSync(join(workspace.dir, 'PWN4'), 'utf8')).toBe('');
  }, 90_000);
});
