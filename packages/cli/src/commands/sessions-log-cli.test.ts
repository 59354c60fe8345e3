import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// `legion sessions …` and `legion log …` through the built binary, on mock participants and the scripted demo.
const LEGION = fileURLToPath(new URL('../../dist/legion.js', import.meta.url));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

const ORACLE = {
  id: 'oracle',
  type: 'mock',
  name: 'Oracle',
  responses: [
    // Answers only after a minute: its turn holds the conversation while the test looks.
    { trigger: '/^hold/', response: 'too late', delayMs: 60_000 },
    { trigger: 'ping', response: 'pong' },
  ],
  fallback: 'no idea',
};

describe('legion sessions and legion log', () => {
  let dir: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-sessions-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg') });
  function legion(args: string[], cwd = dir): Run {
    const result = spawnSync(process.execPath, [LEGION, ...args], { cwd, input: '', encoding: 'utf8', env: env() });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }
  function expectExit(run: Run, status: number): void {
    expect(run.status, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(status);
  }
  /** A legion process left running; resolves the first time its stdout or stderr has matched. */
  function start(args: string[]): {
    child: ChildProcess;
    output: () => string;
    until: (pattern: RegExp, stream?: 'stdout' | 'stderr') => Promise<string>;
    exit: Promise<number | null>;
  } {
    const child = spawn(process.execPath, [LEGION, ...args], { cwd: dir, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const text = { stdout: '', stderr: '' };
    const waiters: Array<{ pattern: RegExp; stream: 'stdout' | 'stderr'; resolve: (text: string) => void }> = [];
    const check = (): void => {
      for (const waiter of waiters.filter((candidate) => candidate.pattern.test(text[candidate.stream]))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(text[waiter.stream]);
      }
    };
    child.stdout!.on('data', (chunk: Buffer) => ((text.stdout += chunk.toString()), check()));
    child.stderr!.on('data', (chunk: Buffer) => ((text.stderr += chunk.toString()), check()));
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    return {
      child,
      output: () => text.stdout,
      until: (pattern, stream = 'stdout') => new Promise((resolve) => (waiters.push({ pattern, stream, resolve }), check())),
      exit,
    };
  }
  function initWithOracle(): void {
    expectExit(legion(['init']), 0);
    writeFileSync(join(dir, '.legion/collective/participants/oracle.json'), JSON.stringify(ORACLE));
  }
  const sessionOf = (run: Run): string => (JSON.parse(run.stdout) as { sessionId: string }).sessionId;

  it('lists sessions as a table and as JSON, with `legion sessions` and `legion sessions list`', () => {
    initWithOracle();
    expect(legion(['sessions']).stdout).toBe('No sessions yet. Start one with: legion run "hello"\n');
    const first = sessionOf(legion(['run', '--to', 'oracle', '--output', 'json', 'ping']));
    const second = sessionOf(legion(['run', '--to', 'oracle', '--new-session', '--output', 'json', 'ping']));
    legion(['run', '--to', 'oracle', '--session', second, '--conversation', 'side', 'ping']);

    const table = legion(['sessions']);
    expectExit(table, 0);
    const [head, ...rows] = table.stdout.trimEnd().split('\n');
    expect(head).toMatch(/^SESSION\s+LAST ACTIVE \(UTC\)\s+CONVERSATIONS\s+TITLE$/);
    expect(rows).toHaveLength(2);
    // Each titled from its first message.
    expect(rows[0]).toMatch(new RegExp(`^${second}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+2\\s+ping$`));
    expect(rows[1]).toMatch(new RegExp(`^${first}\\s+\\S+ \\S+\\s+1\\s+ping$`));
    expect(legion(['sessions', 'list']).stdout).toBe(table.stdout);

    const json = JSON.parse(legion(['sessions', '--json']).stdout) as {
      sessions: Array<{ id: string; conversations: number; lastActiveAt: string }>;
      warnings: string[];
    };
    expect(json.sessions.map((session) => [session.id, session.conversations])).toEqual([
      [second, 2],
      [first, 1],
    ]);
    expect(json.warnings).toEqual([]);
    expect(JSON.parse(legion(['sessions', 'list', '--json']).stdout)).toEqual(json);
  });

  it('shows one session: its conversations with their last message, approvals and usage; --json for scripts', () => {
    initWithOracle();
    const id = sessionOf(legion(['run', '--to', 'oracle', '--output', 'json', 'ping']));
    legion(['run', '--to', 'oracle', '--conversation', 'side', 'hello there']);

    const shown = legion(['sessions', 'show', id]);
    expectExit(shown, 0);
    expect(shown.stdout).toContain(`Session ${id}`);
    expect(shown.stdout).toContain('(latest: legion run resumes it)');
    expect(shown.stdout).toMatch(/approvals\s+none waiting/);
    expect(shown.stdout).toMatch(/^user__oracle\s+\S+ \S+\s+pong$/m);
    expect(shown.stdout).toMatch(/^user__oracle__side\s+\S+ \S+\s+no idea$/m);

    const json = JSON.parse(legion(['sessions', 'show', id, '--json']).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ id, latest: true, pendingApprovals: [], usage: { calls: 0 } });
    expect(json.conversations).toEqual([
      expect.objectContaining({ conversationId: 'user__oracle', initiator: 'user', responder: 'oracle', lastMessage: 'pong' }),
      expect.objectContaining({ conversationId: 'user__oracle__side', name: 'side', lastMessage: 'no idea' }),
    ]);

    const missing = legion(['sessions', 'show', '20990101-000000-abcdef']);
    expectExit(missing, 1);
    expect(missing.stderr).toContain('No session "20990101-000000-abcdef"');
  });

  it('rm deletes a session with --yes, and without a terminal refuses to go on without it', () => {
    initWithOracle();
    const kept = sessionOf(legion(['run', '--to', 'oracle', '--output', 'json', 'ping']));
    const gone = sessionOf(legion(['run', '--to', 'oracle', '--new-session', '--output', 'json', 'ping']));

    const unconfirmed = legion(['sessions', 'rm', gone]);
    expectExit(unconfirmed, 1);
    expect(unconfirmed.stderr).toMatch(/no terminal to confirm on, so pass --yes/);
    expect(existsSync(join(dir, '.legion/sessions', gone))).toBe(true);

    const removed = legion(['sessions', 'rm', gone, '--yes']);
    expectExit(removed, 0);
    expect(removed.stdout).toBe(`Removed session ${gone}.\n`);
    expect(readdirSync(join(dir, '.legion/sessions'))).toEqual([kept]);
    // The latest session is the one left: a run resumes it.
    expect(sessionOf(legion(['run', '--to', 'oracle', '--output', 'json', 'ping']))).toBe(kept);
    expect(legion(['sessions', 'rm', gone, '-y']).stderr).toContain(`No session "${gone}"`);
    expect(legion(['sessions', 'rm', '../../etc', '-y']).status).toBe(1);
  });

  it('rm refuses a session while another process runs a turn in it, naming the holder; once it ends, rm works', async () => {
    initWithOracle();
    const id = sessionOf(legion(['run', '--to', 'oracle', '--output', 'json', 'ping']));
    const held = start(['run', '--to', 'oracle', '--session', id, '--output', 'stream-json', 'hold on']);
    // turn:start is written once the run holds the conversation.
    await held.until(/"type":"turn:start"/);

    const refused = legion(['sessions', 'rm', id, '--yes']);
    expectExit(refused, 1);
    expect(refused.stderr).toMatch(new RegExp(`Session ${id} is in use: conversation user__oracle is held by .*pid ${held.child.pid}`));
    expect(existsSync(join(dir, '.legion/sessions', id, 'conversations/user__oracle.jsonl'))).toBe(true);

    held.child.kill('SIGTERM');
    await held.exit;
    expectExit(legion(['sessions', 'rm', id, '--yes']), 0);
    expect(existsSync(join(dir, '.legion/sessions', id))).toBe(false);
  }, 30_000);

  it('log shows a conversation with each tool call and its result on one line; --json gives one message per line', () => {
    const demo = join(dir, 'demo');
    expectExit(legion(['demo', '--pace', '0', '--dir', demo]), 0);

    const entry = legion(['log'], demo);
    expectExit(entry, 0);
    expect(entry.stdout).toMatch(/^user \d{4}-\d\d-\d\d \S+\n {2}Our \/health endpoint should report the app version/);
    expect(entry.stdout).toMatch(/^ {2}⚙ communicate \{"to":"developer",.*→ Proposal: read the version/m);
    expect(entry.stdout).toContain('Shall the developer go ahead?');

    const delegate = legion(['log', 'coordinator__developer'], demo);
    expectExit(delegate, 0);
    const toolLines = delegate.stdout.split('\n').filter((line) => line.includes('⚙'));
    expect(toolLines[0]).toMatch(/^ {2}⚙ file_read \{"path":"src\/health\.js"\} → src\/health\.js \(5 lines\)/);
    expect(toolLines).toHaveLength(3);
    // Results are folded into their call's line, never shown on their own.
    expect(delegate.stdout).not.toMatch(/^\s*↳/m);

    const json = legion(['log', '--json', 'coordinator__developer'], demo);
    const lines = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { conversationId: string; author: string; message: { role: string } });
    expect(lines.every((line) => line.conversationId === 'coordinator__developer')).toBe(true);
    expect(lines[0]).toMatchObject({ author: 'coordinator', message: { role: 'user' } });
    expect(lines.at(-1)).toMatchObject({ author: 'developer', message: { role: 'assistant' } });

    expect(legion(['log', '--limit', '1', 'coordinator__developer'], demo).stdout).toMatch(/^developer .*\n {2}Proposal:/);
    const unknown = legion(['log', 'reviewer'], demo);
    expectExit(unknown, 1);
    expect(unknown.stderr).toMatch(
      /has no conversation "user__reviewer"\. Its conversations: coordinator__developer, developer__reviewer, user__coordinator/,
    );
  });

  it('log --follow prints the history, then what another process appends, until Ctrl-C', async () => {
    initWithOracle();
    const id = sessionOf(legion(['run', '--to', 'oracle', '--output', 'json', 'ping']));
    const follow = start(['log', '--follow', 'oracle']);
    await follow.until(/following user__oracle/, 'stderr');
    expect(follow.output()).toMatch(/^user .*\n {2}ping\noracle .*\n {2}pong\n$/);

    expectExit(legion(['run', '--to', 'oracle', '--session', id, 'ping again']), 0);
    const shown = await follow.until(/ping again\noracle .*\n {2}pong\n$/);
    expect(shown.match(/pong/g)).toHaveLength(2);

    follow.child.kill('SIGINT');
    expect(await follow.exit).toBe(0);
  }, 30_000);
});
