import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM, useModelAndBrowser, RECORD_STREAM, screenshot } from './browser.test-support.js';
import { mockedWorkspace, startServe, type Serve } from './serve-process.test-support.js';

// What the browser app shows of model-derived text and of tool results, against a real
// `legion serve` whose agents use the real SDKs against aimock, in a real headless Chromium.
const TEST_MS = 90_000;
const RLO = '\u202e';
/** The page's window, in a function evaluated there (the e2e build has no DOM types). */
type BrowserWindow = { getComputedStyle(element: unknown): { lineHeight: string; borderTopStyle: string } };

describe.skipIf(CHROMIUM === null)('legion serve in a browser: text and tool results', () => {
  const { mock, browser } = useModelAndBrowser();
  let workspace: { dir: string; env: NodeJS.ProcessEnv };
  let serve: Serve;
  let page: Page;

  beforeEach(async () => {
    workspace = mockedWorkspace(mock.url);
  });
  afterEach(async () => {
    await page?.close();
    await serve?.stop();
    rmSync(workspace.dir, { recursive: true, force: true });
  });

  async function openApp(): Promise<void> {
    serve = await startServe(workspace.dir, workspace.env);
    page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
    await page.addInitScript(RECORD_STREAM);
    await page.goto(serve.url);
    await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
  }

  async function send(text: string): Promise<void> {
    await page.getByTestId('nav-work').click();
    await page.getByTestId('composer-text').fill(text);
    await page.getByTestId('composer-send').click();
  }

  const shown = () => page.locator('[data-testid="messages"] > li:not([data-testid="streaming"])');
  const messageText = (text: string) => shown().getByText(text, { exact: true });

  it(
    'shows bidi and invisible characters of replies, streams, descriptions and questions as <U+…>, newlines kept',
    async () => {
      // A model-set description (the config is the model's to edit through file tools).
      const file = join(workspace.dir, '.legion/collective/participants/coordinator.json');
      writeFileSync(
        file,
        JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), description: `Pays invoice_${RLO}fdp.exe` }, null, 2),
      );
      const reply = `Here is invoice_${RLO}fdp.exe\u200b ok\nsecond line`;
      mock.on({ model: 'claude-test', userMessage: 'Send the invoice' }, { content: reply }, { latency: 20, chunkSize: 6 });
      mock.on(
        { model: 'claude-test', userMessage: 'Ask me something', hasToolResult: false },
        {
          toolCalls: [
            { id: 'toolu_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: `Open invoice_${RLO}fdp.exe?` }) },
          ],
        },
      );
      mock.on({ model: 'claude-test', userMessage: 'Ask me something', hasToolResult: true }, { content: 'Thanks.' });
      await openApp();

      await send('Send the invoice');
      const visible = 'Here is invoice_<U+202E>fdp.exe<U+200B> ok\nsecond line';
      await messageText(visible).waitFor();
      const text = shown().getByTestId('message-text').filter({ hasText: 'Here is invoice_' });
      // The newline is layout: two lines, not a control made visible.
      expect(
        await text.evaluate(
          (element) =>
            element.getClientRects()[0]!.height >
            1.5 * parseFloat((globalThis as unknown as BrowserWindow).getComputedStyle(element).lineHeight),
        ),
      ).toBe(true);
      const streamed = await page.evaluate(() => (globalThis as unknown as { streamed: string[] }).streamed);
      expect(streamed.length).toBeGreaterThan(1);
      for (const step of streamed)
        expect(visible.startsWith(step), `streamed text is a prefix of the visible reply: ${JSON.stringify(step)}`).toBe(true);
      await screenshot(page, 'text-bidi');

      await page.getByTestId('nav-collective').click();
      expect(await page.getByTestId('participant-description-coordinator').textContent()).toBe('Pays invoice_<U+202E>fdp.exe');

      await send('Ask me something');
      await page.getByTestId('nav-questions-count').waitFor();
      await page.getByTestId('nav-questions').click();
      const card = page.getByTestId('view-questions').locator('li.card');
      await card.waitFor();
      // The chain already ends with the asker: it is not named twice.
      expect(await card.locator('.meta').textContent()).toMatch(/^Coordinator coordinator asks \(You → Coordinator, /);
      expect(await card.locator('.question-text').textContent()).toBe('Open invoice_<U+202E>fdp.exe?');
      await screenshot(page, 'text-question');
      const body = await page.locator('body').textContent();
      expect(body).not.toContain(RLO);
    },
    TEST_MS,
  );

  it(
    'matches each result to its call in the message after it, even when a call id repeats, and draws no empty card',
    async () => {
      writeFileSync(join(workspace.dir, 'notes.txt'), 'hello notes\n');
      // The same call id in two turns (some OpenAI-compatible servers reuse ids): a success, then an error.
      const read = (path: string) => ({ toolCalls: [{ id: 'toolu_same', name: 'file_read', arguments: JSON.stringify({ path }) }] });
      mock.on({ model: 'claude-test', userMessage: 'Read the notes', hasToolResult: false }, read('notes.txt'));
      mock.on({ model: 'claude-test', userMessage: 'Read the notes', hasToolResult: true }, { content: 'The notes say hello.' });
      mock.on({ model: 'claude-test', userMessage: 'Read the missing file', hasToolResult: false }, read('missing.txt'));
      mock.on(
        { model: 'claude-test', userMessage: 'Read the missing file', hasToolResult: true },
        { content: 'That file does not exist.' },
      );
      await openApp();
      await send('Read the notes');
      await messageText('The notes say hello.').waitFor();
      await send('Read the missing file');
      await messageText('That file does not exist.').waitFor();

      const calls = page.getByTestId('tool-call-toolu_same');
      await expect.poll(() => calls.count()).toBe(2);
      expect(await calls.evaluateAll((elements) => elements.map((element) => element.getAttribute('data-status')))).toEqual([
        'done',
        'error',
      ]);
      // Every card shows something: text, a call, an ending, or a result without its call.
      const empty = await shown().evaluateAll(
        (items) =>
          items.filter(
            (item) =>
              item.querySelector('[data-testid="message-text"], [data-testid^="tool-call-"], [data-testid="orphan-result"]') === null &&
              item.getAttribute('data-testid') !== 'turn-ending',
          ).length,
      );
      expect(empty).toBe(0);
      expect(await shown().count()).toBe(6);
      await screenshot(page, 'tool-results');
    },
    TEST_MS,
  );

  it(
    'shows a failed and a cancelled turn as dashed ending cards',
    async () => {
      mock.on(
        { model: 'claude-test', userMessage: 'Break please' },
        { error: { message: 'bad request from the mock', type: 'invalid_request_error' }, status: 400 },
      );
      const long = Array.from({ length: 200 }, (_, index) => `word${index}`).join(' ');
      mock.on({ model: 'claude-test', userMessage: 'Talk for a long time' }, { content: long }, { latency: 50, chunkSize: 4 });
      await openApp();
      await send('Break please');
      const endings = page.getByTestId('turn-ending');
      await endings.first().waitFor();
      expect(await endings.first().textContent()).toMatch(/Failed \(provider_bad_request\): .*bad request from the mock/);
      await send('Talk for a long time');
      await page.waitForFunction(() => ((globalThis as unknown as { streamed: string[] }).streamed.at(-1) ?? '').length > 10);
      await page.getByTestId('cancel-turn').click();
      await expect.poll(() => endings.count()).toBe(2);
      expect(await endings.nth(1).textContent()).toContain('Cancelled: the turn was stopped before it finished its reply.');
      expect(
        await endings.nth(1).evaluate((element) => (globalThis as unknown as BrowserWindow).getComputedStyle(element).borderTopStyle),
      ).toBe('dashed');
      await screenshot(page, 'turn-endings');
    },
    TEST_MS,
  );
});
