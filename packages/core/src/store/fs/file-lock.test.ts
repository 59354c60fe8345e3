import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { LegionError } from '../../kernel/errors.js';
import { describeHolder, FileLock } from './file-lock.js';
import { currentProcessIdentity } from './process-identity.js';

const SOURCE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The repository's node_modules, where npm workspaces put core's dependencies. */
const PACKAGES = fileURLToPath(new URL('../../../../../node_modules', import.meta.url));

let dir: string;
let lockPath: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'legion-lock-'));
  lockPath = join(dir, 'locks', 'conversation.lock');
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Compiles `store/fs/file-lock.ts` and the modules it imports into `into`, so a
 * plain `node` child runs the very code under test (vitest compiles TypeScript
 * only inside this process, and the built dist may be older than the source).
 */
function compileFileLock(into: string): string {
  const pending = ['store/fs/file-lock.ts'];
  const done = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop() ?? '';
    if (done.has(file)) continue;
    done.add(file);
    const source = readFileSync(join(SOURCE_ROOT, file), 'utf8');
    for (const match of source.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
      pending.push(join(dirname(file), `${match[1]}.ts`));
    }
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const target = join(into, file.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
  writeFileSync(join(into, 'package.json'), '{ "type": "module" }\n');
  // What it imports of its area's neighbours (the kernel's index) needs the packages they use (zod).
  symlinkSync(PACKAGES, join(into, 'node_modules'), 'dir');
  return join(into, 'store', 'fs', 'file-lock.js');
}

/** A child process holding the lock with the real FileLock; it obeys `release` and `try` on stdin. */
const HOLDER_SCRIPT = `
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';
const [modulePath, lockPath] = process.argv.slice(1);
const { FileLock } = await import(pathToFileURL(modulePath).href);
const lock = new FileLock(lockPath);
const tryIt = () => console.log(lock.tryAcquire('child at work') ? 'held' : 'busy');
tryIt();
createInterface({ input: process.stdin }).on('line', (command) => {
  if (command === 'release') { lock.release(); console.log('released'); }
  if (command === 'try') tryIt();
}).on('close', () => process.exit(0));
setInterval(() => {}, 60_000);
`;

/** A child that creates the lock file by hand, as FileLock does (O_EXCL, then the holder as JSON), and waits. */
const RAW_HOLDER_SCRIPT = `
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lockPath = process.argv[1];
fs.mkdirSync(path.dirname(lockPath), { recursive: true });
const fd = fs.openSync(lockPath, 'wx');
fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: os.hostname(), token: 'raw-child', since: new Date().toISOString() }));
fs.closeSync(fd);
console.log('held');
process.stdin.on('end', () => process.exit(0)).resume();
setInterval(() => {}, 60_000);
`;

interface Child {
  process: ChildProcess;
  pid: number;
  /** Resolves with the next stdout line. */
  nextLine(): Promise<string>;
  send(command: string): void;
  exited: Promise<void>;
}

function startChild(args: string[]): Child {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(line);
    else lines.push(line);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const waiter of waiting.splice(0)) waiter.reject(new Error(`child exited (${child.exitCode ?? child.signalCode}): ${stderr}`));
  });
  return {
    process: child,
    pid: child.pid ?? -1,
    nextLine: () => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (child.exitCode !== null || child.signalCode !== null) return Promise.reject(new Error(`child exited: ${stderr}`));
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    send: (command) => child.stdin?.write(`${command}\n`),
    exited,
  };
}

async function startHolder(): Promise<Child> {
  const modulePath = compileFileLock(join(dir, 'compiled'));
  const child = startChild(['--input-type=module', '-e', HOLDER_SCRIPT, modulePath, lockPath]);
  expect(await child.nextLine()).toBe('held');
  return child;
}

async function kill(child: Child): Promise<void> {
  child.process.kill('SIGKILL');
  await child.exited;
}

/** A pid that belonged to a process of this machine and is now free. */
function deadPid(): number {
  const result = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(result.stdout.toString());
}

function writeHolder(holder: Record<string, unknown>): void {
  mkdirSync(dirname(lockPath), { recursive: true });
  writeFileSync(lockPath, JSON.stringify(holder));
}

function backdate(path: string): void {
  const past = new Date(Date.now() - 60_000);
  utimesSync(path, past, past);
}

describe('FileLock within one process', () => {
  it('is exclusive across two instances until released', () => {
    const a = new FileLock(lockPath);
    const b = new FileLock(lockPath);
    expect(a.tryAcquire('first')).toBe(true);
    expect(a.held).toBe(true);
    expect(b.tryAcquire('second')).toBe(false);
    expect(b.held).toBe(false);
    expect(b.holder()).toMatchObject({ pid: process.pid, host: hostname(), purpose: 'first' });
    expect(describeHolder(b.holder())).toBe('this process: first');
    a.release();
    expect(a.held).toBe(false);
    expect(existsSync(lockPath)).toBe(false);
    expect(b.tryAcquire('second')).toBe(true);
    expect(a.tryAcquire()).toBe(false);
    b.release();
  });

  it('does not take the same lock twice through one instance', async () => {
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire()).toBe(true);
    expect(lock.tryAcquire()).toBe(false);
    expect(lock.held).toBe(true);
    await expect(lock.acquire()).rejects.toMatchObject({ code: 'lock_already_held' });
    lock.release();
  });

  it('release removes only its own lock', () => {
    const a = new FileLock(lockPath);
    const b = new FileLock(lockPath);
    expect(a.tryAcquire()).toBe(true);
    b.release();
    expect(b.tryAcquire()).toBe(false);
    // The lock file now belongs to someone else (as after a takeover): releasing must not delete it.
    writeHolder({ pid: process.pid, host: hostname(), token: 'successor', since: new Date().toISOString() });
    a.release();
    expect(a.held).toBe(false);
    expect(b.holder()?.token).toBe('successor');
  });

  it('acquire waits until the holder releases', async () => {
    const a = new FileLock(lockPath);
    const b = new FileLock(lockPath);
    expect(a.tryAcquire('long turn')).toBe(true);
    let waitingFor: string | undefined;
    let acquired = false;
    let told!: () => void;
    const waiting = new Promise<void>((resolve) => (told = resolve));
    const acquiring = b
      .acquire({
        purpose: 'next turn',
        onWait: (holder) => {
          waitingFor = holder?.purpose;
          told();
        },
      })
      .then(() => (acquired = true));
    await waiting;
    expect(waitingFor).toBe('long turn');
    expect(acquired).toBe(false);
    a.release();
    await acquiring;
    expect(b.held).toBe(true);
    expect(b.holder()?.purpose).toBe('next turn');
    b.release();
  });

  it('acquire gives up when its signal is aborted', async () => {
    const a = new FileLock(lockPath);
    expect(a.tryAcquire()).toBe(true);
    const controller = new AbortController();
    const b = new FileLock(lockPath);
    const pending = b.acquire({ signal: controller.signal, onWait: () => controller.abort(new Error('user pressed Ctrl-C')) });
    await expect(pending).rejects.toThrow('user pressed Ctrl-C');
    expect(b.held).toBe(false);
    a.release();
  });

  it('takes over at once a lock whose holder pid has exited', () => {
    const pid = deadPid();
    writeHolder({ pid, host: hostname(), token: 'dead', since: new Date().toISOString(), purpose: 'crashed turn' });
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire('after the crash')).toBe(true);
    expect(lock.holder()).toMatchObject({ pid: process.pid, purpose: 'after the crash' });
    expect(existsSync(`${lockPath}.steal`)).toBe(false);
    lock.release();
  });

  it('does not take over a lock held on another machine while its lease is fresh, but does once it has expired', () => {
    writeHolder({ pid: deadPid(), host: 'another-machine', token: 'remote', since: new Date().toISOString() });
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire()).toBe(false);
    expect(describeHolder(lock.holder())).toMatch(/^pid \d+ on another-machine$/);
    // The remote holder stopped renewing (it crashed, or its machine did).
    backdate(lockPath);
    expect(lock.tryAcquire()).toBe(true);
    lock.release();
  });

  it('takes over at once a lock carrying its own pid from an earlier process (a container restarted as pid 1)', () => {
    const me = currentProcessIdentity();
    expect(me.startTime, 'this test needs /proc').toBeDefined();
    writeHolder({
      ...me,
      startTime: String(Number(me.startTime) - 1),
      host: 'old-container-name',
      token: 'before-restart',
      since: new Date().toISOString(),
    });
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire('after restart')).toBe(true);
    expect(lock.holder()).toMatchObject({ token: expect.not.stringMatching('before-restart'), purpose: 'after restart' });
    lock.release();
  });

  it('judges a holder in another pid namespace by its lease, not by a pid that means something else here', () => {
    const me = currentProcessIdentity();
    // The pid of a live process here, as another container's Legion might also have.
    writeHolder({ ...me, pidNamespace: 'pid:[1]', token: 'other-container', since: new Date().toISOString() });
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire()).toBe(false);
    backdate(lockPath);
    expect(lock.tryAcquire()).toBe(true);
    lock.release();
  });

  it('renews its lease while held, so that a process which cannot check it keeps waiting', async () => {
    const lock = new FileLock(lockPath, 90);
    expect(lock.tryAcquire()).toBe(true);
    backdate(lockPath);
    const before = statSync(lockPath).mtimeMs;
    await vi.waitFor(() => expect(statSync(lockPath).mtimeMs).toBeGreaterThan(before), { timeout: 15_000, interval: 10 });
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('waits for a fresh lock file with no holder yet (it is being written), but takes over an old one', () => {
    mkdirSync(dirname(lockPath), { recursive: true });
    writeFileSync(lockPath, '');
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire()).toBe(false);
    expect(lock.holder()).toBeUndefined();
    expect(describeHolder(lock.holder())).toBe('another process');
    // Left empty by a process killed between creating the file and writing its pid.
    backdate(lockPath);
    expect(lock.tryAcquire()).toBe(true);
    expect(lock.holder()?.pid).toBe(process.pid);
    lock.release();
  });

  it.each([
    ['cut-off JSON', '{"pid":12'],
    ['a holder without a pid', '{"host":"x","token":"t"}'],
    ['a pid that is not a number', `{"pid":"abc","host":"${hostname()}","token":"t"}`],
  ])('takes over an old lock file holding %s', (_label, content) => {
    writeHolder({});
    writeFileSync(lockPath, content);
    backdate(lockPath);
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire()).toBe(true);
    lock.release();
  });

  it('clears a steal marker left by a process that died while taking over', () => {
    writeHolder({ pid: deadPid(), host: hostname(), token: 'dead', since: new Date().toISOString() });
    writeFileSync(`${lockPath}.steal`, '{}');
    const lock = new FileLock(lockPath);
    // A fresh marker means another process is taking over right now: leave it to them.
    expect(lock.tryAcquire()).toBe(false);
    backdate(`${lockPath}.steal`);
    expect(lock.tryAcquire()).toBe(true);
    expect(existsSync(`${lockPath}.steal`)).toBe(false);
    lock.release();
  });
});

describe('FileLock across processes', () => {
  it('a live holder in another process blocks tryAcquire', async () => {
    const child = await startHolder();
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire()).toBe(false);
    expect(lock.holder()).toMatchObject({ pid: child.pid, host: hostname(), purpose: 'child at work' });
    expect(describeHolder(lock.holder())).toBe(`pid ${child.pid} on ${hostname()}: child at work`);
    // and the other way round: the child cannot take it from us either
    child.send('release');
    expect(await child.nextLine()).toBe('released');
    expect(lock.tryAcquire()).toBe(true);
    child.send('try');
    expect(await child.nextLine()).toBe('busy');
    lock.release();
  });

  it('takes over at once the lock of a holder killed with SIGKILL', async () => {
    const child = await startHolder();
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire()).toBe(false);
    await kill(child);
    // No timeout to wait out: the dead pid is seen and the lock is taken on the first try.
    expect(lock.tryAcquire('survivor')).toBe(true);
    expect(lock.holder()).toMatchObject({ pid: process.pid, purpose: 'survivor' });
    expect(existsSync(`${lockPath}.steal`)).toBe(false);
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('takes over a lock file another program wrote the same way, once that program is killed', async () => {
    const child = startChild(['-e', RAW_HOLDER_SCRIPT, lockPath]);
    expect(await child.nextLine()).toBe('held');
    const lock = new FileLock(lockPath);
    expect(lock.tryAcquire()).toBe(false);
    expect(lock.holder()?.pid).toBe(child.pid);
    await kill(child);
    expect(lock.tryAcquire()).toBe(true);
    lock.release();
  });

  it('acquire waits for a holder in another process to release', async () => {
    const child = await startHolder();
    const lock = new FileLock(lockPath);
    let acquired = false;
    let waitedFor: number | undefined;
    let told!: () => void;
    const waiting = new Promise<void>((resolve) => (told = resolve));
    const acquiring = lock
      .acquire({
        purpose: 'parent turn',
        onWait: (holder) => {
          waitedFor = holder?.pid;
          told();
        },
      })
      .then(() => (acquired = true));
    await waiting;
    expect(waitedFor).toBe(child.pid);
    expect(acquired).toBe(false);
    expect(lock.held).toBe(false);
    child.send('release');
    expect(await child.nextLine()).toBe('released');
    await acquiring;
    expect(acquired).toBe(true);
    // The holder released and is still alive: this was a handover, not a takeover.
    expect(child.process.exitCode).toBeNull();
    expect(lock.holder()).toMatchObject({ pid: process.pid, purpose: 'parent turn' });
    child.send('try');
    expect(await child.nextLine()).toBe('busy');
    lock.release();
  });

  it('acquire with a timeout fails naming the live holder', async () => {
    const child = await startHolder();
    const lock = new FileLock(lockPath);
    const error = await lock.acquire({ timeoutMs: 20 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LegionError);
    expect(error).toMatchObject({ code: 'lock_timeout' });
    expect((error as Error).message).toContain(`pid ${child.pid}`);
    expect(lock.held).toBe(false);
  });
});
