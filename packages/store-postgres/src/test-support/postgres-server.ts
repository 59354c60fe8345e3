import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A throw-away PostgreSQL server for tests: Debian's `postgresql` package (`initdb` and `postgres`
 * from /usr/lib/postgresql/<version>/bin, or LEGION_PG_BINDIR), a data directory in a temp dir,
 * listening on a unix socket in it only (no TCP port to collide with). Durability is off (fsync,
 * full page writes): a test server is thrown away, and the tests are about concurrency, not disks.
 * PostgreSQL refuses to run as root; as root (CI) it runs as the `postgres` system user the
 * package creates, through `runuser`, in a directory that user owns.
 */
export interface PostgresServer {
  /** A URL of the `postgres` database, for creating others. */
  readonly adminUrl: string;
  readonly dataDir: string;
  /** A new empty database; its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the server at once (as a crash would) and starts it again on the same data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export type FoundPostgres = { ok: true; binDir: string; runAs: string | undefined } | { ok: false; reason: string };

export function findPostgres(env: NodeJS.ProcessEnv = process.env): FoundPostgres {
  const candidates: string[] = [];
  if (env['LEGION_PG_BINDIR']) candidates.push(env['LEGION_PG_BINDIR']);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    for (const version of readdirSync(debian).sort((a, b) => Number(b) - Number(a))) candidates.push(join(debian, version, 'bin'));
  }
  for (const dir of (env['PATH'] ?? '').split(':')) if (dir) candidates.push(dir);
  const binDir = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres')));
  if (!binDir)
    return {
      ok: false,
      reason:
        'no PostgreSQL server found (initdb and postgres in /usr/lib/postgresql/*/bin, LEGION_PG_BINDIR or PATH): apt-get install postgresql',
    };
  if (process.getuid?.() !== 0) return { ok: true, binDir, runAs: undefined };
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    execFileSync('runuser', ['--version'], { stdio: 'ignore' });
  } catch {
    return { ok: false, reason: 'running as root, and PostgreSQL will not: no "postgres" user or no runuser to run it as that user' };
  }
  return { ok: true, binDir, runAs: 'postgres' };
}

export async function startPostgresServer(found: Extract<FoundPostgres, { ok: true }>): Promise<PostgresServer> {
  const base = mkdtempSync(join(tmpdir(), 'legion-pg-'));
  const dataDir = join(base, 'data');
  const port = 5432;
  const command = (program: string, args: string[]): [string, string[]] =>
    found.runAs ? ['runuser', ['-u', found.runAs, '--', join(found.binDir, program), ...args]] : [join(found.binDir, program), args];
  if (found.runAs) execFileSync('chown', [found.runAs, base]);
  const [initdb, initArgs] = command('initdb', ['-D', dataDir, '-U', 'legion', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  execFileSync(initdb, initArgs, { stdio: 'pipe' });
  const adminUrl = `postgresql://legion@/postgres?host=${encodeURIComponent(base)}&port=${port}`;
  let child: ChildProcess | undefined;
  let output = '';

  const start = async (): Promise<void> => {
    const [postgres, args] = command('postgres', [
      '-D',
      dataDir,
      '-k',
      base,
      '-p',
      String(port),
      '-c',
      'listen_addresses=',
      '-c',
      'fsync=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'max_connections=400',
      '-c',
      'shared_buffers=64MB',
    ]);
    child = spawn(postgres, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const client = new pg.Client({ connectionString: adminUrl });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };

  /** The postmaster's pid (runuser's child), from its pid file: what to signal. */
  const postmasterPid = (): number | undefined => {
    try {
      return Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  };

  const kill = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    // SIGQUIT: immediate shutdown, which ends every backend process too.
    const pid = postmasterPid();
    try {
      if (pid) process.kill(pid, 'SIGQUIT');
      else running.kill('SIGQUIT');
    } catch {
      running.kill('SIGKILL');
    }
    const timer = setTimeout(() => running.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    // runuser may exit before the postmaster it ran: wait for the pid file to go.
    for (let waited = 0; existsSync(join(dataDir, 'postmaster.pid')) && waited < 10_000; waited += 20) {
      if (pid && !alive(pid)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  await start();
  return {
    adminUrl,
    dataDir,
    async createDatabase(prefix = 'legion') {
      const name = `${prefix}_${randomBytes(6).toString('hex')}`;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgresql://legion@/${name}?host=${encodeURIComponent(base)}&port=${port}`;
    },
    async restart() {
      await kill();
      await start();
    },
    async stop() {
      await kill();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
