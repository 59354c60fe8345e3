// A throw-away PostgreSQL server for the bench scripts (the tests have their own, in
// packages/store-postgres/src/test-support): Debian's package, a temp data dir, a unix socket only.
// Unlike the tests' server it keeps PostgreSQL's default durability (fsync, synchronous_commit on),
// so the figures are what an operator's server would give. As root it runs as the `postgres` user.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export async function startBenchPostgres() {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => {} };
  const roots = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  const bin = roots.map((version) => `/usr/lib/postgresql/${version}/bin`).find((dir) => existsSync(join(dir, 'initdb')));
  if (!bin) throw new Error('no PostgreSQL in /usr/lib/postgresql/*/bin: apt-get install postgresql, or set BENCH_DATABASE_URL');
  const asRoot = process.getuid?.() === 0;
  const run = (program, args) => (asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args]);
  const base = mkdtempSync(join(tmpdir(), 'legion-bench-pg-'));
  if (asRoot) execFileSync('chown', ['postgres', base]);
  const data = join(base, 'data');
  const [initdb, initArgs] = run('initdb', ['-D', data, '-U', 'legion', '-A', 'trust', '-E', 'UTF8', '--locale=C']);
  execFileSync(initdb, initArgs, { stdio: 'pipe' });
  const [postgres, args] = run('postgres', [
    '-D',
    data,
    '-k',
    base,
    '-c',
    'listen_addresses=',
    '-c',
    'max_connections=100',
    '-c',
    'shared_buffers=256MB',
  ]);
  const child = spawn(postgres, args, { stdio: 'ignore' });
  const url = `postgresql://legion@/postgres?host=${encodeURIComponent(base)}`;
  for (const deadline = Date.now() + 30_000; ;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline || child.exitCode !== null) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url,
    stop: async () => {
      const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(pid, 'SIGINT');
      await exited;
      for (let waited = 0; existsSync(join(data, 'postmaster.pid')) && waited < 10_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** A new database on the server: its URL. */
export async function createBenchDatabase(adminUrl, name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name}`);
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return adminUrl.replace('@/postgres?', `@/${name}?`);
}
