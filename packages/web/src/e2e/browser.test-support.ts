import { chromium, type Browser, type Page } from 'playwright-core';
import { LLMock } from '@copilotkit/aimock';
import { join } from 'node:path';
import { findChromium, screenshotDir } from './serve-process.test-support.js';

export const CHROMIUM = findChromium();
if (CHROMIUM === null) console.warn('browser tests SKIPPED: no Chromium found (install Debian’s `chromium`, or set CHROMIUM_PATH)');

/** A headless Chromium (the system's; root needs --no-sandbox, which CI containers are). */
export function launchChromium(): Promise<Browser> {
  if (CHROMIUM === null) throw new Error('no Chromium: install Debian’s `chromium` or set CHROMIUM_PATH');
  return chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}

let shots: string | undefined;
/** Saves a screenshot of the page as NAME.png and prints where. */
export async function screenshot(page: Page, name: string): Promise<void> {
  shots ??= screenshotDir();
  const path = join(shots, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

/**
 * Records every text the streaming reply shows, from the first paint of each page load (an init
 * script, so a reload is watched from its start too), into `window.streamed`.
 */
export const RECORD_STREAM = `
  window.streamed = [];
  new MutationObserver(() => {
    const element = document.querySelector('[data-testid="streaming-text"]');
    const text = element ? element.textContent : null;
    if (text !== null && text !== window.streamed[window.streamed.length - 1]) window.streamed.push(text);
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

/**
 * A browser suite's model server (aimock, on 127.0.0.1) and Chromium: started before the suite's
 * own `beforeAll`, stopped after its `afterAll`; each test's fixtures, match counts and recorded
 * requests are cleared after it. `mock` exists at once (its `url` once started); `browser()` once
 * the suite has started.
 */
export function useModelAndBrowser(): { mock: LLMock; browser(): Browser } {
  const mock = new LLMock({ port: 0, host: '127.0.0.1' });
  let browser: Browser | undefined;
  beforeAll(async () => {
    await mock.start();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await mock.stop();
  });
  afterEach(() => {
    mock.clearFixtures();
    mock.resetMatchCounts();
    mock.clearRequests();
  });
  return {
    mock,
    browser: () => {
      if (!browser) throw new Error('The browser starts in beforeAll: use it from a hook or a test.');
      return browser;
    },
  };
}
