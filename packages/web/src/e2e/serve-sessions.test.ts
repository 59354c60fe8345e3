import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM, useModelAndBrowser, screenshot } from './browser.test-support.js';
import { mockedWorkspace, startServe, type Serve } from './serve-process.test-support.js';

// The Sessions view of a workspace that keeps more sessions than one page (the server sends 50 at a time).
const TEST_MS = 90_000;
const SESSIONS = 230;

describe.skipIf(CHROMIUM === null)('the sessions of a large workspace in the browser', () => {
  const { mock, browser } = useModelAndBrowser();
  let workspace: { dir: string; env: NodeJS.ProcessEnv };
  let serve: Serve;
  let page: Page;

  beforeAll(async () => {
    workspace = mockedWorkspace(mock.url);
    // Sessions in the engine's format, written before the server starts (as months of use leave them).
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    for (let index = 0; index < SESSIONS; index++) {
      const at = new Date(base + index * 60_000).toISOString();
      const id = `${at.slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${index.toString(16).padStart(6, '0')}`;
      const dir = join(workspace.dir, '.legion', 'sessions', id);
      mkdirSync(join(dir, 'conversations'), { recursive: true });
      writeFileSync(join(dir, 'session.json'), JSON.stringify({ version: 1, id, createdAt: at, lastActiveAt: at, title: `Task ${index}` }));
    }
    serve = await startServe(workspace.dir, workspace.env);
    page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
  });
  afterAll(async () => {
    await page?.close();
    await serve?.stop();
    if (workspace) rmSync(workspace.dir, { recursive: true, force: true });
  });

  it(
    'lists a page of sessions, loads the rest with More, each once and newest first',
    async () => {
      await page.goto(serve.url);
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      await page.getByTestId('nav-sessions').click();
      const rows = page.getByTestId('session-list').locator('> li');
      await expect.poll(() => rows.count()).toBe(50);
      // Pressed, or scrolled into view: either loads the next page.
      await page.getByTestId('sessions-more').click();
      await expect.poll(() => rows.count()).toBe(100);
      for (let scrolls = 0; scrolls < 10 && (await page.getByTestId('sessions-more').count()) > 0; scrolls++) {
        const before = await rows.count();
        await page.getByTestId('sessions-more').scrollIntoViewIfNeeded();
        await expect.poll(() => rows.count()).toBeGreaterThan(before);
      }
      expect(await rows.count()).toBe(SESSIONS);
      await expect.poll(() => page.getByTestId('sessions-more').count()).toBe(0);
      const titles = await page.getByTestId('session-list').locator('> li button').allTextContents();
      expect(titles).toEqual(Array.from({ length: SESSIONS }, (_, index) => `Task ${SESSIONS - 1 - index}`));
      await screenshot(page, 'sessions-paged');
    },
    TEST_MS,
  );
});
