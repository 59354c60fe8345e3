import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { initWorkspace } from '@legion-collective/core';
import type { Browser, Page } from 'playwright-core';
import { codeServerBin, startCodeServer, type CodeServer } from './code-server.js';
import { useModel } from './legion-workspace.js';
import { openWorkbench, reportFailure, type Workbench } from './workbench.js';

// The extension in a real VS Code (code-server), driven through its UI in Debian's Chromium; the
// agents' models are aimock speaking the Anthropic and OpenAI wire protocols on 127.0.0.1.
// Run by `npm run test:vscode` (scripts/test-vscode.mjs), which installs code-server and packages the .vsix files.
const BIN = codeServerBin();
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const TEST_MS = 120_000;
const LEGION = fileURLToPath(new URL('../../cli/dist/legion.js', import.meta.url));

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
    // The reviewer runs on a model the editor offers (the test chat host's scripted one), through the vscode-lm provider.
    useModel(folder, 'reviewer', { provider: 'vscode-lm', model: 'e2e' });
    // For the editor's agent: a file it may read, and one the workspace denies to file_read (by every route).
    const config = join(folder, '.legion', 'config.json');
    writeFileSync(
      config,
      JSON.stringify(
        {
          ...JSON.parse(readFileSync(config, 'utf8')),
          policies: { file_read: { mode: 'auto', rules: [{ mode: 'deny', paths: ['private/**'], reason: 'private stays private' }] } },
        },
        null,
        2,
      ),
    );
    writeFileSync(join(folder, 'editor-notes.txt'), 'notes the editor agent reads\n');
    mkdirSync(join(folder, 'private'));
    writeFileSync(join(folder, 'private', 'key.txt'), 'the private key\n');
    server = await startCodeServer({
      bin: BIN!,
      vsix: [join(DIST, 'legion.vsix'), join(DIST, 'e2e-chat-host.vsix'), join(DIST, 'e2e-tool-client.vsix')],
      folder,
      settings: { 'legion.offerToolsToEditor': true },
      env: {
        ...process.env,
        ANTHROPIC_API_KEY: 'test',
        OPENAI_API_KEY: 'test',
        ANTHROPIC_BASE_URL: mock.url,
        OPENAI_BASE_URL: `${mock.url}/v1`,
      },
    });
    ({ browser, page, workbench } = await openWorkbench(server.url, folder));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await mock?.stop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  afterEach(async (context) => {
    if (context.task.result?.state === 'fail') {
      await reportFailure(page, join(DIST, `e2e-failure-${context.task.name.replace(/\W+/g, '-')}.png`), server?.output());
    }
    mock.clearFixtures();
    mock.resetMatchCounts();
  });

  /** coordinator (Anthropic) delegates to developer (OpenAI), who does `developerStep` first. */
  function scriptDelegation(
    userMessage: string,
    developerTask: string,
    developerStep: object | null,
    developerReply: string,
    coordinatorReply: string,
    stream = { latency: 20, chunkSize: 6 },
  ): void {
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      {
        toolCalls: [
          {
            id: `toolu_${userMessage.length}`,
            name: 'communicate',
            arguments: JSON.stringify({ to: 'developer', message: developerTask }),
          },
        ],
      },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: coordinatorReply }, stream);
    if (developerStep) mock.on({ model: 'gpt-test', userMessage: developerTask, hasToolResult: false }, developerStep);
    mock.on(
      { model: 'gpt-test', userMessage: developerTask, ...(developerStep ? { hasToolResult: true } : {}) },
      { content: developerReply },
    );
  }

  it(
    'activates on a Legion workspace: the Legion view lists the collective',
    async () => {
      await page.locator('.activitybar a.action-label[aria-label^="Legion"]').click();
      const collective = page.locator('.pane', { hasText: 'Collective' });
      await collective.locator('.monaco-list-row', { hasText: 'coordinator' }).waitFor({ timeout: 60_000 });
      expect(await collective.locator('.monaco-list-row', { hasText: 'developer' }).textContent()).toContain('openai / gpt-test');
    },
    TEST_MS,
  );

  it(
    '@legion streams the entry agent reply and shows the delegation',
    async () => {
      // Long and slow enough (some 2 s) that the chat paints it more than once however it batches.
      const reply =
        'The developer added src/health.ts for you: health() returns "ok", and a test checks it. Nothing else changed in the project.';
      scriptDelegation('Add a health check', 'Create src/health.ts', null, 'I created src/health.ts.', reply, {
        latency: 60,
        chunkSize: 4,
      });
      await workbench.openChat();
      // Every state of the reply the chat shows, to tell a streamed reply from one shown whole at the end.
      await workbench.recordReplyStates('The dev');
      await workbench.chat('@legion Add a health check');
      const response = workbench.lastResponse();
      await response.getByText('Nothing else changed in the project.', { exact: false }).waitFor({ timeout: 60_000 });
      expect(await response.textContent()).toContain('coordinator → developer: delegating');
      const states = await workbench.replyStates();
      expect(states.filter((state) => state.length < reply.length).length, states.join(' | ')).toBeGreaterThan(1);
    },
    TEST_MS,
  );

  /** The log of one conversation (by id) in every session of the workspace, as text. */
  function conversation(id: string): string {
    const sessions = join(folder, '.legion', 'sessions');
    return readdirSync(sessions, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name === `${id}.jsonl`)
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
      .join('\n');
  }

  /** Every session's approvals log, as text. */
  function approvalLogs(): string {
    const sessions = join(folder, '.legion', 'sessions');
    return readdirSync(sessions, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name === 'approvals.jsonl')
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
      .join('\n');
  }

  /** Every conversation log of the workspace's sessions, as text. */
  function logs(): string {
    const sessions = join(folder, '.legion', 'sessions');
    return readdirSync(sessions, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
      .join('\n');
  }

  it(
    "shows a delegate's approval in the chat; approving it there writes the file",
    async () => {
      const write = {
        toolCalls: [
          { id: 'call_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'approved in the chat\n' }) },
        ],
      };
      scriptDelegation('Write the notes', 'Create notes.txt', write, 'I wrote notes.txt.', 'notes.txt is written.');
      await workbench.chat('@legion Write the notes');
      const response = workbench.lastResponse();
      await response.getByText('developer wants to run').waitFor({ timeout: 60_000 });
      expect(existsSync(join(folder, 'notes.txt'))).toBe(false);
      // Offered in the Legion view too; answered in the chat, it is gone from there.
      const pending = page
        .locator('.pane', { hasText: 'Pending Approvals' })
        .locator('.monaco-list-row', { hasText: 'developer: file_write' });
      await pending.waitFor();
      await response.getByRole('button', { name: 'Approve once' }).click();
      await response.getByText('notes.txt is written.').waitFor({ timeout: 60_000 });
      expect(readFileSync(join(folder, 'notes.txt'), 'utf8')).toBe('approved in the chat\n');
      await pending.waitFor({ state: 'detached' });
    },
    TEST_MS,
  );

  it(
    'rejecting in the chat with a reason: the file is not written and the agent reads why',
    async () => {
      const write = {
        toolCalls: [{ id: 'call_write2', name: 'file_write', arguments: JSON.stringify({ path: 'secrets.txt', content: 'no\n' }) }],
      };
      scriptDelegation('Write the secrets', 'Create secrets.txt', write, 'I did not write secrets.txt.', 'secrets.txt was refused.');
      await workbench.chat('@legion Write the secrets');
      const response = workbench.lastResponse();
      await response.getByText('developer wants to run').waitFor({ timeout: 60_000 });
      await response.getByRole('button', { name: 'Reject…' }).click();
      await workbench.inputBox('keep secrets out of the repository');
      await response.getByText('secrets.txt was refused.').waitFor({ timeout: 60_000 });
      expect(existsSync(join(folder, 'secrets.txt'))).toBe(false);
      expect(logs()).toContain('keep secrets out of the repository');
    },
    TEST_MS,
  );

  it(
    '"Approve always" in the chat saves a rule (shown there, listed by legion approvals rules); the same call again runs without asking',
    async () => {
      const write = (id: string) => ({
        toolCalls: [{ id, name: 'file_write', arguments: JSON.stringify({ path: 'CHANGELOG.md', content: '# Changes\n' }) }],
      });
      scriptDelegation(
        'Start the changelog',
        'Create CHANGELOG.md',
        write('call_changelog'),
        'I wrote CHANGELOG.md.',
        'CHANGELOG.md is started.',
      );
      await workbench.chat('@legion Start the changelog');
      let response = workbench.lastResponse();
      await response.getByText('developer wants to run').waitFor({ timeout: 60_000 });
      await response.getByRole('button', { name: 'Approve always' }).click();
      await response.getByText('CHANGELOG.md is started.').waitFor({ timeout: 60_000 });
      expect(readFileSync(join(folder, 'CHANGELOG.md'), 'utf8')).toBe('# Changes\n');
      // The user sees the rule: in the chat, with how to list and remove it, and from a terminal.
      expect(await response.textContent()).toMatch(/Saved rule rule_\S+: developer may run file_write on CHANGELOG\.md without asking/);
      const listed = JSON.parse(
        execFileSync(process.execPath, [LEGION, 'approvals', 'rules', '--json'], { cwd: folder, encoding: 'utf8' }),
      ) as { rules: Array<{ id: string }> };
      expect(listed.rules).toEqual([
        expect.objectContaining({
          participant: 'developer',
          tool: 'file_write',
          pattern: 'CHANGELOG.md',
          createdBy: 'user',
          medium: 'vscode',
        }),
      ]);
      expect(readdirSync(join(folder, '.legion', 'collective', 'approval-rules'))).toEqual([`${listed.rules[0]!.id}.json`]);
      // The same call by the agent later: nobody is asked, and it runs.
      rmSync(join(folder, 'CHANGELOG.md'));
      mock.clearFixtures();
      scriptDelegation(
        'Restore the changelog',
        'Write CHANGELOG.md once more',
        write('call_changelog_again'),
        'I wrote CHANGELOG.md once more.',
        'CHANGELOG.md is back.',
      );
      await workbench.chat('@legion Restore the changelog');
      response = workbench.lastResponse();
      await response.getByText('CHANGELOG.md is back.').waitFor({ timeout: 60_000 });
      expect(await response.textContent()).not.toContain('wants to run');
      expect(readFileSync(join(folder, 'CHANGELOG.md'), 'utf8')).toBe('# Changes\n');
      // Not even recorded as a request: the rule decided it before anyone was asked.
      expect(approvalLogs()).toContain('"toolUseId":"call_changelog"');
      expect(approvalLogs()).not.toContain('call_changelog_again');
    },
    TEST_MS,
  );

  it(
    "shows an agent's question in the chat; the answer given there reaches the agent",
    async () => {
      const ask = {
        toolCalls: [
          { id: 'call_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which port should it listen on?' }) },
        ],
      };
      scriptDelegation('Start a server', 'Create src/server.ts', ask, 'It listens on the port you gave.', 'The server is ready.');
      await workbench.chat('@legion Start a server');
      const response = workbench.lastResponse();
      await response.getByText('Which port should it listen on?').waitFor({ timeout: 60_000 });
      await response.getByRole('button', { name: 'Answer' }).click();
      await workbench.inputBox('8080, please');
      await response.getByText('The server is ready.').waitFor({ timeout: 60_000 });
      // The developer's next model request carried the answer as the result of its question.
      expect(logs()).toContain('8080, please');
    },
    TEST_MS,
  );

  it(
    'a question answered from a terminal (legion answer) is gone from the chat and the Legion view',
    async () => {
      const ask = {
        toolCalls: [
          { id: 'call_ask2', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which database should it use?' }) },
        ],
      };
      scriptDelegation('Add storage', 'Create src/storage.ts', ask, 'It uses the database you named.', 'Storage is added.');
      await workbench.chat('@legion Add storage');
      const response = workbench.lastResponse();
      await response.getByText('Which database should it use?').waitFor({ timeout: 60_000 });
      const pending = page.locator('.pane', { hasText: 'Pending Approvals' }).locator('.monaco-list-row', { hasText: 'developer asks' });
      await pending.waitFor();
      const listed = execFileSync(process.execPath, [LEGION, 'questions', '--json'], { cwd: folder, encoding: 'utf8' });
      const questionId = /"(q_[^"]+)"/.exec(listed)?.[1];
      expect(questionId, listed).toBeDefined();
      execFileSync(process.execPath, [LEGION, 'answer', questionId!, 'PostgreSQL, from the terminal'], { cwd: folder, encoding: 'utf8' });
      await response.getByText('Storage is added.').waitFor({ timeout: 60_000 });
      await pending.waitFor({ state: 'detached' });
      expect(logs()).toContain('PostgreSQL, from the terminal');
      // The chat's button for it now says so instead of asking.
      await response.getByRole('button', { name: 'Answer' }).click();
      await page.locator('.notifications-toasts', { hasText: 'already answered' }).waitFor();
    },
    TEST_MS,
  );

  it(
    'runs a tool another extension registered through the API',
    async () => {
      const ready = JSON.parse(readFileSync(join(folder, 'tool-client-ready.json'), 'utf8')) as {
        tools: Array<{ name: string; providerId: string }>;
        registeredEvents: string[];
      };
      expect(ready.tools).toEqual([
        expect.objectContaining({ name: 'issue_lookup', providerId: 'programmatic' }),
        expect.objectContaining({ name: 'release_notes', providerId: 'tool-client' }),
      ]);
      expect(ready.registeredEvents).toEqual(['issue_lookup', 'release_notes']);
      mock.on(
        { model: 'gpt-test', userMessage: 'Look up issue 42', hasToolResult: false },
        { toolCalls: [{ id: 'call_issue', name: 'issue_lookup', arguments: JSON.stringify({ number: 42 }) }] },
      );
      mock.on(
        { model: 'gpt-test', userMessage: 'Look up issue 42', hasToolResult: true },
        { content: 'Issue 42 is about the slow login page.' },
      );
      await workbench.chat('@legion /to developer Look up issue 42');
      const response = workbench.lastResponse();
      await response.getByText('Issue 42 is about the slow login page.').waitFor({ timeout: 60_000 });
      expect(await response.textContent()).toContain('developer: issue_lookup');
      const called = JSON.parse(readFileSync(join(folder, 'tool-client-called.json'), 'utf8')) as {
        input: unknown;
        caller: string;
        registeredEvents: string[];
      };
      expect(called).toMatchObject({ input: { number: 42 }, caller: 'developer' });
      expect(logs()).toContain('the login page is slow (reported by the tool client)');
    },
    TEST_MS,
  );

  it(
    'a follow-up "Continue with developer" after a delegated reply sends the chat\'s next message to the developer',
    async () => {
      scriptDelegation(
        'Plan the release',
        'List the release steps',
        null,
        'Tag, build, publish.',
        'The developer listed the release steps.',
      );
      await workbench.chat('@legion Plan the release');
      await workbench.lastResponse().getByText('The developer listed the release steps.').waitFor({ timeout: 60_000 });
      await page.locator('.interactive-session-followups').getByText('Continue with developer', { exact: true }).click({ timeout: 60_000 });
      await workbench.lastResponse().getByText('This chat now talks to developer', { exact: false }).waitFor({ timeout: 60_000 });
      mock.on({ model: 'gpt-test', userMessage: 'Write the release script' }, { content: 'The release script is in scripts/release.sh.' });
      mock.clearRequests();
      await workbench.chat('@legion Write the release script');
      await workbench.lastResponse().getByText('The release script is in scripts/release.sh.').waitFor({ timeout: 60_000 });
      // The developer's model was asked, in the user's own conversation with the developer; the entry agent's was not.
      const asked = mock.getRequests().map((entry) => entry.body as { model?: string });
      expect(asked.map((body) => body.model)).toEqual(['gpt-test']);
      expect(JSON.stringify(asked[0])).toContain('Write the release script');
      expect(conversation('user__developer')).toContain('Write the release script');
      expect(conversation('user__coordinator')).not.toContain('Write the release script');
      // Back to the entry agent, for the scenarios after this one.
      await workbench.chat('@legion /to coordinator');
      await workbench.lastResponse().getByText('This chat now talks to coordinator', { exact: false }).waitFor({ timeout: 60_000 });
    },
    TEST_MS,
  );

  it(
    'runs an agent on a model the editor offers (vscode-lm)',
    async () => {
      await workbench.chat('@legion /to reviewer Say hello');
      await workbench.lastResponse().getByText('scripted model reply').waitFor({ timeout: 60_000 });
    },
    TEST_MS,
  );

  it(
    "runs the editor's model's tool call (vscode-lm): Legion runs the file_read it asks for, the result goes back to the model, and its reply streams into the chat",
    async () => {
      await workbench.recordReplyStates('The model read it');
      await workbench.chat('@legion /to reviewer Please read the file editor-notes.txt');
      const response = workbench.lastResponse();
      await response.getByText('Done reading.', { exact: false }).waitFor({ timeout: 60_000 });
      const text = await response.textContent();
      expect(text).toContain('reviewer: file_read editor-notes.txt');
      // The model's reply quotes what Legion's file_read returned for its call.
      expect(text).toMatch(/The model read it \(lm_call_read\): [^]*notes the editor agent reads[^]*Done reading\./);
      const states = await workbench.replyStates();
      expect(states.filter((state) => !state.includes('Done reading.')).length, states.join(' | ')).toBeGreaterThan(1);
      const log = conversation('user__reviewer');
      expect(log).toContain('"toolUseId":"lm_call_read"');
      expect(log).toContain('notes the editor agent reads');
    },
    TEST_MS,
  );

  it(
    "offers Legion to the editor's own agents as a tool (legion.offerToolsToEditor)",
    async () => {
      mock.on({ model: 'claude-test', userMessage: 'Summarize the plan' }, { content: 'The plan: health check, then storage.' });
      await workbench.chat('use legion: Summarize the plan');
      await workbench.lastResponse().getByText('legion_run_agent said: The plan: health check, then storage.').waitFor({ timeout: 60_000 });
    },
    TEST_MS,
  );

  it(
    "offers Legion's built-in tools one by one: the editor's agent reads a file with legion_file_read",
    async () => {
      await workbench.chat('invoke legion_file_read path=editor-notes.txt');
      const response = workbench.lastResponse();
      await response.getByText('legion_file_read said:').waitFor({ timeout: 60_000 });
      expect(await response.textContent()).toContain('notes the editor agent reads');
    },
    TEST_MS,
  );

  it(
    "refuses the editor's agent what the workspace denies, by the tool itself and by legion_call_tool, and reads nothing",
    async () => {
      await workbench.chat('invoke legion_file_read path=private/key.txt');
      let response = workbench.lastResponse();
      await response.getByText('legion_file_read said: Error: file_read is denied', { exact: false }).waitFor({ timeout: 60_000 });
      expect(await response.textContent()).toContain('private stays private');
      expect(await response.textContent()).not.toContain('the private key');
      await workbench.chat('invoke legion_call_tool tool=file_read path=private/key.txt');
      response = workbench.lastResponse();
      await response.getByText('legion_call_tool said: Error: file_read is denied', { exact: false }).waitFor({ timeout: 60_000 });
      expect(await response.textContent()).not.toContain('the private key');
    },
    TEST_MS,
  );

  it(
    "asks in the chat before the editor's agent writes (file_write needs approval): the file appears only once the user continues",
    async () => {
      await workbench.chat('invoke legion_file_write path=from-editor.txt content=approved-in-the-editor');
      const response = workbench.lastResponse();
      await response.getByText('Legion: run file_write?').waitFor({ timeout: 60_000 });
      expect(existsSync(join(folder, 'from-editor.txt'))).toBe(false);
      await response.getByText('Continue', { exact: true }).click();
      await response.getByText('legion_file_write said:', { exact: false }).waitFor({ timeout: 60_000 });
      expect(readFileSync(join(folder, 'from-editor.txt'), 'utf8')).toBe('approved-in-the-editor');
    },
    TEST_MS,
  );

  it(
    'asks in Legion\'s own dialog, not VS Code\'s confirmation (whose "Always allow" would cover every tool), before a write through legion_call_tool',
    async () => {
      await workbench.chat('invoke legion_call_tool tool=file_write path=via-call-tool.txt content=approved-in-legion');
      const dialog = workbench.page.locator('.monaco-dialog-box');
      await dialog.getByText('file_write', { exact: false }).waitFor({ timeout: 60_000 });
      const response = workbench.lastResponse();
      expect(await response.getByText('Continue', { exact: true }).count()).toBe(0);
      expect(existsSync(join(folder, 'via-call-tool.txt'))).toBe(false);
      await dialog.getByRole('button', { name: 'Approve once' }).click();
      await response.getByText('legion_call_tool said:', { exact: false }).waitFor({ timeout: 60_000 });
      expect(readFileSync(join(folder, 'via-call-tool.txt'), 'utf8')).toBe('approved-in-legion');
    },
    TEST_MS,
  );

  it(
    "shows the web UI's conversation graph in a webview",
    async () => {
      await workbench.command('Legion: Open Conversation Graph');
      const app = workbench.webview().frameLocator('#legion-app');
      await app.getByTestId('graph-edge-user__coordinator').waitFor({ timeout: 60_000 });
      await app.getByTestId('graph-edge-coordinator__developer').waitFor();
    },
    TEST_MS,
  );
});
