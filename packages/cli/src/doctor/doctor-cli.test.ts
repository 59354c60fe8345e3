import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DoctorReportSchema, type DoctorReport } from './doctor-report.js';
import { runLegion } from '../legion-process.test-support.js';

// `legion doctor` through the built binary, as a user or a CI script runs it.
const require = createRequire(import.meta.url);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function legion(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const base = { ...process.env };
  // The machine's own keys must not make a test pass or fail.
  for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL']) delete base[name];
  return runLegion(args, { cwd, env: { ...base, NO_COLOR: '1', XDG_CONFIG_HOME: join(cwd, '.xdg'), ...env } });
}

/** The bin of an MCP server package from npm, run with this Node (no npx, no network). */
function serverBin(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0]!;
  return join(dirname(manifestPath), bin);
}

let dir: string;
/** A local Anthropic endpoint that counts what reaches it: the doctor must send nothing. */
let endpoint: Server;
let requests: number;
let endpointUrl: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'legion-doctor-'));
  requests = 0;
  endpoint = createServer((_request, response) => {
    requests++;
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  const address = endpoint.address();
  endpointUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterEach(async () => {
  await new Promise<void>((resolve) => endpoint.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

async function init(): Promise<void> {
  expect((await legion(['init'], dir)).status).toBe(0);
}

function setConfig(extra: Record<string, unknown>): void {
  const path = join(dir, '.legion/config.json');
  writeFileSync(path, JSON.stringify({ ...(JSON.parse(readFileSync(path, 'utf8')) as object), ...extra }));
}

async function doctor(env: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<{ run: Run; report: DoctorReport }> {
  const run = await legion(['doctor', '--json', ...args], dir, { ANTHROPIC_BASE_URL: endpointUrl, ...env });
  return { run, report: DoctorReportSchema.parse(JSON.parse(run.stdout)) };
}

const check = (report: DoctorReport, name: string) => report.checks.find((entry) => entry.name === name);

describe('legion doctor', () => {
  it('passes a healthy workspace, starts its MCP server and lists the tools, and calls no model', async () => {
    await init();
    setConfig({
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [serverBin('@modelcontextprotocol/server-memory')],
          env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        },
      },
    });
    const { run, report } = await doctor({ ANTHROPIC_API_KEY: 'test-key-not-sent-anywhere' });
    expect(run.status, run.stderr).toBe(0);
    expect(report.success).toBe(true);
    expect(report.summary).toEqual({ passed: report.checks.length, failed: 0, skipped: 0 });
    expect(report.workspace).toBe(dir);
    const categories = new Set(report.checks.map((entry) => entry.category));
    expect([...categories].sort()).toEqual(['config', 'context', 'mcp', 'node', 'participants', 'providers', 'tools', 'workspace']);
    for (const agent of ['coordinator', 'developer', 'reviewer']) {
      expect(check(report, `agent ${agent}: anthropic/claude-sonnet-4-6`)).toMatchObject({
        status: 'passed',
        detail: expect.stringContaining('$ANTHROPIC_API_KEY'),
      });
      // Offline by default, and it says so: "All good" is not "the endpoint is up".
      expect(check(report, `agent ${agent}: anthropic/claude-sonnet-4-6`)?.detail).toContain('endpoint not contacted (use --probe)');
    }
    expect(check(report, 'participant .legion/collective/participants/developer.json')?.status).toBe('passed');
    expect(check(report, 'MCP server memory')).toMatchObject({ status: 'passed', detail: expect.stringContaining('create_entities') });
    // A server of the 2025 revisions (the SDK 1.x it is built on knows no newer): the client fell back to initialize.
    expect(check(report, 'MCP server memory')?.detail).toMatch(/^started \(MCP 2025-11-25\) and listed/);
    expect(run.stderr).toMatch(/^✔ MCP server memory/m);
    expect(run.stderr).not.toContain('✘');
    expect(requests).toBe(0);
  });

  it("reports per agent its tool definitions' tokens and share of the window, and warns of an unknown model and of tools over the budget", async () => {
    await init();
    const developer = join(dir, '.legion/collective/participants/developer.json');
    // Whole tool schemas (no compact ones): the 32 built-in definitions overflow the small profile an unknown model gets.
    writeFileSync(
      developer,
      JSON.stringify({
        ...JSON.parse(readFileSync(developer, 'utf8')),
        model: { provider: 'openai-compatible', model: 'my-finetune', baseURL: endpointUrl },
        context: { toolSchemas: 'full' },
      }),
    );
    const reviewer = join(dir, '.legion/collective/participants/reviewer.json');
    writeFileSync(reviewer, JSON.stringify({ ...JSON.parse(readFileSync(reviewer, 'utf8')), tools: ['file_read'] }));
    const { run, report } = await doctor({ ANTHROPIC_API_KEY: 'test-key' });
    expect(run.status, run.stderr).toBe(0);

    const known = check(report, 'context coordinator: anthropic/claude-sonnet-4-6');
    expect(known).toMatchObject({
      category: 'context',
      status: 'passed',
      detail: expect.stringMatching(
        /^tool definitions \d+ tokens \(\d+ tools, \d+\.\d% of the 1000000-token window, from the bundled catalogue\), system prompt \d+; profile cloud, compaction at 955000$/,
      ),
    });
    expect(known?.warning).toBeUndefined();
    expect(check(report, 'context reviewer: anthropic/claude-sonnet-4-6')?.detail).toMatch(/^tool definitions \d+ tokens \(1 tools, /);
    // An unknown model: a guessed 8k window, so the small profile, which all the built-in tool definitions overflow.
    const unknown = check(report, 'context developer: openai-compatible/my-finetune');
    expect(unknown).toMatchObject({
      status: 'passed',
      detail: expect.stringContaining('of the 8192-token window, a default: the model is unknown'),
    });
    expect(unknown?.warning).toMatch(/the model openai-compatible\/my-finetune is not in the model table.*"models": \{ "my-finetune"/);
    expect(unknown?.warning).toMatch(
      /tool definitions alone take \d+ tokens, \d+% of the 8192-token window, more than the small profile's budget of 5200 tokens/,
    );
    expect(run.stderr).toMatch(/^✔ context developer: openai-compatible\/my-finetune — .*\n {4}warning: developer: the model/m);
    expect(requests).toBe(0);
  });

  it('reports a broken participant file by file, field and fix, and still checks the rest', async () => {
    await init();
    const broken = join(dir, '.legion/collective/participants/reviewer.json');
    const content = '{ "id": "reviewer", "type": "robot", "name": "Reviewer" }';
    writeFileSync(broken, content);
    const { run, report } = await doctor({ ANTHROPIC_API_KEY: 'test-key' });
    expect(run.status).toBe(1);
    expect(report.success).toBe(false);
    expect(report.summary.failed).toBe(1);
    expect(check(report, 'participant .legion/collective/participants/reviewer.json')).toMatchObject({
      status: 'failed',
      file: '.legion/collective/participants/reviewer.json',
      error: expect.stringMatching(/"type".*agent.*user.*mock/),
      fix: expect.stringContaining('"type"'),
    });
    // The other files and the other agents' keys are still checked.
    expect(check(report, 'participant .legion/collective/participants/developer.json')?.status).toBe('passed');
    expect(check(report, 'agent developer: anthropic/claude-sonnet-4-6')?.status).toBe('passed');
    expect(run.stderr).toMatch(/^✘ participant \.legion\/collective\/participants\/reviewer\.json — .*"type"/m);
    expect(run.stderr).toMatch(/^ {4}fix: /m);
    expect(readFileSync(broken, 'utf8')).toBe(content);
  });

  it('reports a missing key for each agent that needs it, naming the variable and the global config', async () => {
    await init();
    const { run, report } = await doctor();
    expect(run.status).toBe(1);
    const failed = report.checks.filter((entry) => entry.status === 'failed');
    expect(failed.map((entry) => entry.name).sort()).toEqual([
      'agent coordinator: anthropic/claude-sonnet-4-6',
      'agent developer: anthropic/claude-sonnet-4-6',
      'agent reviewer: anthropic/claude-sonnet-4-6',
    ]);
    for (const entry of failed) {
      expect(entry.error).toBe('no API key is set');
      expect(entry.fix).toContain('ANTHROPIC_API_KEY');
      expect(entry.fix).toContain(join(dir, '.xdg/legion/config.json'));
    }
    expect(report.summary).toMatchObject({ failed: 3 });
    expect(requests).toBe(0);
  });

  it('says which config price was written for the prefix matching that is gone, and how to keep it', async () => {
    await init();
    // The agents use claude-sonnet-4-6: a key that is only its prefix no longer prices it; an exact key and a glob do.
    setConfig({
      pricing: {
        'claude-sonnet': { input: 3, output: 15 },
        'claude-sonnet-4-6': { input: 3, output: 15 },
        'gpt-5*': { input: 1, output: 1 },
      },
    });
    const { run, report } = await doctor({ ANTHROPIC_API_KEY: 'test-key' });
    expect(run.status).toBe(1);
    expect(check(report, 'pricing')).toMatchObject({
      status: 'failed',
      error:
        'prices are matched by exact model id now, not by prefix: pricing["claude-sonnet"] no longer prices claude-sonnet-4-6, whose cost is unknown unless the list has it',
      fix: expect.stringContaining('"claude-sonnet*"'),
    });
    setConfig({ pricing: { 'claude-sonnet*': { input: 3, output: 15 } } });
    expect(check((await doctor({ ANTHROPIC_API_KEY: 'test-key' })).report, 'pricing')?.status).toBe('passed');
  });

  it('names the agents whose calls a cost budget cannot count, and passes once they are priced', async () => {
    await init();
    // The agents' claude-sonnet-4-6 has a list price; a developer on an unknown model has none.
    const developer = join(dir, '.legion/collective/participants/developer.json');
    writeFileSync(
      developer,
      JSON.stringify({
        ...(JSON.parse(readFileSync(developer, 'utf8')) as object),
        model: { provider: 'anthropic', model: 'claude-next' },
      }),
    );
    setConfig({ limits: { maxSessionCostUsd: 5 } });
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: '' };
    expect(check((await doctor(env)).report, 'session budget $5')).toMatchObject({
      status: 'failed',
      error:
        'no known price for developer (anthropic/claude-next): their calls add nothing to the cost, so limits.maxSessionCostUsd does not bound them',
      fix: expect.stringContaining('limits.maxSessionTokens'),
    });
    setConfig({ limits: { maxSessionCostUsd: 5 }, pricing: { 'claude-next': { input: 3, output: 15 } } });
    expect(check((await doctor(env)).report, 'session budget $5')).toMatchObject({ status: 'passed' });
    expect(requests).toBe(0);
  });

  it('reports an MCP server that fails to start with its stderr, and one that hangs within the timeout', async () => {
    await init();
    setConfig({
      mcpServers: {
        broken: { command: process.execPath, args: ['-e', 'console.error("missing GITHUB_TOKEN"); process.exit(3)'] },
        silent: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
        memory: {
          command: process.execPath,
          args: [serverBin('@modelcontextprotocol/server-memory')],
          env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        },
      },
    });
    // 10 s: the memory server must start and answer within it on a loaded 2-core machine (3 s was not always enough).
    const { run, report } = await doctor({ ANTHROPIC_API_KEY: 'test-key' }, ['--timeout', '10000']);
    expect(run.status).toBe(1);
    expect(check(report, 'MCP server broken')).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('missing GITHUB_TOKEN'),
      fix: expect.stringContaining('mcpServers.broken'),
    });
    expect(check(report, 'MCP server silent')).toMatchObject({ status: 'failed', error: expect.stringContaining('within 10000 ms') });
    expect(check(report, 'MCP server memory')?.status).toBe('passed');
    expect(report.summary.failed).toBe(2);
    expect(run.stderr).toMatch(/^✘ MCP server broken — .*missing GITHUB_TOKEN/m);
  }, 60_000);

  it('warns of an MCP server whose tools are too large for every request, naming the tools', async () => {
    await init();
    const oversized = fileURLToPath(
      new URL('../../../core/src/tools/providers/mcp/__fixtures__/oversized-tools-server.mjs', import.meta.url),
    );
    setConfig({ mcpServers: { big: { command: process.execPath, args: [oversized] } } });
    const { report } = await doctor({ ANTHROPIC_API_KEY: 'test-key' }, ['--timeout', '10000']);
    const big = check(report, 'MCP server big');
    expect(big).toMatchObject({
      status: 'passed',
      warning: expect.stringContaining('the description of "manual" is 1062018 characters; models get its first'),
    });
    expect(big?.warning).toContain('the input schema of "huge_schema"');
    expect(big?.warning).toContain('it offers more than 256 tools');
  }, 60_000);

  it('says how to start when there is no workspace', async () => {
    const { run, report } = await doctor();
    expect(run.status).toBe(1);
    expect(report.workspace).toBeNull();
    expect(check(report, 'workspace')).toMatchObject({ status: 'failed', fix: expect.stringContaining('legion init') });
  });
});

describe('legion doctor --probe', () => {
  /** An Ollama-shaped server (its OpenAI-compatible model list and `/api/show`) and a vLLM-shaped one that wants a key. */
  let servers: Server[] = [];
  const serve = async (
    answer: (method: string, path: string, body: string, key: string | undefined) => [number, unknown],
  ): Promise<string> => {
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const [status, json] = answer(request.method ?? 'GET', request.url ?? '', body, request.headers.authorization);
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  };
  afterEach(async () => {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    servers = [];
  });
  const useModel = (agent: string, model: Record<string, unknown>): void => {
    const file = join(dir, `.legion/collective/participants/${agent}.json`);
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model }));
  };

  it('contacts each endpoint: the window it reports, a refused key, an unknown model, and exit 1 naming the endpoint that is down', async () => {
    await init();
    const ollama = await serve((method, path, body) => {
      if (method === 'GET' && path === '/v1/models') return [200, { object: 'list', data: [{ id: 'tiny-llm:1b', object: 'model' }] }];
      if (method === 'POST' && path === '/api/show' && (JSON.parse(body) as { model: string }).model === 'tiny-llm:1b')
        return [200, { parameters: 'num_ctx 4096', model_info: { 'llama.context_length': 131072 } }];
      return [404, { error: 'not found' }];
    });
    const vllm = await serve((method, path, _body, key) => {
      if (key !== 'Bearer right-key') return [401, { error: { message: 'Invalid API key: wrong-key', type: 'auth_error' } }];
      if (method === 'GET' && path === '/v1/models') return [200, { object: 'list', data: [{ id: 'acme/tiny', max_model_len: 8192 }] }];
      return [404, { error: 'not found' }];
    });
    // Nothing listens where the coordinator's Anthropic endpoint points.
    const down = await serve(() => [200, {}]);
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    useModel('developer', { provider: 'ollama', model: 'tiny-llm:1b', baseURL: `${ollama}/v1` });
    // A key goes only to its provider's endpoint: the global config names the vLLM server.
    mkdirSync(join(dir, '.xdg/legion'), { recursive: true });
    writeFileSync(join(dir, '.xdg/legion/config.json'), JSON.stringify({ providers: { vllm: { baseURL: `${vllm}/v1` } } }));
    useModel('reviewer', { provider: 'vllm', model: 'acme/tiny' });
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: down, VLLM_API_KEY: 'wrong-key' };

    const offline = await doctor(env);
    expect(offline.run.status, offline.run.stderr).toBe(0);
    expect(offline.report.checks.filter((entry) => entry.name.startsWith('endpoint '))).toEqual([]);

    const { run, report } = await doctor(env, ['--probe']);
    expect(run.status).toBe(1);
    expect(check(report, `endpoint ollama/tiny-llm:1b at ${ollama}/v1 (developer)`)).toMatchObject({
      status: 'passed',
      detail: expect.stringMatching(/lists 1 model, this one among them; reports a 4096-token window \(.*\/api\/show num_ctx\)/),
    });
    expect(check(report, `endpoint vllm/acme/tiny at ${vllm}/v1 (reviewer)`)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^wrong-key: .*Invalid API key: wrong-key/),
      fix: expect.stringContaining('VLLM_API_KEY'),
    });
    expect(check(report, `endpoint anthropic/claude-sonnet-4-6 at ${down} (coordinator)`)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^unreachable: cannot connect to .*ECONNREFUSED/),
      fix: expect.stringContaining('Start the model server'),
    });
    expect(run.stderr).toContain(`✘ endpoint anthropic/claude-sonnet-4-6 at ${down} (coordinator) — unreachable`);

    useModel('reviewer', { provider: 'vllm', model: 'acme/huge' });
    const unknown = await doctor({ ...env, VLLM_API_KEY: 'right-key' }, ['--probe']);
    expect(check(unknown.report, `endpoint vllm/acme/huge at ${vllm}/v1 (reviewer)`)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('does not serve the model "acme/huge"'),
      fix: expect.stringContaining('acme/tiny'),
    });
  });
});

describe('legion doctor names how commands are contained', () => {
  it('says the containment in use, and warns when it is the weaker one', async () => {
    await init();
    const named = (report: DoctorReport): DoctorReport['checks'][number] | undefined =>
      report.checks.find((check) => check.name === 'command containment');
    const forced = DoctorReportSchema.parse(
      JSON.parse((await legion(['doctor', '--json'], dir, { LEGION_CONTAINMENT: 'process-group' })).stdout),
    );
    expect(named(forced)).toMatchObject({
      category: 'tools',
      status: 'passed',
      detail: expect.stringMatching(/^process-group(\+environment)?: LEGION_CONTAINMENT=process-group/),
      warning: expect.stringContaining('unset LEGION_CONTAINMENT'),
    });
    const chosen = DoctorReportSchema.parse(JSON.parse((await legion(['doctor', '--json'], dir, { LEGION_CONTAINMENT: '' })).stdout));
    // Whichever this machine has; with bubblewrap it is the PID namespace, and nothing to warn about.
    const check = named(chosen)!;
    expect(check.detail).toMatch(/^(pid-namespace|process-group\+environment|process-group): /);
    if (check.detail!.startsWith('pid-namespace')) expect(check.warning).toBeUndefined();
    else expect(check.warning).toContain('can escape it');
  });
});

describe('legion doctor says whether commands run sandboxed here', () => {
  const named = (report: DoctorReport): DoctorReport['checks'][number] | undefined =>
    report.checks.find((check) => check.name === 'command sandbox');
  const setSandbox = (mode: string): void => {
    const file = join(dir, '.legion', 'config.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), sandbox: mode }, null, 2));
  };

  it('fails "required" on a machine where bubblewrap cannot run, saying why and how to fix it', async () => {
    await init();
    setSandbox('required');
    const run = await legion(['doctor', '--json'], dir, { LEGION_BWRAP: join(dir, 'no-bwrap-here') });
    expect(named(DoctorReportSchema.parse(JSON.parse(run.stdout)))).toMatchObject({
      category: 'tools',
      status: 'failed',
      error: expect.stringMatching(
        /^"sandbox" is "required", and the sandbox cannot work here \(LEGION_BWRAP=.*no-bwrap-here is not an executable file\)/,
      ),
      fix: expect.stringContaining('install bubblewrap'),
    });
    expect(run.status).not.toBe(0);

    setSandbox('on');
    const on = DoctorReportSchema.parse(
      JSON.parse((await legion(['doctor', '--json'], dir, { LEGION_BWRAP: join(dir, 'no-bwrap-here') })).stdout),
    );
    expect(named(on)).toMatchObject({
      status: 'passed',
      detail: expect.stringContaining('commands run unsandboxed'),
      warning: expect.stringContaining('install bubblewrap'),
    });
  });

  it('reports the sandbox this machine has, tried for real', async () => {
    await init();
    const check = named(DoctorReportSchema.parse(JSON.parse((await legion(['doctor', '--json'], dir)).stdout)))!;
    // Whichever this machine has: with bubblewrap and user namespaces, the confinement; else why not.
    if (check.warning === undefined)
      expect(check.detail).toBe('bubblewrap, "on": writes only inside the workspace (not .legion/), secrets\' folders hidden, no network');
    else expect(check.detail).toMatch(/^"sandbox" is "on", but the sandbox cannot work here \(.+\): commands run unsandboxed$/);
  });

  it('names the hosts an allow-list lets commands reach', async () => {
    await init();
    const file = join(dir, '.legion', 'config.json');
    const allow = { allow: ['registry.npmjs.org', '*.github.com'] };
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), sandboxNetwork: allow }, null, 2));
    const check = named(DoctorReportSchema.parse(JSON.parse((await legion(['doctor', '--json'], dir)).stdout)))!;
    if (check.warning === undefined)
      expect(check.detail).toBe(
        'bubblewrap, "on": writes only inside the workspace (not .legion/), secrets\' folders hidden, ' +
          "network only to registry.npmjs.org, *.github.com (HTTP and HTTPS, through Legion's proxy)",
      );
    else expect(check.detail).toContain('commands run unsandboxed');
  });
});
