// `legion store copy` between a workspace's files and a real PostgreSQL, through the built binary.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileSessionBackend } from '@legion-collective/core';
import { canonicalJson, exportSession, summarizeSnapshot, type SessionSnapshot } from '@legion-collective/core/backend';
import { fillSession } from '@legion-collective/core/testing';
import { createTestDatabase, postgresSkipped, sql } from './test-support/test-database.js';

const LEGION = fileURLToPath(new URL('../../cli/dist/legion.js', import.meta.url));

function legion(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [LEGION, ...args],
      {
        cwd,
        env: { ...process.env, NO_COLOR: '1', LEGION_DATABASE_URL: '', XDG_CONFIG_HOME: join(cwd, '.config'), ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

interface CopyReport {
  sessions: Array<{ id: string; outcome: string; source: { sha256: string; entries: number }; target?: { sha256: string } }>;
}

async function snapshots(root: string): Promise<Map<string, SessionSnapshot>> {
  const backend = new FileSessionBackend({ root });
  try {
    const result = new Map<string, SessionSnapshot>();
    for (const meta of (await backend.sessions.list()).sessions) {
      const snapshot = await exportSession(backend, meta.id);
      if (snapshot) result.set(meta.id, snapshot);
    }
    return result;
  } finally {
    await backend.close();
  }
}

async function workspaceWithSessions(count: number): Promise<{ dir: string; ids: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'legion-pg-copy-'));
  expect((await legion(['init'], dir, {})).code).toBe(0);
  const backend = new FileSessionBackend({ root: dir });
  const ids: string[] = [];
  for (let index = 0; index < count; index++)
    ids.push((await fillSession(backend, { id: `20260102-03040${index}-abcde${index}`, title: `session ${index}` })).id);
  await backend.close();
  return { dir, ids };
}

describe.skipIf(postgresSkipped() !== undefined)('legion store copy', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('copies a workspace files → postgres → files without losing anything, and a second copy changes nothing', async () => {
    const url = await createTestDatabase('copy');
    const env = { LEGION_DATABASE_URL: url };
    const { dir, ids } = await workspaceWithSessions(3);
    dirs.push(dir);
    const original = await snapshots(dir);
    expect([...original.keys()].sort()).toEqual(ids);

    const there = await legion(['store', 'copy', '--from', 'files', '--to', 'postgres', '--json'], dir, env);
    expect(there.stderr).toBe('');
    const report = JSON.parse(there.stdout) as CopyReport;
    expect(report.sessions.map((session) => [session.id, session.outcome]).sort()).toEqual(ids.map((id) => [id, 'copied']));
    for (const session of report.sessions) {
      const expected = original.get(session.id);
      if (!expected) throw new Error(`no session ${session.id}`);
      expect(session.source.sha256).toBe(summarizeSnapshot(expected).sha256);
      expect(session.target?.sha256).toBe(session.source.sha256);
    }
    expect((await sql(url, 'SELECT count(*)::int AS n FROM legion.sessions')).rows).toEqual([{ n: 3 }]);
    const rows = (await sql(url, 'SELECT count(*)::int AS n FROM legion.entries')).rows;

    const back = mkdtempSync(join(tmpdir(), 'legion-pg-copy-back-'));
    dirs.push(back);
    expect((await legion(['init'], back, {})).code).toBe(0);
    const returned = await legion(['store', 'copy', '--from', 'postgres', '--to', 'files'], back, env);
    expect(returned.stderr).toBe('');
    expect(returned.stdout).toContain('Copied 3 sessions from postgres to files');
    expect(returned.stdout).toMatch(
      /copied +20260102-030400-abcde0: 2 conversations, 7 entries, 3 approval records, 3 question records, 2 usage records, 1 conflict records, 2 state documents, 2 artifacts; postgres sha256 ([0-9a-f]{64}), files sha256 \1/,
    );
    const copied = await snapshots(back);
    for (const id of ids) expect(canonicalJson(copied.get(id))).toBe(canonicalJson(original.get(id)));
    // The copied sessions are sessions Legion works with: the pending approval is still waiting.
    const shown = await legion(['sessions', 'show', ids[0] ?? '', '--json'], back, {});
    expect(shown.stdout).toContain('apr_pending');

    const again = await legion(['store', 'copy', '--from', 'files', '--to', 'postgres', '--json'], dir, env);
    expect((JSON.parse(again.stdout) as CopyReport).sessions.map((session) => session.outcome)).toEqual([
      'identical',
      'identical',
      'identical',
    ]);
    expect((await sql(url, 'SELECT count(*)::int AS n FROM legion.entries')).rows).toEqual(rows);
  });

  it('refuses the whole copy when the target holds a different session under the same id, and writes nothing on a dry run', async () => {
    const url = await createTestDatabase('copy');
    const env = { LEGION_DATABASE_URL: url };
    const { dir, ids } = await workspaceWithSessions(2);
    dirs.push(dir);
    const [first = '', second = ''] = ids;

    const dry = await legion(['store', 'copy', '--from', 'files', '--to', 'postgres', '--dry-run'], dir, env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('Dry run: 2 would be copied from files to postgres, 0 already there; nothing was written.');
    expect((await sql(url, 'SELECT count(*)::int AS n FROM legion.sessions')).rows).toEqual([{ n: 0 }]);

    expect((await legion(['store', 'copy', '--from', 'files', '--to', 'postgres', '--session', first], dir, env)).code).toBe(0);
    // The session moves on in the database (another process works there): the files' copy is no longer the same.
    await sql(url, 'UPDATE legion.sessions SET meta = meta || \'{"title": "renamed in the database"}\'::jsonb WHERE id = $1', [first]);
    const refused = await legion(['store', 'copy', '--from', 'files', '--to', 'postgres'], dir, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The postgres store holds a different session under the same id: ${first}`);
    expect(refused.stderr).toContain('Nothing was copied. Fix: leave it out with --session');
    // Nothing was written: not the other session either, and the database's version stands.
    expect((await sql(url, "SELECT id, meta->>'title' AS title FROM legion.sessions")).rows).toEqual([
      { id: first, title: 'renamed in the database' },
    ]);

    const other = await legion(['store', 'copy', '--from', 'files', '--to', 'postgres', '--session', second], dir, env);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('Copied 1 sessions from files to postgres');
  });

  it('says what to do when no database is configured or the stores are the same', async () => {
    const { dir } = await workspaceWithSessions(0);
    dirs.push(dir);
    const none = await legion(['store', 'copy', '--from', 'files', '--to', 'postgres'], dir, {});
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('No PostgreSQL database is configured to copy from or to. Fix: set LEGION_DATABASE_URL');
    const same = await legion(['store', 'copy', '--from', 'files', '--to', 'files'], dir, {});
    expect(same.stderr).toContain('--from and --to are both "files"');
    const unknown = await legion(['store', 'copy', '--from', 'sqlite', '--to', 'files'], dir, {});
    expect(unknown.stderr).toContain('--from "sqlite" is no store. Fix: --from files or --from postgres.');
  });
});
