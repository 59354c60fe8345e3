import { spawnSync } from 'node:child_process';
import { startOtlpCollector } from '@legion-collective/core/testing';
import { LEGION, runLegion, type LegionRun } from './legion-process.test-support.js';
import { shellQuote, TMUX_MISSING, TmuxTerminal } from './repl/terminal.test-support.js';
import { connectHttp, mcpClient, serveMcpHttp } from './mcp-serve.test-support.js';
import { useWorkspace } from './workspace.test-support.js';

const PROCESS_LIMIT_MS = 60_000;

describe('legion exports traces over OTLP when an endpoint is configured', () => {
  const workspace = useWorkspace('legion-telemetry-');
  const { mock } = workspace;
  let collector: Awaited<ReturnType<typeof startOtlpCollector>> | undefined;
  afterEach(async () => {
    await collector?.close();
    collector = undefined;
  });

  function expectExit(run: LegionRun, status: number): void {
    expect(run.status, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(status);
  }

  it('legion run sends its turn and model-call spans before it exits', async () => {
    collector = await startOtlpCollector();
    workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    mock.on({ userMessage: 'Hello' }, { content: 'Hi there.', usage: { input_tokens: 80, output_tokens: 30 } });
    const run = await runLegion(['run', '--output', 'json', 'Hello'], {
      cwd: workspace.dir,
      env: {
        ...process.env,
        ...workspace.env(),
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      },
      timeoutMs: PROCESS_LIMIT_MS,
    });
    expectExit(run, 0);
    const report = JSON.parse(run.stdout) as { conversationId: string; sessionId: string };

    // Nothing is waited for: the spans were sent before the process ended.
    expect(collector.paths[0]).toBe('POST /v1/traces application/json');
    const turn = collector.spans.find((span) => span.name === 'invoke_agent coordinator');
    const chat = collector.spans.find((span) => span.name === 'chat claude-test');
    expect(turn, `spans received: ${collector.spans.map((span) => span.name).join(', ')}`).toBeDefined();
    expect(turn!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'coordinator',
      'gen_ai.conversation.id': report.conversationId,
      'legion.session.id': report.sessionId,
    });
    expect(turn!.parentSpanId).toBeUndefined();
    expect(turn!.scope).toBe('@legion-collective/core');
    expect(turn!.resource).toMatchObject({ 'service.name': 'legion', 'deployment.environment.name': 'test' });
    expect(chat!.attributes).toMatchObject({
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-test',
      'gen_ai.usage.input_tokens': 80,
      'gen_ai.usage.output_tokens': 30,
    });
    expect(chat!.traceId).toBe(turn!.traceId);
    expect(chat!.parentSpanId).toBe(turn!.spanId);
    // The Anthropic SDK's own span of the API call nests under the model call (legion registers a context manager).
    const sdkSpans = collector.spans.filter((span) => span.scope.startsWith('com.anthropic'));
    expect(sdkSpans.length, `spans received: ${collector.spans.map((span) => `${span.scope}: ${span.name}`).join(', ')}`).toBeGreaterThan(
      0,
    );
    for (const span of sdkSpans) expect([span.traceId, span.parentSpanId]).toEqual([turn!.traceId, chat!.spanId]);
    // No content by default.
    expect(JSON.stringify(collector.spans)).not.toMatch(/Hello|Hi there/);
  }, 120_000);

  it('legion mcp serve sends its spans when stopped with SIGTERM, before it exits', async () => {
    collector = await startOtlpCollector();
    workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    mock.on({ userMessage: 'Hello' }, { content: 'Hi there.' });
    const served = await serveMcpHttp(workspace.dir, { ...process.env, ...workspace.env(), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
    const { client } = mcpClient();
    try {
      await connectHttp(client, served);
      const result = await client.callTool({ name: 'ask_coordinator', arguments: { message: 'Hello' } }, { timeout: PROCESS_LIMIT_MS });
      expect(result.structuredContent).toMatchObject({ status: 'success' });
    } finally {
      await client.close();
    }

    served.child.kill('SIGTERM');
    expect(await served.exited, served.stderr()).toBe(0);

    // The batch had not gone out yet (its delay is 5 s): the signal's shutdown sent it.
    expect(collector.spans.map((span) => span.name)).toEqual(expect.arrayContaining(['invoke_agent coordinator', 'chat claude-test']));
  }, 120_000);

  it.skipIf(TMUX_MISSING)(
    'the REPL sends its spans when killed with SIGTERM (it has no stop of its own), then ends by that signal',
    async () => {
      collector = await startOtlpCollector();
      workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
      mock.on({ userMessage: 'Hello' }, { content: 'Hi there.' });
      const terminal = new TmuxTerminal(workspace.dir, 'otel');
      try {
        const variables = Object.entries({ ...workspace.env(), OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }).map(
          ([name, value]) => `${name}=${value}`,
        );
        terminal.start(`${['env', ...variables, process.execPath, LEGION].map(shellQuote).join(' ')}; echo "[legion exited: $?]"`);
        await terminal.waitFor('/help for commands');
        terminal.type('Hello');
        await terminal.waitFor('Hi there.');
        // The pane's shell runs legion as its child.
        const shell = spawnSync('tmux', ['-S', `${workspace.dir}/otel.sock`, 'display', '-p', '-t', 'main', '#{pane_pid}'], {
          encoding: 'utf8',
        }).stdout.trim();
        const pid = Number(spawnSync('pgrep', ['-P', shell], { encoding: 'utf8' }).stdout.trim());
        expect(pid).toBeGreaterThan(0);

        process.kill(pid, 'SIGTERM');
        await terminal.waitFor('[legion exited: 143]');

        expect(collector.spans.map((span) => span.name)).toEqual(expect.arrayContaining(['invoke_agent coordinator', 'chat claude-test']));
      } finally {
        terminal.kill();
      }
    },
    120_000,
  );
});
