import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Help and typos, through the built binary: what a person sees when they guess.
const LEGION = fileURLToPath(new URL('../dist/legion.js', import.meta.url));

describe('legion --help and "did you mean"', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-help-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function legion(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [LEGION, ...args], {
      cwd: dir,
      input: '',
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg') },
    });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  /** The command names a help screen lists under "Commands:". */
  function commandsOf(help: string): string[] {
    const section = help.split(/^Commands:\n/m)[1] ?? '';
    return section
      .split('\n')
      .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined && name !== 'help');
  }

  it('every command and subcommand has --help with examples', () => {
    const top = legion(['--help']);
    expect(top.status).toBe(0);
    expect(top.stdout).toContain('Examples:');
    const commands = commandsOf(top.stdout);
    expect(commands).toEqual(
      expect.arrayContaining([
        'init',
        'demo',
        'run',
        'approvals',
        'approve',
        'reject',
        'sessions',
        'log',
        'agents',
        'tools',
        'config',
        'models',
        'auth',
        'doctor',
      ]),
    );
    const screens: Array<[string, string]> = [];
    for (const command of commands) {
      const help = legion([command, '--help']);
      expect(help.status, `${command} --help: ${help.stderr}`).toBe(0);
      screens.push([command, help.stdout]);
      for (const sub of commandsOf(help.stdout)) screens.push([`${command} ${sub}`, legion([command, sub, '--help']).stdout]);
    }
    expect(screens.map(([name]) => name)).toEqual(expect.arrayContaining(['sessions list', 'sessions show', 'sessions rm']));
    for (const [name, help] of screens) expect(help, `legion ${name} --help`).toMatch(/\nExamples:\n {2}\$ legion /);
    // About 40 processes one after another: 8 s on a loaded machine, so more than the default 30 s when it is busier.
  }, 120_000);

  // Groups that do something of their own when named alone: `legion sessions` lists sessions, `legion models` the models, and so on.
  const GROUPS_WITH_AN_ACTION = ['sessions', 'approvals', 'questions', 'models', 'worktrees', 'claims'];

  it('a group of subcommands named alone prints its help on stdout and succeeds', () => {
    const groups = commandsOf(legion(['--help']).stdout).filter(
      (command) => commandsOf(legion([command, '--help']).stdout).length > 0 && !GROUPS_WITH_AN_ACTION.includes(command),
    );
    // Found from the help screens, so a group added later is checked too; these are the ones the issue named.
    expect(groups).toEqual(expect.arrayContaining(['agents', 'tools', 'config', 'mcp', 'store']));
    for (const group of groups) {
      const alone = legion([group]);
      expect({ group, status: alone.status, stderr: alone.stderr }).toEqual({ group, status: 0, stderr: '' });
      expect(alone.stdout).toBe(legion([group, '--help']).stdout);
    }
  }, 60_000);

  it.each([
    [['sesions'], /unknown command 'sesions'\n\(Did you mean sessions\?\)/],
    [['sessions', 'lst'], /unknown command 'lst' for 'legion sessions'\n\(Did you mean list\?\)/],
    [['sessions', 'remove', 'x'], /unknown command 'remove' for 'legion sessions'/],
    [['run', '--ouput', 'json', 'hi'], /unknown option '--ouput'\n\(Did you mean --output\?\)/],
    [['sessions', 'show', '--jsn', 'x'], /unknown option '--jsn'\n\(Did you mean --json\?\)/],
    [['log', '--folow'], /unknown option '--folow'\n\(Did you mean --follow\?\)/],
    [['approve', '--alway', 'x'], /unknown option '--alway'\n\(Did you mean --always\?\)/],
    [['agents', 'lst'], /unknown command 'lst'\n\(Did you mean list\?\)/],
    [['config', 'shw'], /unknown command 'shw'\n\(Did you mean show\?\)/],
    [['doctor', '--jsn'], /unknown option '--jsn'\n\(Did you mean --json\?\)/],
  ])('legion %j says what is wrong, what was probably meant, and where help is', (args, expected) => {
    const run = legion(args);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(expected);
    expect(run.stderr).toContain('--help');
  });
});
