import { chromium, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Debian's chromium (playwright cannot download its own here) showing code-server's workbench on `folder`. */
export async function openWorkbench(url: string, folder: string): Promise<{ browser: Browser; page: Page; workbench: Workbench }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const workbench = new Workbench(page);
  await workbench.open(url, folder);
  return { browser, page, workbench };
}

/** After a failed test: a screenshot at `shot` and the end of code-server's output, for whoever reads the CI log. */
export async function reportFailure(page: Page | undefined, shot: string, serverOutput: string | undefined): Promise<void> {
  await page?.screenshot({ path: shot }).catch(() => undefined);
  console.error(`screenshot: ${shot}\ncode-server output:\n${serverOutput?.slice(-4000)}`);
}

/** Drives code-server's workbench the way a user does: palette, chat, buttons, input boxes. */
export class Workbench {
  constructor(readonly page: Page) {}

  async open(url: string, folder: string): Promise<void> {
    await this.page.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
    await this.page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  }

  /** Runs a command by its title through the palette (F1), retrying when the palette did not open. */
  async command(title: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    for (let attempt = 0; ; attempt++) {
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('F1');
      try {
        await input.waitFor({ state: 'visible', timeout: 5_000 });
        break;
      } catch (error) {
        if (attempt >= 3) throw error;
      }
    }
    await input.fill(`>${title}`);
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 20_000 });
    await this.page.keyboard.press('Enter');
  }

  /** Types `text` into the open input box (showInputBox) and accepts it. */
  async inputBox(text: string): Promise<void> {
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(text);
    await this.page.keyboard.press('Enter');
  }

  async openChat(): Promise<void> {
    await this.command('Chat: Focus on Chat View');
    await this.chatInput().waitFor({ timeout: 30_000 });
  }

  chatInput(): Locator {
    return this.page.locator('.interactive-input-part .interactive-input-editor').first();
  }

  /**
   * Sends `text` as typed (the input is cleared first: a sticky participant stays in it after a request),
   * once the previous request has ended: VS Code 1.100 ignores Enter while one is in progress, and a
   * response can show its last words a while before its request ends (a provider's last pause, the
   * turn's own ending). Fails at once, saying so, when the message did not become a request.
   */
  async chat(text: string): Promise<void> {
    await this.idle();
    await this.chatInput().click();
    await this.page.keyboard.press('Control+A');
    await this.page.keyboard.press('Backspace');
    await this.page.keyboard.type(text);
    await this.page.keyboard.press('Enter');
    // Sent, the input holds at most the sticky participant (Monaco shows spaces as no-break spaces).
    const typed = async () => ((await this.chatInput().textContent()) ?? '').replace(/\u00a0/g, ' ').includes(text);
    await expect.poll(typed, { timeout: 30_000, message: `the chat did not send "${text}"` }).toBe(false);
  }

  /** Waits until no chat request is in progress: no response still loading, no Cancel in the input's toolbar. */
  async idle(): Promise<void> {
    await this.page.locator('.interactive-item-container.chat-response-loading').first().waitFor({ state: 'detached', timeout: 60_000 });
    await this.page.locator('.interactive-input-part .codicon-stop-circle').first().waitFor({ state: 'hidden', timeout: 60_000 });
  }

  /** The last response in the chat view. */
  lastResponse(): Locator {
    return this.page.locator('.interactive-item-container.interactive-response').last();
  }

  /**
   * From now on records each text the last chat response shows from `marker` on, to tell a reply
   * that streamed in from one shown whole at the end (`replyStates`).
   */
  async recordReplyStates(marker: string): Promise<void> {
    await this.page.evaluate(`
      window.replyStates = [];
      window.replyObserver?.disconnect();
      window.replyObserver = new MutationObserver(() => {
        const responses = document.querySelectorAll('.interactive-item-container.interactive-response');
        const text = responses[responses.length - 1]?.textContent ?? '';
        const at = text.indexOf(${JSON.stringify(marker)});
        if (at >= 0 && text.slice(at) !== window.replyStates[window.replyStates.length - 1]) window.replyStates.push(text.slice(at));
      });
      window.replyObserver.observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
  }

  /** What `recordReplyStates` saw, in order. */
  async replyStates(): Promise<string[]> {
    return (await this.page.evaluate('window.replyStates')) as string[];
  }

  webview(): FrameLocator {
    return this.page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
  }
}
