import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Bad input through real `legion` commands, as a user or a script would give it.
const LEGION = fileURLToPath(new URL('../dist/legion.js', import.meta.url));
/** Opens a workspace, holds at a gate, then takes the first session: the race without start-up time. */
const FIRST_SESSION = fileURLToPath(new URL('./__fixtures__/first-session.mjs', import.meta.url));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function legion(args: string[], cwd: string, input = ''): Run {
  const result = spawnSync(process.execPath, [LEGION, ...args], {
    cwd,
    input,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(cwd, '.xdg') },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function node(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(cwd, '.xdg'), ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const ORACLE = { id: 'oracle', type: 'mock', name: 'Oracle', responses: [{ trigger: 'ping', response: 'pong' }], fallback: 'no idea' };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-bad-input-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function init(): void {
  expect(legion(['init'], dir).status).toBe(0);
  writeFileSync(join(dir, '.legion/collective/participants/oracle.json'), JSON.stringify(ORACLE));
}

function sessionFolders(): string[] {
  const root = join(dir, '.legion/sessions');
  return existsSync(root) ? readdirSync(root).filter((name) => statSync(join(root, name)).isDirectory()) : [];
}

describe('bad input to legion commands', () => {
  it('refuses a session id that is a path, and writes nothing outside the sessions folder', () => {
    init();
    for (const id of ['../../src/victim', '../escape', 'a/b', '.', '']) {
      const run = legion(['run', '--session', id, '--to', 'oracle', 'ping'], dir);
      expect(run.status, id).not.toBe(0);
      expect(run.stderr, id).toMatch(/session/i);
    }
    expect(existsSync(join(dir, 'src'))).toBe(false);
    expect(existsSync(join(dir, '.legion/escape'))).toBe(false);
    expect(sessionFolders()).toEqual([]);
  });

  it('reports a broken session and goes on with the others, in run and in sessions', () => {
    init();
    const good = legion(['run', '--to', 'oracle', '--output', 'json', 'ping'], dir);
    expect(good.status).toBe(0);
    const goodId = (JSON.parse(good.stdout) as { sessionId: string }).sessionId;
    // A folder whose session.json names another id (copied by hand, say), and one that is not JSON.
    const copied = join(dir, '.legion/sessions/copied-by-hand');
    mkdirSync(copied, { recursive: true });
    writeFileSync(join(copied, 'session.json'), readFileSync(join(dir, '.legion/sessions', goodId, 'session.json')));
    const garbled = join(dir, '.legion/sessions/garbled');
    mkdirSync(garbled, { recursive: true });
    writeFileSync(join(garbled, 'session.json'), '{"id": "garbled", "createdAt"');

    const listed = legion(['sessions'], dir);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(goodId);
    expect(listed.stderr).toMatch(/warning: .*copied-by-hand/);
    expect(listed.stderr).toMatch(/warning: .*garbled/);

    const again = legion(['run', '--to', 'oracle', '--output', 'json', 'ping'], dir);
    expect(again.status).toBe(0);
    const report = JSON.parse(again.stdout) as { sessionId: string; reply: string; warnings: string[] };
    expect(report.sessionId).toBe(goodId);
    expect(report.reply).toBe('pong');
    expect(report.warnings.some((warning) => warning.includes('copied-by-hand'))).toBe(true);
  });

  it('six processes opening a fresh workspace at one instant share one first session', async () => {
    init();
    const gate = join(dir, 'release');
    const pending = Array.from({ length: 6 }, () => node([FIRST_SESSION, dir], dir, { LEGION_TEST_GATE: gate }));
    // Every process has opened the workspace and holds at the gate before any may look for a session.
    await vi.waitFor(() => expect(readdirSync(dir).filter((name) => name.endsWith('.ready'))).toHaveLength(6), {
      timeout: 30_000,
      interval: 5,
    });
    writeFileSync(gate, '');
    const runs = await Promise.all(pending);
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    expect(new Set(runs.map((run) => run.stdout)).size).toBe(1);
    expect(sessionFolders()).toHaveLength(1);
    expect(legion(['sessions'], dir).stdout).toContain(runs[0]!.stdout);
  });

  it('six legion run processes started together on a fresh workspace all answer, in one session', async () => {
    init();
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, index) => node([LEGION, 'run', '--to', 'oracle', '--conversation', `c${index}`, 'ping'], dir)),
    );
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    expect(sessionFolders()).toHaveLength(1);
  });

  it('refuses a message over the limit on standard input, storing nothing, and names the setting', () => {
    init();
    const huge = 'x'.repeat(50 * 1024 * 1024);
    const run = legion(['run', '--to', 'oracle', '-'], dir, huge);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('limits.maxMessageBytes');
    for (const id of sessionFolders()) {
      const conversations = join(dir, '.legion/sessions', id, 'conversations');
      if (!existsSync(conversations)) continue;
      for (const file of readdirSync(conversations)) expect(statSync(join(conversations, file)).size).toBeLessThan(1024 * 1024);
    }
  });

  it('refuses a message over a configured limit given as words too', () => {
    init();
    const configPath = join(dir, '.legion/config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(configPath, JSON.stringify({ ...config, limits: { maxMessageBytes: 100 } }));
    const run = legion(['run', '--to', 'oracle', 'y'.repeat(200)], dir);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/limit is 100 B|100 bytes/);
    expect(legion(['run', '--to', 'oracle', 'ping'], dir).stdout.trim()).toBe('pong');
  });

  it('warns once about a garbage line inside a conversation log, and keeps every message', () => {
    init();
    expect(legion(['run', '--to', 'oracle', 'ping'], dir).status).toBe(0);
    const [id] = sessionFolders();
    const log = join(dir, '.legion/sessions', id!, 'conversations/user__oracle.jsonl');
    appendFileSync(log, '{"this is": "not an entry"}\n');
    const run = legion(['run', '--to', 'oracle', '--output', 'json', 'ping'], dir);
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { warnings: string[] };
    const aboutLog = report.warnings.filter((warning) => warning.includes('user__oracle.jsonl'));
    expect(aboutLog).toHaveLength(1);
    expect(run.stderr.split('\n').filter((line) => line.includes('user__oracle.jsonl'))).toHaveLength(1);
    const entries = readFileSync(log, 'utf8').trim().split('\n');
    // header, ping, pong, the garbage line, ping, pong
    expect(entries).toHaveLength(6);
  });

  it('shows problems found while the workspace opened: a broken tool file, a missing entry agent', () => {
    init();
    writeFileSync(join(dir, '.legion/tools/broken.json'), '{ "name": "broken", ');
    const configPath = join(dir, '.legion/config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(configPath, JSON.stringify({ ...config, entryAgent: 'nobody' }));
    const text = legion(['run', '--to', 'oracle', 'ping'], dir);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout.trim()).toBe('pong');
    expect(text.stderr).toMatch(/^warning: .*broken\.json: /m);
    expect(text.stderr).toMatch(/^warning: .*config\.json: entryAgent: "nobody"/m);

    const json = legion(['run', '--to', 'oracle', '--output', 'json', 'ping'], dir);
    const report = JSON.parse(json.stdout) as { warnings: string[] };
    expect(report.warnings.some((warning) => warning.includes('broken.json: is not valid JSON'))).toBe(true);
    expect(report.warnings.some((warning) => warning.includes('entryAgent: "nobody"'))).toBe(true);
  });
});
