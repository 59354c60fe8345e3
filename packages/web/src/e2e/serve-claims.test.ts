import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM, useModelAndBrowser, screenshot } from './browser.test-support.js';
import { legion, mockedWorkspace, startServe, useModel, type Serve } from './serve-process.test-support.js';

// Issue 33, claims: the browser shows a refused write as a notice, lists the files running turns
// claimed, and releases one. The built `legion serve`, agents on the real SDKs against aimock, in Chromium.
const TEST_MS = 90_000;

describe.skipIf(CHROMIUM === null)('legion serve: claims', () => {
  const { mock, browser } = useModelAndBrowser();
  let workspace: { dir: string; env: NodeJS.ProcessEnv };
  let serve: Serve;
  let page: Page;

  /** Writes without asking: the conflict, not an approval, is what this is about. */
  function writesFreely(participant: string): void {
    const file = join(workspace.dir, '.legion/collective/participants', `${participant}.json`);
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), policies: { file_write: 'auto' } }, null, 2));
  }

  beforeEach(async () => {
    workspace = mockedWorkspace(mock.url);
    useModel(workspace.dir, 'reviewer', { provider: 'anthropic', model: 'claude-rev', baseURL: mock.url });
    writesFreely('developer');
    writesFreely('reviewer');
    serve = await startServe(workspace.dir, workspace.env);
    page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
  });
  afterEach(async () => {
    await page?.close();
    await serve?.stop();
    rmSync(workspace.dir, { recursive: true, force: true });
  });

  it(
    'a refused write is a notice; the claims view lists the holder and releases the file',
    async () => {
      const message = 'Write the notes, both of you';
      mock.on(
        { model: 'claude-test', userMessage: message, hasToolResult: false },
        {
          toolCalls: [
            { id: 'toolu_dev', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write NOTES.md' }) },
            {
              id: 'toolu_rev',
              name: 'communicate',
              arguments: JSON.stringify({ to: 'reviewer', message: 'Put the changelog in NOTES.md' }),
            },
          ],
        },
      );
      mock.on({ model: 'claude-test', userMessage: message, hasToolResult: true }, { content: 'Both answered.' });
      mock.on(
        { model: 'gpt-test', userMessage: 'Write NOTES.md', hasToolResult: false },
        {
          toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'NOTES.md', content: 'by developer\n' }) }],
        },
      );
      // The developer's turn goes on (a slow reply) and holds NOTES.md meanwhile.
      mock.on(
        { model: 'gpt-test', userMessage: 'Write NOTES.md', hasToolResult: true },
        { content: 'Checking NOTES.md line by line. '.repeat(60) },
        { latency: 40, chunkSize: 8 },
      );
      mock.on(
        { model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: false },
        {
          toolCalls: [
            { id: 'toolu_rev_write', name: 'file_write', arguments: JSON.stringify({ path: 'NOTES.md', content: 'by reviewer\n' }) },
          ],
        },
        { latency: 300, chunkSize: 8 },
      );
      mock.on({ model: 'claude-rev', userMessage: 'Put the changelog in NOTES.md', hasToolResult: true }, { content: 'It was taken.' });

      await page.goto(serve.url);
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      await page.getByTestId('composer-text').fill(message);
      await page.getByTestId('composer-send').click();

      // The human sees the refused write, naming the holder and what it is doing.
      const notice = page.getByTestId('claim-conflict');
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        "⚠ Reviewer's file_write on NOTES.md did not happen: Developer is changing it (Write NOTES.md)",
      );
      await screenshot(page, 'claims-conflict');

      // The claims view lists the file its holder still claims, and releases it.
      await page.getByTestId('nav-claims').click();
      const row = page.getByTestId('claim-NOTES.md');
      await row.waitFor();
      expect(await row.locator('td').first().textContent()).toBe('Developer');
      expect(await page.getByTestId('nav-claims-count').textContent()).toBe('1');
      await screenshot(page, 'claims-view');
      await page.getByTestId('claim-release-NOTES.md').click();
      await page.getByTestId('claims-empty').waitFor();
      const listed = await legion(['claims', '--json'], workspace.dir, workspace.env);
      expect(JSON.parse(listed.stdout)).toEqual({ claims: [] });
      expect(readFileSync(join(workspace.dir, 'NOTES.md'), 'utf8')).toBe('by developer\n');
    },
    TEST_MS,
  );
});
