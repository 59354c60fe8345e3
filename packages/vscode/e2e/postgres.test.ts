import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { initWorkspace } from '@legion-collective/core';
import type { Browser, Page } from 'playwright-core';
import { findPostgres, startPostgresServer, type PostgresServer } from '../../store-postgres/src/test-support/postgres-server.js';
import { codeServerBin, startCodeServer, type CodeServer } from './code-server.js';
import { useModel } from './legion-workspace.js';
import { openWorkbench, reportFailure, type Workbench } from './workbench.js';

// A workspace whose sessions are in PostgreSQL (LEGION_DATABASE_URL, as the legion command reads
// it): the extension opens it through store-postgres, bundled in the .vsix, and the chat's session
// is the one a terminal's `legion log` then reads from the database.
const BIN = codeServerBin();
const POSTGRES = findPostgres();
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const LEGION = fileURLToPath(new URL('../../cli/dist/legion.js', import.meta.url));

describe.skipIf(BIN === null || !POSTGRES.ok)('Legion in VS Code on a PostgreSQL workspace', () => {
  let database: PostgresServer;
  let url: string;
  let mock: LLMock;
  let folder: string;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let workbench: Workbench;

  beforeAll(async () => {
    if (!POSTGRES.ok) return;
    database = await startPostgresServer(POSTGRES);
    url = await database.createDatabase('vscode');
    mock = new LLMock({ port: 0, host: '127.0.0.1' });
    await mock.start();
    folder = mkdtempSync(join(tmpdir(), 'legion-vscode-pg-'));
    execFileSync('git', ['init', '-q'], { cwd: folder });
    initWorkspace(folder);
    useModel(folder, 'coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    server = await startCodeServer({
      bin: BIN!,
      vsix: [join(DIST, 'legion.vsix'), join(DIST, 'e2e-chat-host.vsix')],
      folder,
      env: { ...process.env, ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: mock.url, LEGION_DATABASE_URL: url },
    });
    ({ browser, page, workbench } = await openWorkbench(server.url, folder));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await mock?.stop();
    await database?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await reportFailure(page, join(DIST, `e2e-failure-postgres-${context.task.name.replace(/\W+/g, '-')}.png`), server?.output());
    }
  });

  it('@legion works on it; the session is in the database, not in the workspace files', async () => {
    mock.on({ model: 'claude-test', userMessage: 'Hello from the editor' }, { content: 'Kept in PostgreSQL.' });
    // The Legion view lists the collective once the extension has connected to the database.
    await page.locator('.activitybar a.action-label[aria-label^="Legion"]').click();
    await page
      .locator('.pane', { hasText: 'Collective' })
      .locator('.monaco-list-row', { hasText: 'coordinator' })
      .waitFor({ timeout: 60_000 });
    await workbench.openChat();
    await workbench.chat('@legion Hello from the editor');
    await workbench.lastResponse().getByText('Kept in PostgreSQL.').waitFor({ timeout: 60_000 });
    const sessions = join(folder, '.legion', 'sessions');
    expect(
      existsSync(sessions) ? readdirSync(sessions, { recursive: true }).filter((name) => String(name).endsWith('.jsonl')) : [],
    ).toEqual([]);
    // The terminal's legion reads the same session from the database.
    const log = execFileSync(process.execPath, [LEGION, 'log'], {
      cwd: folder,
      encoding: 'utf8',
      env: { ...process.env, LEGION_DATABASE_URL: url },
    });
    expect(log).toContain('Hello from the editor');
    expect(log).toContain('Kept in PostgreSQL.');
  }, 120_000);
});
