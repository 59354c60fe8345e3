import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunReportSchema, StreamLineSchema, type StreamLine } from './stream-line.js';
import { runLegion } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// `legion run` as a script uses it: the built binary, its agents on the real
// Anthropic and OpenAI SDKs against aimock on 127.0.0.1, stdin a pipe.
const PROCESS_LIMIT_MS = 45_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe('legion run for scripts: stream-json, questions, errors', () => {
  const workspace = useWorkspace('legion-headless-');
  const { mock, env, useModel, toolResultSent } = workspace;

  function legion(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
    return runLegion(args, {
      cwd: workspace.dir,
      env: options.env ?? { ...process.env, ...env() },
      input: options.input ?? '',
      timeoutMs: PROCESS_LIMIT_MS,
    });
  }

  function expectExit(run: Run, status: number): void {
    expect(run.status, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(status);
  }

  const claude = () => ({ provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
  const gpt = () => ({ provider: 'openai', model: 'gpt-test', baseURL: `${mock.url}/v1` });

  /** coordinator (Anthropic) delegates to developer (OpenAI), who first does `developerStep`, then replies. */
  function scriptDelegation(
    userMessage: string,
    developerStep: { toolCalls: Array<{ id: string; name: string; arguments: string }> },
    developerReply: string,
    coordinatorReply: string,
  ): void {
    useModel('coordinator', claude());
    useModel('developer', gpt());
    const delegation = { to: 'developer', message: 'Create src/health.ts exporting health()' };
    mock.on(
      { model: 'claude-test', userMessage, hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
    );
    mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: coordinatorReply });
    mock.on({ model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: false }, developerStep);
    mock.on({ model: 'gpt-test', userMessage: 'Create src/health.ts', hasToolResult: true }, { content: developerReply });
  }

  it('--output stream-json: one schema-valid JSON line per event, each naming its conversation, ending with the report', async () => {
    const write = { path: 'src/health.ts', content: 'export const health = () => "ok";\n' };
    scriptDelegation(
      'Add a health check',
      { toolCalls: [{ id: 'call_write', name: 'file_write', arguments: JSON.stringify(write) }] },
      'Created src/health.ts.',
      'The developer added src/health.ts for you.',
    );

    const run = await legion(['run', '--output', 'stream-json', '--approve', 'auto', 'Add a health check']);

    expectExit(run, 0);
    const text = run.stdout.trimEnd().split('\n');
    const lines: StreamLine[] = text.map((line, index) => {
      const parsed = StreamLineSchema.safeParse(JSON.parse(line));
      expect(parsed.success, `line ${index + 1} does not match the schema: ${line}\n${parsed.error?.message ?? ''}`).toBe(true);
      return parsed.data!;
    });
    const types = lines.map((line) => line.type);
    expect(types[0]).toBe('run:start');
    expect(types.at(-1)).toBe('result');
    for (const type of [
      'turn:start',
      'text:delta',
      'message',
      'tool:call',
      'tool:result',
      'delegation:start',
      'delegation:end',
      'approval:requested',
      'approval:decided',
      'usage',
      'turn:end',
    ])
      expect(types).toContain(type);
    for (const line of lines) if (line.type !== 'warning' && line.type !== 'error') expect(line.conversationId).toMatch(/^[a-z]+__[a-z]+/);

    const find = <Type extends StreamLine['type']>(type: Type) =>
      lines.filter((line): line is Extract<StreamLine, { type: Type }> => line.type === type);
    const sessionId = find('run:start')[0]!.sessionId;
    expect(find('run:start')[0]).toMatchObject({
      conversationId: 'user__coordinator',
      from: 'user',
      to: 'coordinator',
      message: 'Add a health check',
    });
    expect(find('delegation:start')).toEqual([
      expect.objectContaining({
        sessionId,
        conversationId: 'user__coordinator',
        from: 'coordinator',
        to: 'developer',
        toolUseId: 'toolu_delegate',
        message: 'Create src/health.ts exporting health()',
      }),
    ]);
    expect(find('delegation:end')).toEqual([
      expect.objectContaining({ from: 'coordinator', to: 'developer', isError: false, result: 'Created src/health.ts.' }),
    ]);
    expect(find('tool:call')).toEqual([
      expect.objectContaining({
        conversationId: 'coordinator__developer',
        participantId: 'developer',
        tool: 'file_write',
        toolUseId: 'call_write',
        input: write,
      }),
    ]);
    expect(find('tool:result')).toEqual([
      expect.objectContaining({
        conversationId: 'coordinator__developer',
        tool: 'file_write',
        isError: false,
        content: expect.stringMatching(/^Created src\/health\.ts/),
        fileChange: {
          status: 'kept',
          path: 'src/health.ts',
          action: 'created',
          patch: '--- /dev/null\n+++ b/src/health.ts\n@@ -0,0 +1,1 @@\n+export const health = () => "ok";\n',
        },
      }),
    ]);
    expect(find('approval:requested')).toEqual([
      expect.objectContaining({
        conversationId: 'coordinator__developer',
        requester: 'developer',
        approver: 'user',
        tool: 'file_write',
        chain: ['user', 'coordinator'],
      }),
    ]);
    expect(find('approval:decided')).toEqual([
      expect.objectContaining({ requester: 'developer', decision: 'approved', decidedBy: 'user', medium: 'terminal' }),
    ]);
    expect(find('approval:decided')[0]!.requestId).toBe(find('approval:requested')[0]!.requestId);
    // The deltas of a conversation add up to its replies.
    const streamed = find('text:delta')
      .filter((line) => line.conversationId === 'user__coordinator')
      .map((line) => line.text)
      .join('');
    expect(streamed).toBe('The developer added src/health.ts for you.');
    expect(find('usage').map((line) => `${line.participantId} ${line.model}`)).toEqual([
      'coordinator claude-test',
      'developer gpt-test',
      'developer gpt-test',
      'coordinator claude-test',
    ]);
    expect(find('turn:start').map((line) => `${line.conversationId} ${line.chain.join('>')}`)).toEqual([
      'user__coordinator user',
      'coordinator__developer user>coordinator',
    ]);
    expect(find('turn:end').map((line) => `${line.participantId} ${line.status}`)).toEqual(['developer success', 'coordinator success']);
    expect(find('message').map((line) => `${line.conversationId} ${line.author} ${line.message.role}`)[0]).toBe(
      'user__coordinator user user',
    );

    const result = find('result')[0]!;
    expect(RunReportSchema.safeParse(result).success).toBe(true);
    expect(result).toMatchObject({
      status: 'success',
      reply: 'The developer added src/health.ts for you.',
      sessionId,
      participants: ['user', 'coordinator', 'developer'],
      questions: [],
    });
    expect(result.usage.total.calls).toBe(4);
    expect(readFileSync(join(workspace.dir, 'src/health.ts'), 'utf8')).toBe(write.content);
  }, 60_000);

  it('--answer-questions deny: --output json reports a delegate’s question to the user (who, chain, conversation, text), and the asker is told the user is unavailable', async () => {
    scriptDelegation(
      'Add a health check',
      {
        toolCalls: [
          { id: 'call_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which port should it listen on?' }) },
        ],
      },
      'I assumed port 3000.',
      'Done, on port 3000.',
    );

    const run = await legion(['run', '--output', 'json', '--answer-questions', 'deny', 'Add a health check']);

    expectExit(run, 0);
    const report = RunReportSchema.parse(JSON.parse(run.stdout));
    expect(report.reply).toBe('Done, on port 3000.');
    expect(report.questions).toEqual([
      {
        id: expect.stringMatching(/^q_/),
        conversationId: 'developer__user',
        from: 'developer',
        to: 'user',
        chain: ['user', 'coordinator', 'developer'],
        text: 'Which port should it listen on?',
        answered: false,
        error: expect.stringContaining('user is not available'),
      },
    ]);
    expect(toolResultSent('call_ask')).toMatch(/user is not available.*--answer-questions deny.*reasonable assumption/);

    // Text output says it on stderr: the reply may rest on the asker's assumption.
    const text = await legion(['run', '--new-session', '--answer-questions', 'deny', 'Add a health check']);
    expectExit(text, 0);
    expect(text.stdout).toBe('Done, on port 3000.\n');
    expect(text.stderr).toContain(
      'legion: developer asked user "Which port should it listen on?" and was told you are unavailable (answer such questions with --answer "…")',
    );
  }, 60_000);

  it('--answer gives every question that text: the asker gets it, stream-json shows the question and the answer', async () => {
    scriptDelegation(
      'Add a health check',
      {
        toolCalls: [
          { id: 'call_ask', name: 'communicate', arguments: JSON.stringify({ to: 'user', message: 'Which port should it listen on?' }) },
        ],
      },
      'Using port 8080 as you said.',
      'Done, on port 8080.',
    );

    const run = await legion(['run', '--output', 'stream-json', '--answer', 'Port 8080, please.', 'Add a health check']);

    expectExit(run, 0);
    const lines = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => StreamLineSchema.parse(JSON.parse(line)));
    const asked = lines.findIndex((line) => line.type === 'question:asked');
    const answered = lines.findIndex((line) => line.type === 'question:answered');
    expect(lines[asked]).toMatchObject({
      conversationId: 'developer__user',
      from: 'developer',
      to: 'user',
      chain: ['user', 'coordinator', 'developer'],
      text: 'Which port should it listen on?',
    });
    expect(answered).toBeGreaterThan(asked);
    expect(lines[answered]).toMatchObject({ answered: true, answer: 'Port 8080, please.' });
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      reply: 'Done, on port 8080.',
      questions: [expect.objectContaining({ answered: true, answer: 'Port 8080, please.' })],
    });
    expect(toolResultSent('call_ask')).toBe('Port 8080, please.');
  }, 60_000);

  it("the stream-json reference's example is lines of the documented format", () => {
    const reference = readFileSync(fileURLToPath(new URL('../../../../docs/reference/stream-json.md', import.meta.url)), 'utf8');
    const block = reference
      .split('<!-- stream-json example: the tests parse each line with StreamLineSchema -->\n```jsonl\n')[1]
      ?.split('\n```')[0];
    expect(block).toBeDefined();
    const lines = block!.split('\n').map((line) => StreamLineSchema.parse(JSON.parse(line)));
    expect(lines[0]!.type).toBe('run:start');
    expect(lines.at(-1)!.type).toBe('result');
  });

  it('refuses --answer-questions text without the text, naming the fix, before anything runs', async () => {
    const run = await legion(['run', '--answer-questions', 'text', 'hello']);
    expectExit(run, 1);
    expect(run.stderr).toMatch(/--answer-questions text needs the answer: add --answer/);
    const sessions = join(workspace.dir, '.legion/sessions');
    expect(existsSync(sessions) ? readdirSync(sessions).filter((name) => !name.startsWith('.')) : []).toEqual([]);
  });

  it('a failed turn exits 1 with the error on stderr in every output format; the message may come on stdin', async () => {
    // No key and no model server: the coordinator's provider fails.
    const bare = { ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(workspace.dir, '.xdg'), ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' };
    for (const output of ['text', 'json', 'stream-json']) {
      const run = await legion(['run', '--output', output], { input: 'hello from a pipe\n', env: bare });
      expectExit(run, 1);
      expect(run.stderr).toMatch(/^legion: coordinator could not answer: .*anthropic/m);
      if (output === 'json') expect(JSON.parse(run.stdout)).toMatchObject({ status: 'error', to: 'coordinator' });
      if (output === 'stream-json') {
        const lines = run.stdout
          .trimEnd()
          .split('\n')
          .map((line) => StreamLineSchema.parse(JSON.parse(line)));
        expect(lines[0]).toMatchObject({ type: 'run:start', message: 'hello from a pipe' });
        expect(lines.at(-1)).toMatchObject({ type: 'result', status: 'error' });
      }
    }
  }, 60_000);
});
