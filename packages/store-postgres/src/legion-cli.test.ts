// The `legion` binary on a PostgreSQL store: chosen by LEGION_DATABASE_URL, nothing under .legion/sessions/.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createTestDatabase, postgresSkipped, sql } from './test-support/test-database.js';

const LEGION = fileURLToPath(new URL('../../cli/dist/legion.js', import.meta.url));

function legion(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [LEGION, ...args],
      { cwd, env: { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(cwd, '.config'), ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(postgresSkipped() !== undefined)('legion on PostgreSQL', () => {
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'legion-pg-cli-'));
    expect((await legion(['init'], dir, {})).code).toBe(0);
    writeFileSync(
      join(dir, '.legion', 'collective', 'participants', 'echo.json'),
      JSON.stringify({ id: 'echo', type: 'mock', name: 'echo', responses: [], fallback: 'pong' }),
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps sessions in the database that LEGION_DATABASE_URL names, where another process finds them', async () => {
    const url = await createTestDatabase('cli');
    const run = await legion(['run', '--to', 'echo', '--output', 'json', 'ping'], dir, { LEGION_DATABASE_URL: url });
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as { sessionId: string; reply: string; status: string };
    expect(report).toMatchObject({ status: 'success', reply: 'pong' });
    // Nothing of the session went to the workspace's files.
    expect(
      existsSync(join(dir, '.legion', 'sessions'))
        ? readdirSync(join(dir, '.legion', 'sessions')).filter((name) => name !== '.gitignore')
        : [],
    ).toEqual([]);
    const rows = await sql(
      url,
      "SELECT body->>'role' AS role FROM legion.entries WHERE session_id = $1 AND log_id = 'user__echo' ORDER BY seq",
      [report.sessionId],
    );
    expect(rows.rows.map((row: { role: string }) => row.role)).toEqual(['user', 'assistant']);
    const listed = await legion(['sessions', '--json'], dir, { LEGION_DATABASE_URL: url });
    expect((JSON.parse(listed.stdout) as { sessions: Array<{ id: string; conversations: number }> }).sessions).toEqual([
      expect.objectContaining({ id: report.sessionId, conversations: 1 }),
    ]);
    // The workspace's files alone know nothing of it.
    expect((JSON.parse((await legion(['sessions', '--json'], dir, {})).stdout) as { sessions: unknown[] }).sessions).toEqual([]);
  });

  it('legion mcp serve lists and reads the sessions in the database, not the files', async () => {
    const url = await createTestDatabase('cli');
    const run = await legion(['run', '--to', 'echo', '--output', 'json', 'ping'], dir, { LEGION_DATABASE_URL: url });
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    // An MCP client sees only the sessions its own asks started, unless it is granted to be the human
    // (mcpServe.caller.id: the user's id): it is here, to list and read the human's `legion run`.
    const configFile = join(dir, '.legion', 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({ ...(JSON.parse(readFileSync(configFile, 'utf8')) as object), mcpServe: { caller: { id: 'user' } } }, null, 2),
    );
    const client = new Client({ name: 'legion-pg-test', version: '1.0.0' });
    const env = {
      ...(process.env as Record<string, string>),
      NO_COLOR: '1',
      XDG_CONFIG_HOME: join(dir, '.config'),
      LEGION_DATABASE_URL: url,
    };
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [LEGION, 'mcp', 'serve'], cwd: dir, env, stderr: 'pipe' }),
    );
    try {
      const listed = await client.callTool({ name: 'list_sessions', arguments: {} });
      expect(listed.isError).not.toBe(true);
      expect(JSON.stringify(listed.structuredContent ?? listed.content)).toContain(sessionId);
      const read = await client.callTool({ name: 'read_conversation', arguments: { session: sessionId, conversationId: 'user__echo' } });
      expect(JSON.stringify(read.structuredContent ?? read.content)).toContain('pong');
    } finally {
      await client.close();
    }
  });

  it('shows the migrations on a dry run without applying them, then applies them', async () => {
    const url = await createTestDatabase('cli');
    const dry = await legion(['store', 'migrate', '--dry-run'], dir, { LEGION_DATABASE_URL: url });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('The schema is at version 0; these migrations would bring it to 3 (nothing was changed)');
    expect(dry.stdout).toContain('CREATE TABLE legion.entries');
    expect((await sql(url, "SELECT to_regclass('legion.entries') IS NULL AS absent")).rows).toEqual([{ absent: true }]);
    const applied = await legion(['store', 'migrate'], dir, { LEGION_DATABASE_URL: url });
    expect(applied.stdout).toContain('Migrated the schema from version 0 to 3');
    expect((await legion(['store', 'migrate'], dir, { LEGION_DATABASE_URL: url })).stdout).toContain('nothing to do');
  });

  it('refuses a database password in the workspace config, and says what to do when the database cannot be reached', async () => {
    writeFileSync(
      join(dir, '.legion', 'config.json'),
      JSON.stringify({ version: 1, storage: { kind: 'postgres', url: 'postgres://legion:hunter2@127.0.0.1:1/legion' } }),
    );
    const refused = await legion(['run', '--to', 'echo', 'ping'], dir, {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/storage\.url.*password is not allowed in the workspace config/);
    expect(refused.stderr).not.toContain('hunter2');
    writeFileSync(
      join(dir, '.legion', 'config.json'),
      JSON.stringify({ version: 1, storage: { kind: 'postgres', url: 'postgres://legion@127.0.0.1:1/legion' } }),
    );
    const unreachable = await legion(['run', '--to', 'echo', 'ping'], dir, {});
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /Could not use the PostgreSQL database postgres:\/\/legion@127\.0\.0\.1:1\/legion \(from the "storage.url" config\).*Fix: start the database/,
    );
  });
});
