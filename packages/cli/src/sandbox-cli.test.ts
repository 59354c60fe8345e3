import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LLMock } from '@copilotkit/aimock';
import { BWRAP_VARIABLE, sandboxSupport } from '@legion-collective/core/management';

// The OS sandbox as a user meets it: real `legion run` processes, their model scripted through
// aimock and the real Anthropic SDK, an `auto` rule for shell_run so that nothing asks first.
// Commands that write outside the workspace, read a hidden secret or reach a server on 127.0.0.1
// fail; one that writes inside the workspace works. Where the sandbox cannot work, `required`
// refuses every command and says why (forced here with LEGION_BWRAP pointing at nothing).
const LEGION = fileURLToPath(new URL('../dist/legion.js', import.meta.url));
const PROCESS_LIMIT_MS = 45_000;
const support = sandboxSupport();

describe('commands agents write run in the sandbox', () => {
  let mock: LLMock;
  let dir: string;
  let home: string;
  let server: Server;
  let reached: number;
  let port: number;
  /** A file of the host outside /tmp (the command's own) and outside the workspace: an escaped command could write it. */
  const hostFile = fileURLToPath(new URL(`./sandbox-escape-${process.pid}.txt`, import.meta.url));

  beforeAll(async () => {
    mock = new LLMock({ port: 0, host: '127.0.0.1' });
    await mock.start();
    server = createServer((_request, response) => {
      reached++;
      response.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await mock.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(async () => {
    reached = 0;
    dir = mkdtempSync(join(tmpdir(), 'legion-sandbox-'));
    home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY 0123456789');
    const workspace = join(dir, 'workspace');
    mkdirSync(workspace);
    const init = spawn(process.execPath, [LEGION, 'init'], { cwd: workspace, env: env(), stdio: 'ignore' });
    await new Promise((resolve) => init.once('close', resolve));
    const participant = join(workspace, '.legion/collective/participants/coordinator.json');
    editJson(participant, (current) => ({ ...current, model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url } }));
    editJson(join(workspace, '.legion/config.json'), (current) => ({ ...current, policies: { shell_run: 'auto' } }));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(hostFile, { force: true });
    mock.clearFixtures();
    mock.clearRequests();
    mock.resetMatchCounts();
  });

  const workspaceOf = (): string => join(dir, 'workspace');

  function editJson(file: string, edit: (current: Record<string, unknown>) => Record<string, unknown>): void {
    writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), null, 2));
  }

  function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    const base = { ...process.env };
    delete base[BWRAP_VARIABLE];
    delete base.LEGION_CONTAINMENT;
    return {
      ...base,
      NO_COLOR: '1',
      HOME: home,
      XDG_CONFIG_HOME: join(dir, '.xdg'),
      ANTHROPIC_API_KEY: 'test',
      ANTHROPIC_BASE_URL: mock.url,
      ...extra,
    };
  }

  /** The model runs each command in turn, each once the previous one's result is in, then says `done`. */
  function script(userMessage: string, commands: string[]): void {
    commands.forEach((command, index) => {
      const toolCalls = [{ id: `toolu_${index}`, name: 'shell_run', arguments: JSON.stringify({ command }) }];
      mock.on(
        index === 0
          ? { model: 'claude-test', userMessage, hasToolResult: false }
          : { model: 'claude-test', userMessage, toolCallId: `toolu_${index - 1}` },
        { toolCalls },
      );
    });
    mock.on({ model: 'claude-test', userMessage, toolCallId: `toolu_${commands.length - 1}` }, { content: 'done' });
  }

  function legionRun(message: string, extra: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stderr: string }> {
    // A session each: a run paused on an approval would otherwise hold the next one's conversation.
    const child = spawn(process.execPath, [LEGION, 'run', '--new-session', message], {
      cwd: workspaceOf(),
      env: env(extra),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: PROCESS_LIMIT_MS,
      killSignal: 'SIGKILL',
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    return new Promise((resolve) => child.once('close', (status) => resolve({ status, stderr })));
  }

  /** The text of the tool result the model was sent for a call (aimock shows every provider's request in the chat-completions shape). */
  function toolResult(id: string): string {
    for (const request of mock.getRequests()) {
      const messages = (request.body as { messages?: Array<{ role: string; tool_call_id?: string; content: unknown }> }).messages ?? [];
      const result = messages.find((message) => message.role === 'tool' && message.tool_call_id === id);
      if (result) return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
    }
    throw new Error(`no tool result for ${id}`);
  }

  it.skipIf(!support.works)('writes inside the workspace only, cannot read a hidden secret, and has no network', async () => {
    const fetchIt = `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(console.log, e => { console.error('no connection:', e.cause?.code ?? e.message); process.exit(7); })"`;
    script('Try', [
      `echo escaped > ${hostFile}`,
      `cat ${join(home, '.ssh', 'id_ed25519')} > leaked.txt`,
      fetchIt,
      'echo made > made.txt && cat made.txt',
    ]);
    const run = await legionRun('Try');
    expect(run.status, run.stderr).toBe(0);

    expect(toolResult('toolu_0')).toMatch(/^exit code 2[\s\S]*Read-only file system/);
    expect(existsSync(hostFile)).toBe(false);

    expect(toolResult('toolu_1')).toMatch(/^exit code 1[\s\S]*No such file or directory/);
    expect(readFileSync(join(workspaceOf(), 'leaked.txt'), 'utf8')).toBe('');

    expect(toolResult('toolu_2')).toMatch(/^exit code 7[\s\S]*no connection: ECONNREFUSED/);
    expect(reached).toBe(0);

    expect(toolResult('toolu_3')).toBe('exit code 0\n[stdout]\nmade');
    expect(readFileSync(join(workspaceOf(), 'made.txt'), 'utf8')).toBe('made\n');
  });

  it.skipIf(!support.works)('with an allow-list, reaches the hosts listed through the proxy, and those only', async () => {
    editJson(join(workspaceOf(), '.legion/config.json'), (current) => ({ ...current, sandboxNetwork: { allow: ['localhost'] } }));
    // A client that sends its request to the proxy the environment names (Node's fetch ignores HTTP_PROXY).
    const throughProxy = (url: string): string =>
      `node -e "const proxy = new URL(process.env.HTTP_PROXY); require('node:http').get({ host: proxy.hostname, port: proxy.port, path: '${url}' }, ` +
      `(r) => { let body = ''; r.on('data', (d) => body += d); r.on('end', () => console.log(r.statusCode, body.trim())); })"`;
    const direct = `node -e "require('node:http').get('http://localhost:${port}/', () => console.log('reached')).on('error', (e) => { console.error('no connection:', e.code); process.exit(7); })"`;
    script('Reach', [throughProxy(`http://localhost:${port}/`), throughProxy(`http://127.0.0.1:${port}/`), direct]);
    const run = await legionRun('Reach');
    expect(run.status, run.stderr).toBe(0);

    expect(toolResult('toolu_0')).toBe('exit code 0\n[stdout]\n200 reached');
    expect(toolResult('toolu_1')).toBe('exit code 0\n[stdout]\n403 legion: 127.0.0.1 is not in sandboxNetwork.allow');
    expect(toolResult('toolu_2')).toMatch(/^exit code 7[\s\S]*no connection: ECONNREFUSED/);
    expect(reached).toBe(1);
  });

  it('"required" on a machine without a working sandbox runs no command, and says why and how to fix it', async () => {
    editJson(join(workspaceOf(), '.legion/config.json'), (current) => ({ ...current, sandbox: 'required' }));
    script('Make', ['echo made > made.txt']);
    const run = await legionRun('Make', { [BWRAP_VARIABLE]: join(dir, 'no-bwrap-here') });
    expect(run.status, run.stderr).toBe(0);
    expect(toolResult('toolu_0')).toMatch(
      /^Not run: "sandbox" is "required" and the sandbox cannot work here \(LEGION_BWRAP=.*no-bwrap-here is not an executable file\)\. No command runs unsandboxed while the sandbox is required\. To fix: install bubblewrap/,
    );
    expect(existsSync(join(workspaceOf(), 'made.txt'))).toBe(false);
  });

  it('"on" on such a machine runs commands unsandboxed, as before', async () => {
    script('Escape', [`echo escaped > ${hostFile}`]);
    const run = await legionRun('Escape', { [BWRAP_VARIABLE]: join(dir, 'no-bwrap-here') });
    expect(run.status, run.stderr).toBe(0);
    expect(toolResult('toolu_0')).toBe('exit code 0\n(no output)');
    expect(readFileSync(hostFile, 'utf8')).toBe('escaped\n');
  });

  it('an approval says whether the command will run sandboxed, and why not', async () => {
    // No auto rule: the call asks, and a headless run with nobody to ask pauses on it.
    editJson(join(workspaceOf(), '.legion/config.json'), (current) => ({ ...current, policies: {} }));
    const pending = async (extra: NodeJS.ProcessEnv) => {
      script('Ask', ['make']);
      const run = await legionRun('Ask', extra);
      expect(run.status, run.stderr).toBe(2);
      const listed = spawnSync(process.execPath, [LEGION, 'approvals', '--json'], {
        cwd: workspaceOf(),
        env: env(extra),
        encoding: 'utf8',
      });
      const approvals = (JSON.parse(listed.stdout) as { approvals: Array<{ tool: string; sandbox?: unknown }> }).approvals;
      mock.clearFixtures();
      return { stderr: run.stderr, approval: approvals.at(-1) };
    };
    const without = await pending({ [BWRAP_VARIABLE]: join(dir, 'no-bwrap-here') });
    expect(without.approval).toMatchObject({
      tool: 'shell_run',
      sandbox: { kind: 'unsandboxed', detail: expect.stringMatching(/^the sandbox cannot work here \(LEGION_BWRAP=.*no-bwrap-here/) },
    });
    expect(without.stderr).toContain('[NOT sandboxed: the sandbox cannot work here (LEGION_BWRAP=');
    if (!support.works) return;
    const confined = await pending({});
    expect(confined.approval).toMatchObject({
      tool: 'shell_run',
      sandbox: { kind: 'sandboxed', detail: expect.stringContaining('no network') },
    });
    expect(confined.stderr).toContain('[sandboxed]');
  });
});
