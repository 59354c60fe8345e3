import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { CHROMIUM, useModelAndBrowser, screenshot } from './browser.test-support.js';
import { legion, mockedWorkspace, startServe, useModel, type Serve } from './serve-process.test-support.js';

// Issue 30, "the conversation is where you act": what a turn waits on you for (a question, an
// approval) is shown and answered in the conversation you look at, and leaves it the moment any
// surface answers. The built `legion serve`, agents on the real SDKs against aimock, in Chromium.
const TEST_MS = 90_000;

describe.skipIf(CHROMIUM === null)('legion serve: acting in the conversation', () => {
  const { mock, browser } = useModelAndBrowser();
  let workspace: { dir: string; env: NodeJS.ProcessEnv };
  let serve: Serve;
  let page: Page;

  beforeEach(async () => {
    workspace = mockedWorkspace(mock.url);
    serve = await startServe(workspace.dir, workspace.env);
    page = await browser().newPage({ viewport: { width: 1280, height: 860 } });
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

  async function send(text: string): Promise<void> {
    await page.getByTestId('composer-text').fill(text);
    await page.getByTestId('composer-send').click();
  }

  const conversationShown = (id: string) => page.getByTestId('view-conversation').and(page.locator(`[data-conversation="${id}"]`));
  const messageText = (text: string) =>
    page.locator('[data-testid="messages"] > li:not([data-testid="streaming"])').getByText(text, { exact: true });
  const waiting = () => page.getByTestId('waiting-on-you');
  /** The last request the developer's model got (the OpenAI one), as text. */
  const lastDeveloperRequest = () =>
    JSON.stringify(
      mock
        .getRequests()
        .filter((entry) => JSON.stringify(entry.body).includes('gpt-test'))
        .at(-1)?.body,
    );

  /** coordinator (Anthropic) delegates to developer (OpenAI), who does `developerStep` first, then replies. */
  function scriptDelegation(userMessage: string, developerStep: object, developerReply: string, coordinatorReply: string): void {
    const delegation = { to: 'developer', message: `Task: ${userMessage}` };
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: coordinatorReply });
    mock.on({ model: 'gpt-test', userMessage: `Task: ${userMessage}`, hasToolResult: false }, developerStep);
    mock.on({ model: 'gpt-test', userMessage: `Task: ${userMessage}`, hasToolResult: true }, { content: developerReply });
  }

  const ask = (id: string, message: string) => ({ id, name: 'communicate', arguments: JSON.stringify({ to: 'user', message }) });

  it(
    'a delegate’s question is a card in the conversation you look at, and its own message box answers it with Enter',
    async () => {
      scriptDelegation(
        'Add a health check',
        { toolCalls: [ask('call_ask', 'Which port should it listen on?')] },
        'It listens on port 8080.',
        'Done, on port 8080.',
      );
      await openApp();
      await send('Add a health check');

      // The top-level conversation shows the developer's question, with the chain it came through.
      await conversationShown('user__coordinator').waitFor();
      const card = waiting().locator('li', { hasText: 'Which port should it listen on?' });
      await card.waitFor();
      expect(await card.getByTestId('question-chain').textContent()).toContain('You → Coordinator → Developer');
      expect(await card.locator('.who').first().getAttribute('data-participant')).toBe('developer');
      expect(await card.locator('strong').first().textContent()).toBe('Developer');
      // The conversation's own box now answers it, and says so.
      const box = page.getByTestId('composer-text');
      expect(await box.getAttribute('placeholder')).toMatch(/^Answer Developer's question…/);
      expect(await page.getByTestId('composer-answering').textContent()).toContain('Which port should it listen on?');
      expect(await page.getByTestId('composer-send').textContent()).toBe('Answer');
      await screenshot(page, 'act-question');
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'act-question-390');
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'act-question-390-dark');
      await page.setViewportSize({ width: 1280, height: 860 });
      await screenshot(page, 'act-question-dark');
      await page.emulateMedia({ colorScheme: 'light' });

      // A page loaded while the turn waits (no turn:start seen) still finds the question in the conversation.
      await page.reload();
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      await conversationShown('user__coordinator').waitFor();
      await card.waitFor();
      await page.getByTestId('composer-answering').waitFor();

      await box.fill('8080, please');
      await box.press('Enter');

      // The answer reached the developer, and the conversation went on to the coordinator's reply.
      await messageText('Done, on port 8080.').waitFor();
      expect(lastDeveloperRequest()).toContain('8080, please');
      await waiting().waitFor({ state: 'detached' });
      expect(await box.getAttribute('placeholder')).toMatch(/^Message…/);
      expect(await page.getByTestId('composer-error').count()).toBe(0);
      await page.getByTestId('nav-questions').click();
      await page.getByTestId('questions-empty').waitFor();
    },
    TEST_MS,
  );

  it(
    'with two questions waiting, the box says which one it answers; each card answers its own',
    async () => {
      // The coordinator asks the developer and the reviewer at once; each asks the user something.
      useModel(workspace.dir, 'reviewer', { provider: 'openai', model: 'gpt-review', baseURL: `${mock.url}/v1` });
      mock.on(
        { model: 'claude-test', userMessage: 'Set up the service', hasToolResult: false },
        {
          toolCalls: [
            { id: 'toolu_port', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Task: the port' }) },
            { id: 'toolu_host', name: 'communicate', arguments: JSON.stringify({ to: 'reviewer', message: 'Task: the host' }) },
          ],
        },
      );
      mock.on({ model: 'claude-test', userMessage: 'Set up the service', hasToolResult: true }, { content: 'The service is set up.' });
      mock.on({ model: 'gpt-test', userMessage: 'Task: the port', hasToolResult: false }, { toolCalls: [ask('call_port', 'Which port?')] });
      mock.on({ model: 'gpt-test', userMessage: 'Task: the port', hasToolResult: true }, { content: 'Port set.' });
      mock.on(
        { model: 'gpt-review', userMessage: 'Task: the host', hasToolResult: false },
        { toolCalls: [ask('call_host', 'Which host?')] },
      );
      mock.on({ model: 'gpt-review', userMessage: 'Task: the host', hasToolResult: true }, { content: 'Host set.' });
      await openApp();
      await send('Set up the service');
      await conversationShown('user__coordinator').waitFor();
      await expect.poll(() => waiting().locator('li[data-testid^="question-"]').count(), { timeout: 20_000 }).toBe(2);
      const first = await waiting().locator('li[data-testid^="question-"]').first().getAttribute('data-testid');
      const firstId = first!.replace(/^question-/, '');
      expect(await page.getByTestId('composer-answering').getAttribute('data-question')).toBe(firstId);
      expect(await page.getByTestId('composer-answering-which').textContent()).toContain('the oldest of 2 waiting here');
      const firstText = await page.getByTestId(`question-${firstId}`).getByTestId('question-text').textContent();
      expect(await page.getByTestId('composer-answering').textContent()).toContain(firstText);
      // The card the box answers says so.
      expect(await page.getByTestId(`question-${firstId}`).getByTestId('question-in-box').count()).toBe(1);
      expect(await waiting().getByTestId('question-in-box').count()).toBe(1);
      await screenshot(page, 'act-two-questions');

      // The box answers the oldest; then it moves on to the other, answered in its own card.
      await page.getByTestId('composer-text').fill('the first answer');
      await page.getByTestId('composer-text').press('Enter');
      await page.getByTestId(`question-${firstId}`).waitFor({ state: 'detached' });
      await expect.poll(() => page.getByTestId('composer-answering-which').count()).toBe(0);
      const second = (await waiting().locator('li[data-testid^="question-"]').getAttribute('data-testid'))!.replace(/^question-/, '');
      expect(await page.getByTestId('composer-answering').getAttribute('data-question')).toBe(second);
      await page.getByTestId(`question-answer-${second}`).fill('the second answer');
      await page.getByTestId(`question-answer-${second}`).press('Enter');
      await messageText('The service is set up.').waitFor();
      // Each answer reached the one who asked it.
      const answers = mock
        .getRequests()
        .map((entry) => JSON.stringify(entry.body))
        .filter((body) => body.includes('gpt-'));
      const portAnswer = firstText === 'Which port?' ? 'the first answer' : 'the second answer';
      const hostAnswer = portAnswer === 'the first answer' ? 'the second answer' : 'the first answer';
      expect(answers.some((body) => body.includes('gpt-test') && body.includes(portAnswer))).toBe(true);
      expect(answers.some((body) => body.includes('gpt-review') && body.includes(hostAnswer))).toBe(true);
    },
    TEST_MS,
  );

  it(
    'approves and rejects a delegate’s file writes inline: one written, one not, the reason read by the agent',
    async () => {
      const write = (id: string, path: string, content: string) => ({
        id,
        name: 'file_write',
        arguments: JSON.stringify({ path, content }),
      });
      scriptDelegation(
        'Write the notes',
        { toolCalls: [write('call_notes', 'notes.txt', 'alpha\n')] },
        'Wrote notes.txt.',
        'Notes written.',
      );
      scriptDelegation(
        'Write the secrets',
        { toolCalls: [write('call_secrets', 'secrets.txt', 'hunter2\n')] },
        'I was told not to.',
        'No secrets written.',
      );
      await openApp();
      await send('Write the notes');

      // The developer's approval, in the conversation the user looks at (the top-level one), with core's four choices.
      await conversationShown('user__coordinator').waitFor();
      const card = waiting().locator('[data-tool="file_write"]');
      await card.waitFor();
      expect(await card.getByTestId('approval-diff').textContent()).toContain('+alpha');
      expect(await card.getByTestId('approval-chain').textContent()).toBe('You → Coordinator → Developer');
      expect(await card.locator('button').allTextContents()).toEqual([
        'Approve once',
        'Approve for this session',
        'Approve always',
        'Reject',
      ]);
      // It stays in the Approvals inbox too.
      const notesId = (await card.getAttribute('data-testid'))!.replace(/^approval-/, '');
      expect(await page.getByTestId('nav-approvals-count').textContent()).toBe('1');
      expect(await page.getByTestId('composer-waits-on-approval').textContent()).toContain('waits on your decision above');
      await screenshot(page, 'act-approval');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.emulateMedia({ colorScheme: 'dark' });
      await screenshot(page, 'act-approval-390-dark');
      await page.setViewportSize({ width: 1280, height: 860 });
      await page.emulateMedia({ colorScheme: 'light' });
      // Another tab, on the Approvals inbox, sees it too, and sees it decided.
      const inbox = await browser().newPage({ viewport: { width: 1280, height: 860 } });
      await inbox.goto(serve.url);
      await inbox.getByTestId('nav-approvals').click();
      await inbox.getByTestId(`approval-${notesId}`).waitFor();

      // Digits choose only on the focused card, never while typing in its reason box.
      await page.getByTestId(`reject-reason-${notesId}`).fill('');
      await page.getByTestId(`reject-reason-${notesId}`).press('4');
      expect(await page.getByTestId(`reject-reason-${notesId}`).inputValue()).toBe('4');
      expect(await page.getByTestId(`approval-staged-${notesId}`).count()).toBe(0);
      await page.getByTestId(`reject-reason-${notesId}`).fill('');
      await card.focus();
      await page.keyboard.press('1');
      await page.getByTestId(`inline-decided-${notesId}`).and(page.locator('[data-status="approved"]')).waitFor();
      await messageText('Notes written.').waitFor();
      expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('alpha\n');
      expect(await page.getByTestId('nav-approvals-count').count()).toBe(0);
      await inbox.getByTestId(`approval-decided-${notesId}`).and(inbox.locator('[data-status="approved"]')).waitFor();
      expect(await inbox.getByTestId(`approval-${notesId}`).count()).toBe(0);
      await inbox.close();
      expect(await page.getByTestId('composer-waits-on-approval').count()).toBe(0);

      await send('Write the secrets');
      const secrets = waiting().locator('[data-tool="file_write"]');
      await secrets.waitFor();
      const secretsId = (await secrets.getAttribute('data-testid'))!.replace(/^approval-/, '');
      // The last turn's decision is not shown beside this turn's request, as if it were part of it.
      expect(await page.getByTestId(`inline-decided-${notesId}`).count()).toBe(0);
      await page.getByTestId(`reject-reason-${secretsId}`).fill('secrets stay out of the repository');
      await page.getByTestId(`reject-${secretsId}`).click();
      await page.getByTestId(`inline-decided-${secretsId}`).and(page.locator('[data-status="rejected"]')).waitFor();
      const decidedLine = await page.getByTestId(`inline-decided-${secretsId}`).textContent();
      expect(decidedLine).toContain('secrets stay out of the repository');
      // What was decided, not only which tool: the call's input on one line, and names, not ids.
      expect(decidedLine).toContain('"path":"secrets.txt"');
      expect(decidedLine).toMatch(/ by You\b/);
      await messageText('No secrets written.').waitFor();
      expect(existsSync(join(workspace.dir, 'secrets.txt'))).toBe(false);
      expect(lastDeveloperRequest()).toContain('secrets stay out of the repository');
      await screenshot(page, 'act-approvals-decided');
      await page.getByTestId('nav-approvals').click();
      await page.getByTestId(`approval-decided-${secretsId}`).and(page.locator('[data-status="rejected"]')).waitFor();
    },
    TEST_MS,
  );

  it(
    'a question answered and an approval decided from a terminal leave the page without a reload',
    async () => {
      scriptDelegation(
        'Pick a port',
        { toolCalls: [ask('call_ask', 'Which port should it listen on?')] },
        'Port 9090 it is.',
        'Settled on 9090.',
      );
      await openApp();
      await send('Pick a port');
      const card = waiting().locator('li[data-testid^="question-"]');
      await card.waitFor();
      const questionId = (await card.getAttribute('data-testid'))!.replace(/^question-/, '');
      const sessionId = (await page.getByTestId('current-session').textContent())!;
      await page.evaluate(() => ((globalThis as unknown as { loadedOnce: boolean }).loadedOnce = true));

      const answered = await legion(['answer', '--session', sessionId, questionId, '9090'], workspace.dir, workspace.env);
      expect(answered.status, answered.stderr).toBe(0);
      await page.getByTestId(`question-${questionId}`).waitFor({ state: 'detached' });
      expect(await page.getByTestId('composer-answering').count()).toBe(0);
      await messageText('Settled on 9090.').waitFor();
      expect(lastDeveloperRequest()).toContain('9090');

      mock.on(
        { model: 'claude-test', userMessage: 'Write the port down', hasToolResult: false },
        { toolCalls: [{ id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'port.txt', content: '9090\n' }) }] },
      );
      mock.on({ model: 'claude-test', userMessage: 'Write the port down', hasToolResult: true }, { content: 'Wrote port.txt.' });
      await send('Write the port down');
      const approval = waiting().locator('[data-tool="file_write"]');
      await approval.waitFor();
      const approvalId = (await approval.getAttribute('data-testid'))!.replace(/^approval-/, '');
      const approved = await legion(['approve', '--session', sessionId, approvalId], workspace.dir, workspace.env);
      expect(approved.status, approved.stderr).toBe(0);
      await page.getByTestId(`inline-decided-${approvalId}`).and(page.locator('[data-status="approved"]')).waitFor();
      expect(await page.getByTestId(`approval-${approvalId}`).count()).toBe(0);
      await messageText('Wrote port.txt.').waitFor();
      expect(readFileSync(join(workspace.dir, 'port.txt'), 'utf8')).toBe('9090\n');
      // The same page all along: no reload brought any of it.
      expect(await page.evaluate(() => (globalThis as unknown as { loadedOnce?: boolean }).loadedOnce)).toBe(true);
    },
    TEST_MS,
  );
});
