import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { CHROMIUM, useModelAndBrowser, RECORD_STREAM, screenshot } from './browser.test-support.js';
import { legion, mockedWorkspace, startServe, type Serve } from './serve-process.test-support.js';

// Live state in the browser against a real `legion serve` (the built binary), its agents on the
// real SDKs against aimock: what each participant shows it does, after every way a turn can end.
const TEST_MS = 120_000;
const PARTICIPANTS = ['user', 'coordinator', 'developer', 'reviewer'];

describe.skipIf(CHROMIUM === null)('legion serve shows what each participant does now', () => {
  const { mock, browser } = useModelAndBrowser();
  let workspace: { dir: string; env: NodeJS.ProcessEnv };
  let serve: Serve;
  let page: Page;

  beforeEach(async () => {
    workspace = mockedWorkspace(mock.url);
    serve = await startServe(workspace.dir, workspace.env);
    page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
    await page.addInitScript(RECORD_STREAM);
  });
  afterEach(async () => {
    await page?.close();
    await serve?.stop();
    rmSync(workspace.dir, { recursive: true, force: true });
  });

  async function openApp(url = serve.url): Promise<void> {
    await page.goto(url);
    await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
  }

  async function send(text: string): Promise<void> {
    await page.getByTestId('nav-work').click();
    await page.getByTestId('composer-text').fill(text);
    await page.getByTestId('composer-send').click();
  }

  /** Each participant's state as the roster shows it. */
  async function states(): Promise<Record<string, string | null>> {
    await page.getByTestId('nav-collective').click();
    await page.getByTestId('participant-state-user').waitFor();
    const shown: Record<string, string | null> = {};
    for (const id of PARTICIPANTS) shown[id] = await page.getByTestId(`participant-state-${id}`).getAttribute('data-state');
    return shown;
  }

  const allIdle = Object.fromEntries(PARTICIPANTS.map((id) => [id, 'idle']));

  /** The coordinator delegates; the developer asks the user "Which port?", which waits in the Questions tab. */
  async function askTheUser(): Promise<void> {
    scriptDelegation(
      'Ask me first',
      { toolCalls: [{ id: 'call_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which port?' }) }] },
      'unused',
      'unused',
    );
    await openApp();
    await send('Ask me first');
    await page.getByTestId('nav-questions-count').waitFor();
  }

  /** coordinator (Anthropic) delegates to developer (OpenAI), who does `developerStep` first. */
  function scriptDelegation(
    userMessage: string,
    developerStep: object | null,
    developerReply: string | object,
    coordinatorReply: string,
    stream = { latency: 0, chunkSize: 20 },
  ): void {
    const delegation = { to: 'developer', message: 'Create src/health.ts exporting health()' };
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: coordinatorReply });
    if (developerStep) mock.on({ model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: false }, developerStep);
    mock.on(
      { model: 'gpt-test', userMessage: 'Create src/health.ts', ...(developerStep ? { hasToolResult: true } : {}) },
      typeof developerReply === 'string' ? { content: developerReply } : developerReply,
      stream,
    );
  }

  /** Opens the delegate's conversation once it runs, and waits until its reply streams. */
  async function watchDelegate(): Promise<void> {
    await page.getByTestId('graph-edge-coordinator__developer').and(page.locator('[data-active="true"]')).waitFor();
    await page.getByTestId('graph-edge-coordinator__developer').click();
    await page.waitForFunction(() => ((globalThis as unknown as { streamed: string[] }).streamed.at(-1) ?? '').length > 10);
  }

  const messageText = (text: string) =>
    page.locator('[data-testid="messages"] > li:not([data-testid="streaming"])').getByText(text, { exact: true });

  it(
    'a delegation: the coordinator waits for its delegate while it runs; everyone is idle after it succeeded',
    async () => {
      const reply = Array.from({ length: 200 }, (_, index) => `word${index}`).join(' ');
      scriptDelegation('Add a health check', null, reply, 'The developer is done.', { latency: 40, chunkSize: 4 });
      await openApp();
      await send('Add a health check');
      await watchDelegate();
      const during = await states();
      expect(during.coordinator).toBe('delegate');
      expect(await page.getByTestId('participant-state-coordinator').textContent()).toBe('waiting for Developer');
      expect(during.developer).toBe('thinking');
      await screenshot(page, 'live-roster-delegating');

      // The current turn's tree: the delegate's turn under its caller's, each with its state; a node opens its conversation.
      await page.getByTestId('nav-work').click();
      const root = page.getByTestId('turn-node-user__coordinator');
      const delegated = page.getByTestId('turn-node-coordinator__developer');
      expect(await root.getAttribute('data-depth')).toBe('0');
      expect(await delegated.getAttribute('data-depth')).toBe('1');
      expect(await root.getAttribute('data-state')).toBe('delegate');
      expect(await delegated.getAttribute('data-state')).toBe('thinking');
      // The graph's nodes say the same.
      expect(await page.getByTestId('graph-node-coordinator').getAttribute('data-state')).toBe('delegate');
      expect(await page.getByTestId('graph-node-coordinator').locator('title').textContent()).toBe('Coordinator: waiting for Developer');
      await screenshot(page, 'live-turn-tree');
      // A lit edge's dashes march, stepped by a timer: no CSS animation runs, which would make
      // Chromium render every frame of every tab while a turn runs (bench/serve-events.mjs).
      const dashOffset = () =>
        page
          .getByTestId('graph-edge-coordinator__developer')
          .locator('.edge-line')
          .evaluate(
            (line) =>
              (globalThis as unknown as { getComputedStyle(element: unknown): { strokeDashoffset: string } }).getComputedStyle(line)
                .strokeDashoffset,
          );
      const firstOffset = await dashOffset();
      await expect.poll(dashOffset).not.toBe(firstOffset);
      expect(
        await page.evaluate(() => (globalThis as unknown as { document: { getAnimations(): unknown[] } }).document.getAnimations().length),
      ).toBe(0);
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'live-turn-tree-dark');
      await page.emulateMedia({ colorScheme: 'light' });
      await root.getByRole('button').click();
      await page.getByTestId('view-conversation').and(page.locator('[data-conversation="user__coordinator"]')).waitFor();
      await delegated.getByRole('button').click();
      await page.getByTestId('view-conversation').and(page.locator('[data-conversation="coordinator__developer"]')).waitFor();

      await page.getByTestId('conversation-open-user__coordinator').click();
      await messageText('The developer is done.').waitFor();
      await expect.poll(states).toEqual(allIdle);
      await page.getByTestId('nav-work').click();
      await expect.poll(() => delegated.getAttribute('data-state')).toBe('succeeded');
      expect(await root.getAttribute('data-state')).toBe('succeeded');
      expect(await delegated.getByTestId('turn-node-usage').textContent()).toMatch(/^[1-9]\d* tokens/);
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'live-turn-tree-390');
      await page.getByTestId('nav-collective').click();
      await screenshot(page, 'live-roster-390');
    },
    TEST_MS,
  );

  it(
    'a provider failure: the failed participant is idle again, and says its last turn failed',
    async () => {
      scriptDelegation(
        'Break it',
        null,
        { error: { message: 'bad request', type: 'invalid_request_error' }, status: 400 },
        'The developer failed.',
      );
      await openApp();
      await send('Break it');
      await messageText('The developer failed.').waitFor();
      await expect.poll(states).toEqual(allIdle);
      expect(await page.getByTestId('participant-state-developer').getAttribute('data-outcome')).toBe('failed');
      await screenshot(page, 'live-roster-failed');
    },
    TEST_MS,
  );

  it(
    'Stop while a delegate streams: every participant is idle again',
    async () => {
      const reply = Array.from({ length: 300 }, (_, index) => `word${index}`).join(' ');
      scriptDelegation('Talk for a long time', null, reply, 'unused', { latency: 50, chunkSize: 4 });
      await openApp();
      await send('Talk for a long time');
      await watchDelegate();
      expect(await states()).toEqual({ user: 'idle', coordinator: 'delegate', developer: 'thinking', reviewer: 'idle' });
      await page.getByTestId('nav-work').click();
      await page.getByTestId('conversation-open-user__coordinator').click();
      await page.getByTestId('cancel-turn').click();
      await page.getByTestId('cancel-turn').waitFor({ state: 'detached' });
      await expect.poll(states).toEqual(allIdle);
    },
    TEST_MS,
  );

  it(
    'reloaded mid-delegation: the running turns are lit and nested, and Stop in the delegate’s conversation stops the chain',
    async () => {
      const reply = Array.from({ length: 400 }, (_, index) => `word${index}`).join(' ');
      scriptDelegation('Talk for a long time', null, reply, 'unused', { latency: 50, chunkSize: 4 });
      await openApp();
      await send('Talk for a long time');
      await watchDelegate();
      // The page forgets every turn:start it heard; what it knows again comes from the server.
      await page.reload();
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      await page.getByTestId('graph-edge-coordinator__developer').and(page.locator('[data-active="true"]')).waitFor();
      expect(await page.getByTestId('graph-edge-user__coordinator').getAttribute('data-active')).toBe('true');
      expect(await page.getByTestId('turn-node-user__coordinator').getAttribute('data-depth')).toBe('0');
      expect(await page.getByTestId('turn-node-coordinator__developer').getAttribute('data-depth')).toBe('1');
      expect(await page.getByTestId('view-conversation').getAttribute('data-conversation')).toBe('coordinator__developer');
      await screenshot(page, 'live-reloaded-mid-delegation');
      // The delegate's own conversation: the server stops the chain it is part of.
      await page.getByTestId('cancel-turn').click();
      await page.getByTestId('cancel-turn').waitFor({ state: 'detached' });
      expect(await page.getByTestId('graph-edge-coordinator__developer').getAttribute('data-active')).toBe('false');
      await expect.poll(states).toEqual(allIdle);
      expect(await page.getByTestId('notice-cancel').count()).toBe(0);
    },
    TEST_MS,
  );

  it(
    'reloaded while an agent asks you: the asker’s turn is in the tree, waiting for you, and Stop in the question stops it',
    async () => {
      await askTheUser();
      await page.reload();
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      await page.getByTestId('nav-work').click();
      const node = (id: string) => page.getByTestId(`turn-node-${id}`);
      await node('developer__user').waitFor();
      expect(await node('user__coordinator').getAttribute('data-depth')).toBe('0');
      expect(await node('coordinator__developer').getAttribute('data-depth')).toBe('1');
      expect(await node('developer__user').getAttribute('data-depth')).toBe('2');
      // The asker's row says what it does: it waits for you, not "running".
      expect(await node('coordinator__developer').getAttribute('data-state')).toBe('user');
      await screenshot(page, 'live-reloaded-question');
      await page.getByTestId('conversation-open-developer__user').click();
      await page.getByTestId('cancel-turn').click();
      await expect.poll(states).toEqual(allIdle);
    },
    TEST_MS,
  );

  it(
    'Stop while an agent asks you a question: the user too is idle again',
    async () => {
      await askTheUser();
      const asked = await states();
      expect(asked.developer).toBe('user');
      expect(asked.user).toBe('user');
      expect(asked.coordinator).toBe('delegate');
      // Who asks is named (the server's askedBy), as everywhere else.
      expect(await page.getByTestId('participant-state-user').textContent()).toBe('you are asked: question from Developer');
      await screenshot(page, 'live-roster-question');
      await page.getByTestId('nav-work').click();
      await page.getByTestId('conversation-open-user__coordinator').click();
      await page.getByTestId('cancel-turn').click();
      await page.getByTestId('cancel-turn').waitFor({ state: 'detached' });
      await expect.poll(states).toEqual(allIdle);
    },
    TEST_MS,
  );

  it(
    'an approval: waiting for you while it is pending, still after the server restarts, idle once decided',
    async () => {
      const write = { id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'a.txt', content: 'alpha\n' }) };
      scriptDelegation('Write a file', { toolCalls: [write] }, 'Wrote a.txt.', 'Done: a.txt.');
      await openApp();
      await send('Write a file');
      await page.getByTestId('nav-approvals-count').waitFor();
      const pending = { user: 'user', coordinator: 'delegate', developer: 'approval', reviewer: 'idle' };
      await expect.poll(states).toEqual(pending);

      // The server dies (a crash, a kill: a graceful stop would cancel the turn and withdraw the request),
      // and a new one starts on the same workspace: the pause is read from the records.
      const exited = new Promise((resolve) => serve.child.once('exit', resolve));
      serve.child.kill('SIGKILL');
      await exited;
      serve = await startServe(workspace.dir, workspace.env);
      await openApp();
      await expect.poll(states).toEqual(pending);
      await screenshot(page, 'live-roster-approval-after-restart');
      // The tree, too, is read back: the developer's turn waits for you under the coordinator's.
      await page.getByTestId('nav-work').click();
      const delegated = page.getByTestId('turn-node-coordinator__developer');
      expect(await delegated.getAttribute('data-state')).toBe('approval');
      expect(await delegated.getAttribute('data-depth')).toBe('1');
      expect(await page.getByTestId('turn-node-user__coordinator').getAttribute('data-state')).toBe('delegate');
      await screenshot(page, 'live-turn-tree-after-restart');

      await page.getByTestId('nav-approvals').click();
      const id = (await page.getByTestId('approvals-pending').locator('> li').first().getAttribute('data-testid'))!.replace(
        /^approval-/,
        '',
      );
      await page.getByTestId(`approve-${id}`).click();
      await page.getByTestId('approvals-empty').waitFor();
      await page.getByTestId('nav-work').click();
      await page.getByTestId('conversation-open-user__coordinator').click();
      await messageText('Done: a.txt.').waitFor();
      await expect.poll(states).toEqual(allIdle);
    },
    TEST_MS,
  );

  it(
    "a terminal's run that pauses on an approval: its chain waits for you, in the roster and in the tree",
    async () => {
      const write = { id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'a.txt', content: 'alpha\\n' }) };
      scriptDelegation('Write a file', { toolCalls: [write] }, 'Wrote a.txt.', 'Done: a.txt.');
      mock.on({ model: 'claude-test', userMessage: 'Hello' }, { content: 'Hello to you.' });
      await openApp();
      await send('Hello');
      await messageText('Hello to you.').waitFor();
      const sessionId = (await page.getByTestId('current-session').textContent())!;
      // Another process (no surface that answers: it pauses, and exits) on the session the page shows.
      const run = await legion(['run', '--session', sessionId, 'Write a file'], workspace.dir, workspace.env);
      expect(run.stderr).toContain('Paused: waiting for approval');
      await expect.poll(states).toEqual({ user: 'user', coordinator: 'delegate', developer: 'approval', reviewer: 'idle' });
      await page.getByTestId('nav-work').click();
      const delegated = page.getByTestId('turn-node-coordinator__developer');
      await expect.poll(() => delegated.getAttribute('data-state')).toBe('approval');
      expect(await delegated.getAttribute('data-depth')).toBe('1');
      await screenshot(page, 'live-turn-tree-terminal-run');
    },
    TEST_MS,
  );

  it(
    'autoscroll follows the streamed text until you scroll up; "jump to latest" follows it again',
    async () => {
      const reply = Array.from({ length: 700 }, (_, index) => `word${index}`).join(' ');
      mock.on({ model: 'claude-test', userMessage: 'Write a lot' }, { content: reply }, { latency: 25, chunkSize: 8 });
      mock.on({ model: 'claude-test', userMessage: 'And one more thing' }, { content: 'Noted, one more thing.' });
      await openApp();
      await send('Write a lot');
      const list = page.getByTestId('messages');
      const gap = () => list.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
      const overflow = () => list.evaluate((element) => element.scrollHeight - element.clientHeight);
      const streamedLength = () => page.evaluate(() => ((globalThis as unknown as { streamed: string[] }).streamed.at(-1) ?? '').length);
      await expect.poll(overflow, { timeout: 20_000 }).toBeGreaterThan(200);
      // Followed: the newest line stays in view as text streams in.
      for (let check = 0; check < 3; check++) {
        const before = await streamedLength();
        await expect.poll(streamedLength).toBeGreaterThan(before);
        expect(await gap()).toBeLessThanOrEqual(32);
      }
      await screenshot(page, 'live-autoscroll-following');

      // Scrolled up to read back: left there while text comes, and offered the way back.
      await list.evaluate((element) => element.scrollTo({ top: 0 }));
      await page.getByTestId('jump-to-latest').waitFor();
      const before = await streamedLength();
      await expect.poll(streamedLength).toBeGreaterThan(before + 20);
      expect(await list.evaluate((element) => element.scrollTop)).toBe(0);
      await screenshot(page, 'live-autoscroll-jump');

      await page.getByTestId('jump-to-latest').click();
      await page.getByTestId('jump-to-latest').waitFor({ state: 'detached' });
      const after = await streamedLength();
      await expect.poll(streamedLength).toBeGreaterThan(after);
      expect(await gap()).toBeLessThanOrEqual(32);
      await messageText(reply).waitFor({ timeout: 40_000 });
      expect(await gap()).toBeLessThanOrEqual(32);

      // Scrolled up, then sending: what you sent and its answer are followed again.
      await list.evaluate((element) => element.scrollTo({ top: 0 }));
      await page.getByTestId('jump-to-latest').waitFor();
      await send('And one more thing');
      await messageText('Noted, one more thing.').waitFor();
      await expect.poll(gap).toBeLessThanOrEqual(32);
      expect(await page.getByTestId('jump-to-latest').count()).toBe(0);
    },
    TEST_MS,
  );
});
