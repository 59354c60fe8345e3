import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { APPROVAL_CHOICES } from '@legion-collective/core';
import type { Page } from 'playwright-core';
import { CHROMIUM, useModelAndBrowser, RECORD_STREAM, screenshot } from './browser.test-support.js';
import { legion, mockedWorkspace, startServe, type Serve } from './serve-process.test-support.js';

// The browser app against a real `legion serve` (the built binary) on a temp workspace whose
// agents use the real SDKs against aimock, driven in a real headless Chromium.
const TEST_MS = 90_000;

describe.skipIf(CHROMIUM === null)('legion serve in a browser', () => {
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

  async function openApp(): Promise<void> {
    await page.goto(serve.url);
    await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
  }

  async function send(text: string, to?: string): Promise<void> {
    await page.getByTestId('nav-work').click();
    if (to) await page.getByTestId('composer-to').selectOption(to);
    await page.getByTestId('composer-text').fill(text);
    await page.getByTestId('composer-send').click();
  }

  const edge = (conversationId: string) => page.getByTestId(`graph-edge-${conversationId}`);
  /** A message appended to the conversation shown (not the reply still streaming). */
  const messageText = (text: string) =>
    page.locator('[data-testid="messages"] > li:not([data-testid="streaming"])').getByText(text, { exact: true });

  /** coordinator (Anthropic) delegates USER_MESSAGE to developer (OpenAI), who does `developerStep` first. */
  function scriptDelegation(
    userMessage: string,
    developerStep: object | null,
    developerReply: string,
    coordinatorReply: string,
    stream: { latency: number; chunkSize: number } = { latency: 0, chunkSize: 20 },
  ): void {
    const delegation = { to: 'developer', message: 'Create src/health.ts exporting health()' };
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: coordinatorReply }, stream);
    if (developerStep) mock.on({ model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: false }, developerStep);
    mock.on(
      { model: 'gpt-test', userMessage: 'Create src/health.ts', ...(developerStep ? { hasToolResult: true } : {}) },
      { content: developerReply },
      stream,
    );
  }

  it(
    'sends a message, streams the replies, lights the delegation edge, links the delegation, updates the cost',
    async () => {
      const developerReply = 'I created src/health.ts with a health() function that returns "ok". '.repeat(4).trim();
      scriptDelegation('Add a health check', null, developerReply, 'The developer added src/health.ts for you.', {
        latency: 30,
        chunkSize: 8,
      });
      await openApp();
      await page.getByTestId('nav-collective').click();
      await page.getByTestId('participant-developer').waitFor();
      expect(await page.getByTestId('participant-developer').textContent()).toContain('openai / gpt-test');
      await screenshot(page, 'collective');
      await page.getByTestId('nav-cost').click();
      await page.getByTestId('nav-work').click();

      await send('Add a health check');

      // The chain lights up while the delegate streams: user → coordinator → developer.
      await edge('coordinator__developer').and(page.locator('[data-active="true"]')).waitFor();
      // Only the cost view shows the usage: the rest of the turn's usage reports do not make the app read it here.
      const usageReads: string[] = [];
      page.on('request', (request) => void (new URL(request.url()).pathname.endsWith('/usage') && usageReads.push(request.url())));
      expect(await edge('user__coordinator').getAttribute('data-active')).toBe('true');
      await screenshot(page, 'conversation-graph');
      // Neither test model is one Legion knows: the browser says so once per model, with the fix, until dismissed.
      const guessed = page.getByTestId('notice-window:anthropic/claude-test');
      await guessed.waitFor();
      expect(await guessed.textContent()).toContain('"models": { "anthropic/claude-test": { "window": <tokens> } }');
      await guessed.getByRole('button', { name: 'Dismiss this notice' }).click();
      await guessed.waitFor({ state: 'detached' });
      await edge('coordinator__developer').click();
      await page.getByTestId('view-conversation').and(page.locator('[data-conversation="coordinator__developer"]')).waitFor();
      await messageText(developerReply).waitFor();
      const streamed = await page.evaluate(() => (globalThis as unknown as { streamed: string[] }).streamed);
      expect(streamed.length, 'the reply was shown while it streamed, in several steps').toBeGreaterThan(2);
      for (const text of streamed)
        expect(
          developerReply.startsWith(text) || 'The developer added src/health.ts for you.'.startsWith(text),
          `streamed text is a prefix of a reply: ${text}`,
        ).toBe(true);

      // The delegation is one line in the coordinator's conversation, linked to the one it opened.
      await page.getByTestId('conversation-open-user__coordinator').click();
      await messageText('The developer added src/health.ts for you.').waitFor();
      await expect.poll(() => edge('user__coordinator').getAttribute('data-active')).toBe('false');
      await page.getByTestId('tool-toggle-toolu_delegate').click();
      expect(await page.getByTestId('tool-detail-toolu_delegate').textContent()).toContain(developerReply);
      await page.getByTestId('delegation-link-toolu_delegate').click();
      await page.getByTestId('view-conversation').and(page.locator('[data-conversation="coordinator__developer"]')).waitFor();
      // Not the user's conversation: the box says where a message would go instead.
      expect(await page.getByTestId('composer-elsewhere').textContent()).toBe(
        'You are reading Coordinator → Developer, which is not yours to write in: what you send goes to Coordinator.',
      );
      await screenshot(page, 'conversation');
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'conversation-dark');
      await page.emulateMedia({ colorScheme: 'light' });

      expect(usageReads).toEqual([]);
      await page.getByTestId('nav-cost').click();
      await expect.poll(() => page.getByTestId('cost-total-calls').textContent()).toBe('3');
      expect(await page.getByTestId('cost-coordinator').textContent()).toBeTruthy();
      await screenshot(page, 'cost');
    },
    TEST_MS,
  );

  it(
    'the message box follows the conversation on screen: opening one of yours writes to it',
    async () => {
      mock.on({ model: 'gpt-test', userMessage: 'Hello developer' }, { content: 'Hello from the developer.' });
      mock.on({ model: 'claude-test', userMessage: 'Hello coordinator' }, { content: 'Hello from the coordinator.' });
      await openApp();
      await send('Hello developer', 'developer');
      await messageText('Hello from the developer.').waitFor();
      // Written to the developer, the box stays with the developer: the coordinator is chosen again.
      expect(await page.getByTestId('composer-to').inputValue()).toBe('developer');
      await page.getByTestId('composer-to').selectOption('');
      await send('Hello coordinator');
      await messageText('Hello from the coordinator.').waitFor();
      // Back in the developer's conversation: the box writes to the developer again, unasked.
      await page.getByTestId('conversation-open-user__developer').click();
      await expect.poll(() => page.getByTestId('composer-to').inputValue()).toBe('developer');
      expect(await page.getByTestId('composer-elsewhere').count()).toBe(0);
      await page.getByTestId('conversation-open-user__coordinator').click();
      await expect.poll(() => page.getByTestId('composer-to').inputValue()).toBe('');
      expect(await page.getByTestId('composer-conversation').inputValue()).toBe('');
    },
    TEST_MS,
  );

  it(
    'an approval shows all of what will run, a CR and a bidi override made visible, nothing cut',
    async () => {
      const command = `touch PWN #\u202e ${'x'.repeat(480)} END`;
      const calls = [
        { id: 'call_shell', name: 'shell_run', arguments: JSON.stringify({ command }) },
        { id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'c.txt', content: 'rm -rf ~ #\r  echo harmless\n' }) },
      ];
      scriptDelegation('Spoof the card', { toolCalls: calls }, 'Both were refused.', 'Nothing ran.');
      await openApp();
      await send('Spoof the card');
      await page.getByTestId('nav-approvals-count').and(page.locator(':text("2")')).waitFor();
      await page.getByTestId('nav-approvals').click();
      const shell = page.locator('[data-tool="shell_run"]');
      const write = page.locator('[data-tool="file_write"]');
      const input = shell.getByTestId('approval-input');
      expect(await input.textContent()).toContain(`touch PWN #<U+202E> ${'x'.repeat(480)} END`);
      // Wrapped, never cut or scrolled out of sight: the whole input is in the box as shown.
      expect(
        await input.evaluate((element) => element.scrollHeight <= element.clientHeight && element.scrollWidth <= element.clientWidth),
      ).toBe(true);
      expect(await write.getByTestId('approval-diff').textContent()).toContain('+rm -rf ~ #␍  echo harmless');
      for (const card of [shell, write]) {
        const id = (await card.getAttribute('data-testid'))!.replace(/^approval-/, '');
        await page.getByTestId(`reject-${id}`).click();
      }
      await expect.poll(() => page.getByTestId('approvals-history').locator('[data-status="rejected"]').count()).toBe(2);
    },
    TEST_MS,
  );

  it(
    'shows two parallel approvals with their diffs and chain; approves one for the session, rejects the other with a reason',
    async () => {
      const calls = [
        { id: 'call_a', name: 'file_write', arguments: JSON.stringify({ path: 'a.txt', content: 'alpha\n' }) },
        { id: 'call_b', name: 'file_write', arguments: JSON.stringify({ path: 'b.txt', content: 'beta\n' }) },
      ];
      scriptDelegation('Write two files', { toolCalls: calls }, 'Wrote a.txt; b.txt was refused.', 'Done: a.txt only.');
      await openApp();
      await send('Write two files');

      await page.getByTestId('nav-approvals-count').and(page.locator(':text("2")')).waitFor();
      await page.getByTestId('nav-approvals').click();
      const cards = page.getByTestId('approvals-pending').locator('> li');
      await expect.poll(() => cards.count()).toBe(2);
      const ids = await cards.evaluateAll((elements) =>
        elements.map((element) => element.getAttribute('data-testid')!.replace(/^approval-/, '')),
      );
      const texts = await cards.allTextContents();
      const aIndex = texts.findIndex((text) => text.includes('a.txt'));
      expect(aIndex).toBeGreaterThanOrEqual(0);
      const [aId, bId] = [ids[aIndex]!, ids[1 - aIndex]!];
      expect(await page.getByTestId(`approval-${aId}`).getByTestId('approval-diff').textContent()).toContain('+alpha');
      expect(await page.getByTestId(`approval-${aId}`).getByTestId('approval-chain').textContent()).toBe('You → Coordinator → Developer');
      await screenshot(page, 'approvals');

      // Core's four answers, in its words and order (the terminal's menu 1–4), each saying what it does.
      const buttons = page.getByTestId(`approval-${aId}`).locator('button');
      expect(await buttons.allTextContents()).toEqual(APPROVAL_CHOICES.map((words) => words.label));
      expect(await buttons.allTextContents()).toEqual(['Approve once', 'Approve for this session', 'Approve always', 'Reject']);
      expect(await buttons.evaluateAll((elements) => elements.map((element) => element.getAttribute('title')))).toEqual(
        APPROVAL_CHOICES.map((words) => words.detail),
      );
      await page.getByTestId(`approve-session-${aId}`).click();
      await page.getByTestId(`approval-staged-${aId}`).waitFor();
      await page.getByTestId(`reject-reason-${bId}`).fill('b.txt is not needed');
      await page.getByTestId(`reject-${bId}`).click();

      await page.getByTestId(`approval-decided-${aId}`).and(page.locator('[data-status="approved"]')).waitFor();
      await page.getByTestId(`approval-decided-${bId}`).and(page.locator('[data-status="rejected"]')).waitFor();
      expect(await page.getByTestId(`approval-decided-${bId}`).textContent()).toContain('b.txt is not needed');
      await page.getByTestId('approvals-empty').waitFor();
      await screenshot(page, 'approvals-history');
      await page.getByTestId('nav-work').click();
      await page.getByTestId('conversation-open-user__coordinator').click();
      await messageText('Done: a.txt only.').waitFor();
      expect(readFileSync(join(workspace.dir, 'a.txt'), 'utf8')).toBe('alpha\n');
      expect(existsSync(join(workspace.dir, 'b.txt'))).toBe(false);
      // "For this session": recorded as the session grant, given in the browser.
      const sessions = join(workspace.dir, '.legion', 'sessions');
      const decisions = readdirSync(sessions)
        .flatMap((id) =>
          existsSync(join(sessions, id, 'approvals.jsonl'))
            ? readFileSync(join(sessions, id, 'approvals.jsonl'), 'utf8')
                .trim()
                .split('\n')
            : [],
        )
        .map((line) => JSON.parse(line) as { kind: string; requestId?: string; always?: boolean; medium?: string });
      expect(decisions.find((record) => record.kind === 'decision' && record.requestId === aId)).toMatchObject({
        always: true,
        medium: 'web',
      });
    },
    TEST_MS,
  );

  it(
    'answers a question an agent asks the user',
    async () => {
      scriptDelegation(
        'Add a health check',
        {
          toolCalls: [
            { id: 'call_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which port should it listen on?' }) },
          ],
        },
        'It listens on port 8080.',
        'Done, on port 8080.',
      );
      await openApp();
      await send('Add a health check');

      await page.getByTestId('nav-questions-count').waitFor();
      await page.getByTestId('nav-questions').click();
      const card = page.getByTestId('view-questions').locator('li', { hasText: 'Which port should it listen on?' });
      await card.waitFor();
      const questionId = (await card.getAttribute('data-testid'))!.replace(/^question-/, '');
      await screenshot(page, 'questions');
      await page.getByTestId(`question-answer-${questionId}`).fill('8080, please');
      await page.getByTestId(`question-send-${questionId}`).click();
      await page.getByTestId('questions-empty').waitFor();

      await page.getByTestId('nav-work').click();
      await page.getByTestId('conversation-open-user__coordinator').click();
      await messageText('Done, on port 8080.').waitFor();
      const developerRequests = mock.getRequests().filter((entry) => JSON.stringify(entry.body).includes('gpt-test'));
      expect(JSON.stringify(developerRequests.at(-1)?.body)).toContain('8080, please');
    },
    TEST_MS,
  );

  it(
    'resumes the stream after a reload mid-turn, without a gap or a duplicate',
    async () => {
      const reply = Array.from({ length: 40 }, (_, index) => `word${index}`).join(' ') + '.';
      mock.on({ model: 'claude-test', userMessage: 'Tell me a long story' }, { content: reply }, { latency: 40, chunkSize: 4 });
      await openApp();
      await send('Tell me a long story');
      await page.waitForFunction(() => ((globalThis as unknown as { streamed: string[] }).streamed.at(-1) ?? '').length > 30);

      await page.reload();
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      await messageText(reply).waitFor();
      const streamed = await page.evaluate(() => (globalThis as unknown as { streamed: string[] }).streamed);
      // The reloaded page showed what had streamed already, then the rest: always a prefix of the reply.
      expect(streamed.length).toBeGreaterThan(0);
      expect(streamed[0]!.length, `the reload kept what had streamed (${streamed[0]})`).toBeGreaterThan(30);
      for (const text of streamed)
        expect(reply.startsWith(text), `streamed text is a prefix of the reply (no gap, no duplicate): ${text}`).toBe(true);
      expect(await page.getByTestId('streaming').count()).toBe(0);
      expect(await messageText(reply).count()).toBe(1);
    },
    TEST_MS,
  );

  it(
    'a tab opened mid-reply shows the reply from its start, and only the deltas of the conversation it shows come to it',
    async () => {
      const reply = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ') + '.';
      mock.on({ model: 'claude-test', userMessage: 'Tell me a long story' }, { content: reply }, { latency: 40, chunkSize: 4 });
      await openApp();
      await send('Tell me a long story');
      await page.waitForFunction(() => ((globalThis as unknown as { streamed: string[] }).streamed.at(-1) ?? '').length > 30);

      // A second tab, opened now: no stored stream of its own (sessionStorage is a tab's).
      const second = await browser().newPage({ viewport: { width: 1280, height: 860 } });
      await second.addInitScript(RECORD_STREAM);
      const requests: string[] = [];
      second.on('request', (request) => void requests.push(new URL(request.url()).search));
      await second.goto(serve.url);
      await second.getByTestId('view-conversation').and(second.locator('[data-conversation="user__coordinator"]')).waitFor();
      await second.locator('[data-testid="messages"] > li:not([data-testid="streaming"])').getByText(reply, { exact: true }).waitFor();
      const streamed = await second.evaluate(() => (globalThis as unknown as { streamed: string[] }).streamed);
      expect(streamed.length).toBeGreaterThan(0);
      expect(streamed[0]!.startsWith('word0 word1'), `the tab showed the reply from its start: ${streamed[0]}`).toBe(true);
      for (const text of streamed) expect(reply.startsWith(text), `a prefix of the reply: ${text}`).toBe(true);
      // Its stream takes the deltas of the conversation on screen only.
      expect(requests.filter((search) => search.includes('deltas=')).at(-1)).toContain('deltas=user__coordinator');
      await second.close();
    },
    TEST_MS,
  );

  it(
    'stops a running turn from the conversation view',
    async () => {
      const reply = Array.from({ length: 200 }, (_, index) => `word${index}`).join(' ');
      mock.on({ model: 'claude-test', userMessage: 'Talk for a long time' }, { content: reply }, { latency: 50, chunkSize: 4 });
      await openApp();
      await send('Talk for a long time');
      await page.waitForFunction(() => ((globalThis as unknown as { streamed: string[] }).streamed.at(-1) ?? '').length > 10);
      await page.getByTestId('cancel-turn').click();
      await page.getByTestId('cancel-turn').waitFor({ state: 'detached' });
      await page.getByTestId('streaming').waitFor({ state: 'detached' });
      expect(await edge('user__coordinator').getAttribute('data-active')).toBe('false');
      expect(await messageText(reply).count()).toBe(0);
    },
    TEST_MS,
  );

  it(
    'a page open before the first session shows that session’s conversation as another surface starts it',
    async () => {
      mock.on({ model: 'claude-test', userMessage: 'Started elsewhere' }, { content: 'Answered where you look.' });
      await openApp();
      await page.getByText('No conversation yet').waitFor();
      // Another client (the REST API, as a script or another tab would use it) makes the
      // session, then sends: the page switches to the session before its first turn starts.
      const headers = { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' };
      const created = await fetch(`${serve.origin}/api/sessions`, { method: 'POST', headers, body: '{}' });
      const { id } = (await created.json()) as { id: string };
      await expect.poll(() => page.getByTestId('current-session').textContent()).toBe(id);
      const sent = await fetch(`${serve.origin}/api/sessions/${id}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ text: 'Started elsewhere' }),
      });
      expect(sent.status).toBe(202);
      await messageText('Answered where you look.').waitFor();
      expect(await messageText('Started elsewhere').count()).toBe(1);
    },
    TEST_MS,
  );

  it(
    'shows a legion run started from another process live: its messages, and a new session',
    async () => {
      mock.on({ model: 'claude-test', userMessage: 'Hello from the browser' }, { content: 'Hello, browser.' });
      mock.on({ model: 'claude-test', userMessage: 'Ping from a terminal' }, { content: 'Pong to the terminal.' });
      mock.on({ model: 'claude-test', userMessage: 'A new session from a terminal' }, { content: 'New session here.' });
      await openApp();
      await send('Hello from the browser');
      await messageText('Hello, browser.').waitFor();
      const sessionId = (await page.getByTestId('current-session').textContent())!;

      const run = await legion(['run', '--session', sessionId, 'Ping from a terminal'], workspace.dir, workspace.env);
      expect(run.status, run.stderr).toBe(0);
      await messageText('Pong to the terminal.').waitFor();
      expect(await messageText('Ping from a terminal').count()).toBe(1);

      const fresh = await legion(['run', '--new-session', 'A new session from a terminal'], workspace.dir, workspace.env);
      expect(fresh.status, fresh.stderr).toBe(0);
      await page.getByTestId('nav-sessions').click();
      // Another process's session reaches the server through its follower's poll of the latest session
      // (every second, followWorkspace's default), then the page's list refresh: more than expect.poll's 1 s default.
      await expect.poll(() => page.getByTestId('session-list').locator('> li').count(), { timeout: 10_000 }).toBe(2);
      // Counts are read when the view is on screen (not at every turn of every tab): the terminal's
      // two messages are counted, though the turns ended while another view was shown.
      await expect.poll(() => page.getByTestId(`session-${sessionId}`).textContent(), { timeout: 10_000 }).toContain('4 messages');
      await page.getByTestId('search-input').fill('Pong to the terminal');
      await page.getByTestId('search-submit').click();
      await page.getByTestId('search-hits').getByText('Pong to the terminal.').waitFor();
      // Whole words: a part of one finds nothing, and the page says why.
      await page.getByTestId('search-input').fill('Pon');
      await page.getByTestId('search-submit').click();
      await page.getByTestId('search-none').waitFor();
      expect(await page.getByTestId('search-input').getAttribute('aria-describedby')).toBe('search-hint');
      expect(await page.locator('#search-hint').textContent()).toContain('Whole words');
      await page.getByTestId('search-input').fill('Pong to the terminal');
      await page.getByTestId('search-submit').click();
      await page.getByTestId('search-hits').getByText('Pong to the terminal.').waitFor();
      await screenshot(page, 'sessions');
    },
    TEST_MS,
  );
});
