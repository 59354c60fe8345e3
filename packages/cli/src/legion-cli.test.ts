import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// These tests run the built binary, as a user would.
const LEGION = fileURLToPath(new URL('../dist/legion.js', import.meta.url));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function legion(args: string[], options: { cwd: string; input?: string; env?: NodeJS.ProcessEnv }): Run {
  const result = spawnSync(process.execPath, [LEGION, ...args], {
    cwd: options.cwd,
    input: options.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(options.cwd, '.xdg'), ...options.env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function legionAsync(args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LEGION, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(cwd, '.xdg') },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const ORACLE = {
  id: 'oracle',
  type: 'mock',
  name: 'Oracle',
  responses: [
    { trigger: '/^slow/', response: 'slow answer', delayMs: 150 },
    { trigger: 'ping', response: 'pong' },
  ],
  fallback: 'no idea',
};

describe('legion CLI', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-cli-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function initWithOracle(): void {
    expect(legion(['init'], { cwd: dir }).status).toBe(0);
    writeFileSync(join(dir, '.legion/collective/participants/oracle.json'), JSON.stringify(ORACLE));
  }

  it('prints its version and help', () => {
    expect(legion(['--version'], { cwd: dir }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = legion(['--help'], { cwd: dir });
    expect(help.status).toBe(0);
    for (const command of ['init', 'demo', 'run', 'sessions']) expect(help.stdout).toContain(command);
  });

  it('demo shows user → coordinator → developer delegation with tool calls and saves the conversations', () => {
    const demoDir = join(dir, 'demo');
    const run = legion(['demo', '--pace', '0', '--dir', demoDir], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    const index = (pattern: string): number => lines.findIndex((line) => line.includes(pattern));
    expect(index('you → coordinator')).toBeGreaterThan(-1);
    expect(index('coordinator → developer')).toBeGreaterThan(index('you → coordinator'));
    expect(index('developer ⚙ file_read')).toBeGreaterThan(index('coordinator → developer'));
    expect(index('"version": "1.4.2"')).toBeGreaterThan(index('developer ⚙ file_read'));
    expect(index('reviewer → developer')).toBeGreaterThan(index('developer → reviewer'));
    expect(index('coordinator → you')).toBeGreaterThan(index('developer → coordinator'));
    const sessions = readdirSync(join(demoDir, '.legion/sessions'));
    expect(sessions).toHaveLength(1);
    expect(readdirSync(join(demoDir, '.legion/sessions', sessions[0]!, 'conversations')).sort()).toEqual([
      'coordinator__developer.jsonl',
      'developer__reviewer.jsonl',
      'user__coordinator.jsonl',
    ]);
  });

  it('init creates a workspace with a team and a .gitignore for sessions, and never overwrites', () => {
    const first = legion(['init'], { cwd: dir });
    expect(first.status).toBe(0);
    expect(readFileSync(join(dir, '.legion/.gitignore'), 'utf8')).toContain('sessions/');
    const participants = readdirSync(join(dir, '.legion/collective/participants')).sort();
    expect(participants).toEqual(['coordinator.json', 'developer.json', 'reviewer.json', 'user.json']);
    writeFileSync(join(dir, '.legion/collective/participants/developer.json'), '{"edited": true}');
    const second = legion(['init'], { cwd: dir });
    expect(second.stdout).toMatch(/kept\s+\.legion\/collective\/participants\/developer\.json/);
    expect(readFileSync(join(dir, '.legion/collective/participants/developer.json'), 'utf8')).toBe('{"edited": true}');
  });

  it('run prints the reply, resumes the latest session, and reports JSON', () => {
    initWithOracle();
    const text = legion(['run', '--to', 'oracle', 'ping'], { cwd: dir });
    expect(text).toMatchObject({ status: 0, stdout: 'pong\n' });
    const json = legion(['run', '--to', 'oracle', '--output', 'json', 'ping', 'again'], { cwd: dir });
    expect(json.status).toBe(0);
    const report = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      reply: 'pong',
      status: 'success',
      from: 'user',
      to: 'oracle',
      conversationId: 'user__oracle',
      participants: ['user', 'oracle'],
    });
    const sessions = readdirSync(join(dir, '.legion/sessions'));
    expect(sessions).toEqual([report.sessionId]);
    const log = readFileSync(join(dir, '.legion/sessions', sessions[0]!, 'conversations/user__oracle.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(log).toHaveLength(5);
    const piped = legion(['run', '--to', 'oracle', '--new-session', '--output', 'json'], { cwd: dir, input: 'ping from stdin\n' });
    expect(JSON.parse(piped.stdout)).toMatchObject({ reply: 'pong' });
    expect(JSON.parse(piped.stdout).sessionId).not.toBe(report.sessionId);
  });

  it('run reports a failed turn with a non-zero exit, naming what failed', () => {
    initWithOracle();
    const run = legion(['run', '--output', 'json', 'hello'], { cwd: dir });
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout) as { status: string; error: string; to: string };
    expect(report.status).toBe('error');
    expect(report.to).toBe('coordinator');
    expect(report.error).toContain('anthropic');
  });

  it('names the broken file, the field and what is expected, and leaves the file alone', () => {
    initWithOracle();
    const file = join(dir, '.legion/collective/participants/oracle.json');
    const cases: Array<[string, RegExp]> = [
      ['{"id": "oracle", "type": "robot", "name": "x"}', /oracle\.json.*"type".*agent.*user.*mock/s],
      ['{"id": "oracle", "type": "mock", "name": "x", "responses": "nope"}', /oracle\.json.*"responses".*array/s],
      ['{"id": "oracle", "type": "mock", ', /oracle\.json.*not valid JSON/s],
    ];
    for (const [content, expected] of cases) {
      writeFileSync(file, content);
      const run = legion(['run', '--to', 'oracle', 'ping'], { cwd: dir });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(expected);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(readFileSync(file, 'utf8')).toBe(content);
    }
  });

  it('says how to start when there is no workspace', () => {
    const nowhere = join(dir, 'empty');
    mkdirSync(nowhere);
    const run = legion(['run', 'hello'], { cwd: nowhere });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('legion init');
  });

  it('two legion run processes on one conversation at once: no corruption, no lost message, no interleaving', async () => {
    initWithOracle();
    const first = legion(['run', '--to', 'oracle', '--output', 'json', 'ping'], { cwd: dir });
    const sessionId = (JSON.parse(first.stdout) as { sessionId: string }).sessionId;
    const runs = await Promise.all(
      [1, 2, 3, 4].map((n) => legionAsync(['run', '--to', 'oracle', '--session', sessionId, '--output', 'json', `slow ${n}`], dir)),
    );
    for (const run of runs) {
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ reply: 'slow answer', sessionId });
    }
    const file = join(dir, '.legion/sessions', sessionId, 'conversations/user__oracle.jsonl');
    const entries = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; role?: string; content?: Array<{ text: string }> });
    expect(entries[0]!.kind).toBe('header');
    const messages = entries.slice(1);
    expect(messages).toHaveLength(10);
    messages.forEach((message, index) => expect(message.role).toBe(index % 2 === 0 ? 'user' : 'assistant'));
    const asked = messages
      .filter((message) => message.role === 'user')
      .map((message) => message.content![0]!.text)
      .sort();
    expect(asked).toEqual(['ping', 'slow 1', 'slow 2', 'slow 3', 'slow 4']);
    expect(existsSync(join(dir, '.legion/sessions', sessionId, 'locks/user__oracle.lock'))).toBe(false);
  });
});
