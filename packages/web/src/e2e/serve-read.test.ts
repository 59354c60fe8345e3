import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM, useModelAndBrowser, screenshot } from './browser.test-support.js';
import { mockedWorkspace, startServe, type Serve } from './serve-process.test-support.js';

// Readable: diffs against the file as it is, markdown rendered (and inert), names and colours,
// a page that fits a 390 px phone, dark mode. The built `legion serve` on a temp workspace whose
// agents use the real SDKs against aimock, in a real headless Chromium.
const TEST_MS = 90_000;
/** What the page's own scripts see (the e2e tsconfig has no DOM types). */
type PageGlobals = {
  document: { documentElement: { scrollWidth: number; dataset: Record<string, string | undefined> }; body: unknown };
  getComputedStyle(element: unknown): { backgroundColor: string };
};
const VIEWS = ['work', 'collective', 'questions', 'approvals', 'cost', 'sessions'] as const;

/** A reply with each kind of markdown, and markup a model might slip in that must stay text. */
const MARKDOWN_REPLY = [
  '## Plan for the health check',
  '',
  'Steps, **in order**:',
  '',
  '1. Add `src/health.ts`',
  '2. Wire it into the server',
  '',
  '```ts',
  'export function health(): string {',
  "  return 'ok'; // always",
  '}',
  '```',
  '',
  '| File | Lines |',
  '| --- | --- |',
  '| src/health.ts | 3 |',
  '',
  'See [the docs](https://example.com/docs) or [this](javascript:window.pwned=1).',
  '',
  '<script>window.pwned = 2</script>',
  '',
  'An image: <img src=x onerror="window.pwned=3"> inline.',
].join('\n');

describe.skipIf(CHROMIUM === null)('legion serve in a browser: readable', () => {
  const { mock, browser } = useModelAndBrowser();
  let workspace: { dir: string; env: NodeJS.ProcessEnv };
  let serve: Serve;
  let page: Page;

  beforeEach(async () => {
    workspace = mockedWorkspace(mock.url);
    serve = await startServe(workspace.dir, workspace.env);
  });
  afterEach(async () => {
    await page?.close();
    await serve?.stop();
    rmSync(workspace.dir, { recursive: true, force: true });
  });

  async function openApp(width = 1280, colorScheme: 'light' | 'dark' = 'light'): Promise<void> {
    page = await browser().newPage({ viewport: { width, height: 860 }, colorScheme });
    await page.goto(serve.url);
    await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
  }

  async function send(text: string): Promise<void> {
    await page.getByTestId('nav-work').click();
    await page.getByTestId('composer-text').fill(text);
    await page.getByTestId('composer-send').click();
  }

  const shown = () => page.locator('[data-testid="messages"] > li:not([data-testid="streaming"])');

  /** The coordinator's display name, as its config gives it; the server restarted to read it. */
  async function nameCoordinator(name: string): Promise<void> {
    const file = join(workspace.dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), name }, null, 2));
    await serve.stop();
    serve = await startServe(workspace.dir, workspace.env);
  }

  it(
    "an overwrite's diff shows the lines it removes, against the file as it is, and later in the history; a path outside is not read",
    async () => {
      writeFileSync(join(workspace.dir, 'notes.md'), ['# Notes', 'keep this', 'old line one', 'old line two', 'keep that', ''].join('\n'));
      const calls = [
        {
          id: 'toolu_write',
          name: 'file_write',
          arguments: JSON.stringify({ path: 'notes.md', content: ['# Notes', 'keep this', 'new line', 'keep that', ''].join('\n') }),
        },
        { id: 'toolu_out', name: 'file_write', arguments: JSON.stringify({ path: '../outside.md', content: 'x\n' }) },
      ];
      mock.on({ model: 'claude-test', userMessage: 'Rewrite the notes', hasToolResult: false }, { toolCalls: calls });
      mock.on({ model: 'claude-test', userMessage: 'Rewrite the notes', hasToolResult: true }, { content: 'Rewritten.' });
      await openApp();
      await send('Rewrite the notes');
      await page.getByTestId('nav-approvals-count').and(page.locator(':text("2")')).waitFor();
      await page.getByTestId('nav-approvals').click();
      const cards = page.getByTestId('approvals-pending').locator('> li');
      await expect.poll(() => cards.count()).toBe(2);
      const notes = cards.filter({ hasText: 'notes.md' });
      const diff = await notes.getByTestId('approval-diff').textContent();
      expect(diff).toContain('-old line one');
      expect(diff).toContain('-old line two');
      expect(diff).toContain('+new line');
      expect(diff).toContain(' keep this');
      expect(diff).not.toContain('@@ -0,0');
      expect(await notes.getByTestId('file-change-kind').textContent()).toContain('replaces the file');
      const outside = cards.filter({ hasText: 'outside.md' });
      expect(await outside.getByTestId('file-change-not-shown').textContent()).toMatch(
        /^Current content not shown: .*outside the workspace/,
      );
      await screenshot(page, 'read-approval-overwrite');

      // Keys as in the terminal's menu: 1 approves once, 4 rejects.
      await notes.focus();
      await page.keyboard.press('1');
      await outside.focus();
      await page.keyboard.press('4');
      await expect.poll(() => page.getByTestId('approvals-history').locator('li').count()).toBe(2);
      expect(await page.getByTestId('approvals-history').locator('[data-status="approved"]').count()).toBe(1);
      await expect.poll(() => readFileSync(join(workspace.dir, 'notes.md'), 'utf8')).toContain('new line');

      // In the history, once the file has moved on and the page is loaded afresh (messages read from the log, not
      // live events): the folded call opens on the diff it made, the removed lines with it.
      await page.getByTestId('nav-work').click();
      await shown().filter({ hasText: 'Rewritten.' }).waitFor();
      writeFileSync(join(workspace.dir, 'notes.md'), 'moved on\n');
      await page.reload();
      await page.getByTestId('tool-toggle-toolu_write').click();
      const kept = await page.getByTestId('tool-diff-toolu_write').textContent();
      expect(kept).toContain('-old line one');
      expect(kept).toContain('-old line two');
      expect(kept).toContain('+new line');
      expect(kept).not.toContain('moved on');
      expect(await page.getByTestId('tool-change-kind-toolu_write').textContent()).toContain('replaced');
      await page.getByTestId('tool-toggle-toolu_write').scrollIntoViewIfNeeded();
      await screenshot(page, 'read-history-overwrite');
    },
    TEST_MS,
  );

  it(
    "renders a reply's markdown (heading, list, code, table, link), keeps markup inert, names and colours the author",
    async () => {
      await nameCoordinator('Cora Lead');
      mock.on({ model: 'claude-test', userMessage: 'Plan the health check' }, { content: MARKDOWN_REPLY });
      await openApp();
      // Enter sends.
      await page.getByTestId('composer-text').fill('Plan the health check');
      await page.getByTestId('composer-text').press('Enter');
      const reply = shown().filter({ hasText: 'Plan for the health check' }).getByTestId('message-text');
      await reply.waitFor();
      expect(await reply.getByRole('heading').textContent()).toBe('Plan for the health check');
      expect(await reply.locator('strong').textContent()).toBe('in order');
      expect(await reply.locator('ol > li').allTextContents()).toEqual(['Add src/health.ts', 'Wire it into the server']);
      expect(await reply.locator('td').allTextContents()).toEqual(['src/health.ts', '3']);
      // Highlighted (the highlighter loads with the first block that names a language).
      await reply.locator('pre.code .hljs-keyword').first().waitFor();
      expect(await reply.locator('pre.code').textContent()).toContain("return 'ok'; // always");
      const links = reply.locator('a');
      expect(await links.count()).toBe(1);
      expect(await links.evaluate((link) => [link.getAttribute('href'), link.getAttribute('rel'), link.getAttribute('target')])).toEqual([
        'https://example.com/docs',
        'noopener noreferrer',
        '_blank',
      ]);
      expect(await reply.locator('.unsafe-link').textContent()).toBe('this');
      // What was markup is text: no element made of it, nothing of it ran.
      expect(await page.locator('[data-testid="messages"] script, [data-testid="messages"] img').count()).toBe(0);
      const text = await reply.textContent();
      expect(text).toContain('<script>window.pwned = 2</script>');
      expect(text).toContain('<img src=x onerror="window.pwned=3">');
      expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
      // The author by name, id beside it, in a colour of its own.
      const who = shown().filter({ hasText: 'Plan for the health check' }).locator('.meta .who');
      expect(await who.textContent()).toBe('Cora Lead coordinator');
      expect(await page.getByTestId('view-conversation').locator('h2').textContent()).toContain('Cora Lead');
      await screenshot(page, 'read-markdown');
      await page.getByTestId('theme-toggle').click();
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.theme)).toBe('dark');
      await screenshot(page, 'read-markdown-dark');
    },
    TEST_MS,
  );

  for (const colorScheme of ['light', 'dark'] as const)
    it(
      `fits a 390 px phone on every view, with no horizontal scroll (${colorScheme})`,
      async () => {
        await nameCoordinator('Cora Lead');
        const long = `A long path: ${'packages/web/src/views/'.repeat(6)}Conversation.tsx and a long word ${'x'.repeat(120)}.`;
        mock.on({ model: 'claude-test', userMessage: 'Fill the screen' }, { content: `${long}\n\n${MARKDOWN_REPLY}` });
        const wide = {
          id: 'toolu_wide',
          name: 'file_write',
          arguments: JSON.stringify({ path: 'wide.txt', content: `${'y'.repeat(300)}\n` }),
        };
        mock.on({ model: 'claude-test', userMessage: 'Write a wide file', hasToolResult: false }, { toolCalls: [wide] });
        mock.on({ model: 'claude-test', userMessage: 'Write a wide file', hasToolResult: true }, { content: 'Written.' });
        await openApp(390, colorScheme);
        await send('Fill the screen');
        await shown().filter({ hasText: 'Plan for the health check' }).waitFor();
        await page.locator('pre.code .hljs-keyword').first().waitFor();
        await send('Write a wide file');
        await page.getByTestId('nav-approvals-count').waitFor();
        // The header says the session's title (core takes it from the first message).
        await expect.poll(() => page.getByTestId('session-switcher').locator('option:checked').textContent()).toBe('Fill the screen');
        for (const view of VIEWS) {
          await page.getByTestId(`nav-${view}`).click();
          await page.getByTestId(view === 'work' ? 'view-conversation' : `view-${view}`).waitFor();
          if (view === 'approvals') await page.getByTestId('approval-diff').waitFor();
          const width = await page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth);
          expect(width, `#/${view} is ${width} px wide`).toBeLessThanOrEqual(390);
          await screenshot(page, `read-390-${colorScheme}-${view}`);
        }
      },
      TEST_MS,
    );

  it(
    'dark mode follows the system, and a choice made with the toggle is remembered',
    async () => {
      await openApp(1280, 'dark');
      const background = () =>
        page.evaluate(() => {
          const page = globalThis as unknown as PageGlobals;
          return page.getComputedStyle(page.document.body).backgroundColor;
        });
      expect(await background()).toBe('rgb(18, 19, 23)');
      await page.getByTestId('theme-toggle').click(); // system → dark
      await page.getByTestId('theme-toggle').click(); // dark → light
      expect(await background()).toBe('rgb(247, 247, 248)');
      await page.reload();
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.theme)).toBe('light');
      expect(await background()).toBe('rgb(247, 247, 248)');
      await page.getByTestId('theme-toggle').click(); // light → system (dark here)
      expect(await background()).toBe('rgb(18, 19, 23)');
      await screenshot(page, 'read-dark');
    },
    TEST_MS,
  );
});
