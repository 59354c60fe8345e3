import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { initWorkspace } from '@legion-collective/core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { codeServerBin, startCodeServer, type CodeServer } from './code-server.js';
import { Workbench } from './workbench.js';

// The extension in a real VS Code (code-server), driven through its UI in Debian's Chromium; the
// agents' models are aimock speaking the Anthropic and OpenAI wire protocols on 127.0.0.1.
// Run by `npm run test:vscode` (scripts/test-vscode.mjs), which installs code-server and packages the .vsix files.
const BIN = codeServerBin();
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const TEST_MS = 120_000;

function useModel(dir: string, participant: string, model: Record<string, unknown>): void {
  const file = join(dir, '.legion/collective/participants', `${participant}.json`);
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model }, null, 2));
}

describe.skipIf(BIN === null)('Legion in VS Code (code-server)', () => {
  let mock: LLMock;
  let folder: string;
  let server: CodeServer;
  let browser: Browser;
  let page: Page;
  let workbench: Workbench;

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: '127.0.0.1' });
    await mock.start();
    folder = mkdtempSync(join(tmpdir(), 'legion-vscode-'));
    execFileSync('git', ['init', '-q'], { cwd: folder });
    initWorkspace(folder);
    useModel(folder, 'coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    useModel(folder, 'developer', { provider: 'openai', model: 'gpt-test', baseURL: `${mock.url}/v1` });
    server = await startCodeServer({
      bin: BIN!,
      vsix: [join(DIST, 'legion.vsix'), join(DIST, 'e2e-chat-host.vsix'), join(DIST, 'e2e-tool-client.vsix')],
      folder,
      env: { ...process.env, ANTHROPIC_API_KEY: 'test', OPENAI_API_KEY: 'test', ANTHROPIC_BASE_URL: mock.url, OPENAI_BASE_URL: `${mock.url}/v1` },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    workbench = new Workbench(page);
    await workbench.open(server.url, folder);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await mock?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      const shot = join(DIST, `e2e-failure-${context.task.name.replace(/\W+/g, '-')}.png`);
      await page?.screenshot({ path: shot }).catch(() => undefined);
      console.error(`screenshot: ${shot}\ncode-server output:\n${server?.output().slice(-4000)}`);
    }
    mock.clearFixtures();
    mock.resetMatchCounts();
  });

  /** coordinator (Anthropic) delegates to developer (OpenAI), who does `developerStep` first. */
  function scriptDelegation(userMessage: string, developerTask: string, developerStep: object | null, developerReply: string, coordinatorReply: string): void {
    mock.on({ model: 'claude-test', userMessage, hasToolResult: false }, { toolCalls: [{ id: `toolu_${userMessage.length}`, name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: developerTask }) }] });
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: coordinatorReply }, { latency: 20, chunkSize: 6 });
    if (developerStep) mock.on({ model: 'gpt-test', userMessage: developerTask, hasToolResult: false }, developerStep);
    mock.on({ model: 'gpt-test', userMessage: developerTask, ...(developerStep ? { hasToolResult: true } : {}) }, { content: developerReply });
  }

  it('activates on a Legion workspace: the Legion view lists the collective', async () => {
    await page.locator('.activitybar a.action-label[aria-label^="Legion"]').click();
    const collective = page.locator('.pane', { hasText: 'Collective' });
    await collective.locator('.monaco-list-row', { hasText: 'coordinator' }).waitFor({ timeout: 60_000 });
    expect(await collective.locator('.monaco-list-row', { hasText: 'developer' }).textContent()).toContain('openai / gpt-test');
  }, TEST_MS);

  it('@legion streams the entry agent reply and shows the delegation', async () => {
    scriptDelegation('Add a health check', 'Create src/health.ts', null, 'I created src/health.ts.', 'The developer added src/health.ts for you.');
    await workbench.openChat();
    await workbench.chat('@legion Add a health check');
    const response = workbench.lastResponse();
    await response.getByText('The developer added src/health.ts for you.').waitFor({ timeout: 60_000 });
    expect(await response.textContent()).toContain('coordinator → developer: delegating');
  }, TEST_MS);
});
