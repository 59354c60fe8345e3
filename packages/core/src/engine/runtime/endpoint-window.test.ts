import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParticipantInput } from '../../team/collective/participant.js';
import { SUMMARY_SYSTEM_MARK } from '../../model/context/compaction-summary.js';
import { endpointWindow, forgetEndpointWindows, learnEndpointWindow } from '../../model/providers/endpoint-probe.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/test-collective.js';
import {
  startWindowLimitedServer,
  type WindowLimitedRequest,
  type WindowLimitedServer,
  type WindowLimitedServerOptions,
} from '../../testing/window-limited-server.js';

const STEPS = 80;
const isSummary = (body: Record<string, unknown>): boolean => JSON.stringify(body['system'] ?? '').includes(SUMMARY_SYSTEM_MARK);

function chunk(index: number): string {
  const lines: string[] = [];
  for (let line = 0; lines.join('\n').length < 4_000; line++) lines.push(`chunk ${index} line ${line}: job ${index * 100 + line} moved.`);
  return lines.join('\n');
}

/** An Ollama server as it describes a model served with a 4k num_ctx (its `/api/show`, `/api/tags` and OpenAI-compatible list). */
const ollamaRoutes = (model: string): WindowLimitedServerOptions['routes'] => ({
  'GET /v1/models': () => ({ status: 200, body: { object: 'list', data: [{ id: model, object: 'model', owned_by: 'library' }] } }),
  'GET /api/tags': () => ({ status: 200, body: { models: [{ name: model, model }] } }),
  'POST /api/show': (body) =>
    (body as { model?: string } | undefined)?.model === model
      ? {
          status: 200,
          body: { parameters: 'num_ctx                        4096\nstop "<|im_end|>"', model_info: { 'tinyarch.context_length': 32_768 } },
        }
      : { status: 404, body: { error: `model '${(body as { model?: string } | undefined)?.model}' not found` } },
});

/** vLLM's `/v1/models`: the served model with its `max_model_len`. */
const vllmRoutes = (model: string): WindowLimitedServerOptions['routes'] => ({
  'GET /v1/models': () => ({
    status: 200,
    body: { object: 'list', data: [{ id: model, object: 'model', owned_by: 'vllm', root: model, max_model_len: 4_096 }] },
  }),
});

describe('the window an endpoint reports, with no window set anywhere', () => {
  let server: WindowLimitedServer;
  let test: TestLegion | undefined;
  beforeEach(() => forgetEndpointWindows());
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
    await server.close();
  });

  const cases = [
    { name: 'Ollama (/api/show num_ctx)', provider: 'ollama', model: 'tiny-llm:1b', routes: ollamaRoutes('tiny-llm:1b') },
    { name: 'vLLM (/v1/models max_model_len)', provider: 'vllm', model: 'acme/tiny-instruct', routes: vllmRoutes('acme/tiny-instruct') },
  ];
  for (const { name, provider, model, routes } of cases) {
    it(`${name}: an ${STEPS}-step task runs with no request over the 4,096 tokens the server says`, async () => {
      let step = 0;
      server = await startWindowLimitedServer({
        window: 4_096,
        routes,
        respond: (request: WindowLimitedRequest) => {
          if (isSummary(request.body)) return { text: `Summary: reading the chunks in order; read up to chunk ${step - 1}.` };
          step++;
          return step <= STEPS ? { toolCalls: [{ name: 'file_read', input: { path: `data/chunk-${step}.txt` } }] } : { text: 'All read.' };
        },
      });
      const worker = {
        ...agentParticipant('worker', { systemPrompt: 'You read files and report.', tools: ['file_read'], delegation: 'none' }),
        model: { provider, model, baseURL: server.openaiURL },
        limits: { maxIterations: STEPS + 5 },
      } as ParticipantInput;
      test = createTestLegion({ participants: [userParticipant(), worker], entryAgent: 'worker', env: keyEnv(server.anthropicURL) });
      mkdirSync(join(test.root, 'data'));
      for (let index = 1; index <= STEPS; index++) writeFileSync(join(test.root, 'data', `chunk-${index}.txt`), chunk(index));
      const session = await test.legion.sessions.create();

      const result = await test.legion.send(session, 'Read every chunk under data/ in order.');

      expect(result).toMatchObject({ status: 'success', reply: 'All read.' });
      expect(server.requests.filter((request) => request.rejected)).toEqual([]);
      expect(server.requests.filter((request) => !isSummary(request.body))).toHaveLength(STEPS + 1);
      for (const request of server.requests) expect(request.tokens).toBeLessThanOrEqual(4_096);
      // Asked once, before the first request, not at every step.
      expect(server.asked.filter((route) => route === 'GET /v1/models')).toHaveLength(1);
      const report = await test.legion.contextReport('worker');
      expect(report).toMatchObject({ windowSource: 'endpoint', settings: { window: 4_096 } });
    }, 120_000);
  }

  it('asks again, in the background, once the answer is old, and again at once when the environment names another endpoint', async () => {
    let numCtx = 4_096;
    const routes = (model: string): WindowLimitedServerOptions['routes'] => ({
      'GET /v1/models': () => ({ status: 200, body: { data: [{ id: model }] } }),
      'POST /api/show': () => ({ status: 200, body: { parameters: `num_ctx ${numCtx}` } }),
    });
    server = await startWindowLimitedServer({ window: 100_000, routes: routes('tiny'), respond: () => ({ text: 'hi' }) });
    const other = await startWindowLimitedServer({ window: 100_000, routes: routes('tiny'), respond: () => ({ text: 'hi' }) });
    try {
      const model = { provider: 'openai-compatible', model: 'tiny' };
      const envFor = (url: string) => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: url });
      const providers = { 'openai-compatible': { baseURL: server.openaiURL } };
      await learnEndpointWindow(model, providers, {}, 5_000);
      expect(endpointWindow(model, providers)).toBe(4_096);
      numCtx = 8_192;
      // Fresh: not asked again.
      await learnEndpointWindow(model, providers, {}, 5_000);
      expect(server.asked.filter((route) => route === 'POST /api/show')).toHaveLength(1);
      // Old: the turn goes on with 4,096, and the new answer comes in behind it.
      await learnEndpointWindow(model, providers, {}, 5_000, 0);
      expect(endpointWindow(model, providers)).toBe(4_096);
      await vi.waitFor(() => expect(endpointWindow(model, providers)).toBe(8_192));
      // The same key, another endpoint named by the environment (no baseURL configured): asked before the turn goes on.
      const viaEnv = { provider: 'openai', model: 'tiny' };
      await learnEndpointWindow(viaEnv, {}, envFor(server.openaiURL), 5_000);
      numCtx = 2_048;
      await learnEndpointWindow(viaEnv, {}, envFor(other.openaiURL), 5_000);
      expect(endpointWindow(viaEnv, {})).toBe(2_048);
      expect(other.asked).toContain('POST /api/show');
    } finally {
      await other.close();
    }
  });
});

describe('a window nobody knows', () => {
  it('is said once per model on the first turn, with the fix, and not for a model whose endpoint reports its window', async () => {
    const server = await startWindowLimitedServer({
      window: 100_000,
      routes: {
        // An OpenAI-compatible server that lists its models without their windows.
        'GET /v1/models': () => ({ status: 200, body: { object: 'list', data: [{ id: 'acme-7b' }, { id: 'tiny-llm:1b' }] } }),
        'POST /api/show': (body) =>
          (body as { model?: string } | undefined)?.model === 'tiny-llm:1b'
            ? { status: 200, body: { parameters: 'num_ctx 4096' } }
            : { status: 404, body: { error: 'not found' } },
      },
      respond: () => ({ text: 'Done.' }),
    });
    const test = createTestLegion({
      participants: [
        userParticipant(),
        { ...agentParticipant('guessed', { tools: 'none' }), model: { provider: 'vllm', model: 'acme-7b', baseURL: server.openaiURL } },
        {
          ...agentParticipant('reported', { tools: 'none' }),
          model: { provider: 'ollama', model: 'tiny-llm:1b', baseURL: server.openaiURL },
        },
      ] as ParticipantInput[],
      entryAgent: 'guessed',
      env: keyEnv(server.anthropicURL),
    });
    try {
      forgetEndpointWindows();
      const said: Array<{ participantId: string; model: string; window: number; text: string }> = [];
      test.legion.events.on('window:guessed', (event) => said.push(event));
      const session = await test.legion.sessions.create();
      for (const to of ['guessed', 'guessed', 'reported', 'reported'])
        expect(await test.legion.send(session, 'Hello.', { to })).toMatchObject({ status: 'success' });

      expect(said).toHaveLength(1);
      expect(said[0]).toMatchObject({ participantId: 'guessed', model: 'acme-7b', window: 8_192 });
      expect(said[0]?.text).toContain('"models": { "vllm/acme-7b": { "window": <tokens> } }');
    } finally {
      await test.cleanup();
      await server.close();
    }
  });
});
