import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname } from 'node:path';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { sandboxSupport, sandboxUse, type SandboxSettings } from '../../child-processes/sandbox.js';
import { closeNetworkProxy, networkProxy } from '../../child-processes/network-proxy.js';
import { createShellRunTool } from './shell-run.js';
import { ProcessRegistry } from './ProcessRegistry.js';
import { createProcessTools } from './process-tools.js';

// `sandboxNetwork: { allow }` through shell_run with bubblewrap: the command has no network of its own,
// and reaches the hosts listed, and those only, through Legion's proxy. The test's server listens on the
// host's 127.0.0.1; `localhost` is the allowed name (the proxy resolves it on the host), any other is not.
const support = sandboxSupport();
const hasCurl = spawnSync('curl', ['--version']).status === 0;

describe.skipIf(!support.works)('the network of sandboxed commands', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let server: Server;
  let port: number;
  const allowLocalhost: SandboxSettings = { mode: 'on', network: { allow: ['localhost'] } };

  beforeAll(async () => {
    server = createServer((request, response) => response.end(`reached ${request.method} ${request.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await closeNetworkProxy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    workspace = tempWorkspace();
  });
  afterEach(() => workspace.cleanup());

  const shellFor = (settings: SandboxSettings) =>
    createShellRunTool({ env: { ...process.env }, killGraceMs: 200, sandbox: () => settings });
  /** A Node client that sends an absolute-form request to the proxy the environment names (Node's fetch ignores HTTP_PROXY). */
  const nodeThroughProxy = (url: string) =>
    `node -e "const proxy = new URL(process.env.HTTP_PROXY); require('node:http').get({ host: proxy.hostname, port: proxy.port, path: '${url}' }, ` +
    `(r) => { let body = ''; r.on('data', (d) => body += d); r.on('end', () => console.log(r.statusCode, body.trim())); })"`;

  it('reaches an allowed host through the proxy, and gets a 403 naming any other', async () => {
    const context = toolContext({ root: workspace.root });
    const shell = shellFor(allowLocalhost);
    expect(successText(await run(shell, { command: nodeThroughProxy(`http://localhost:${port}/allowed?x=1`) }, context))).toContain(
      'reached GET /allowed?x=1',
    );
    // A name not listed is refused before anything is resolved for it (this one does not resolve anywhere).
    expect(successText(await run(shell, { command: nodeThroughProxy(`http://refused.invalid:${port}/`) }, context))).toContain(
      '403 legion: refused.invalid is not in sandboxNetwork.allow',
    );
    // An address is not the name that resolves to it: 127.0.0.1 is the host's, and not listed.
    expect(successText(await run(shell, { command: nodeThroughProxy(`http://127.0.0.1:${port}/`) }, context))).toContain(
      '403 legion: 127.0.0.1 is not in sandboxNetwork.allow',
    );
  });

  it.skipIf(!hasCurl)('curl goes through the proxy (HTTP and CONNECT) and cannot go around it', async () => {
    const context = toolContext({ root: workspace.root });
    const shell = shellFor(allowLocalhost);
    expect(successText(await run(shell, { command: `curl -sS http://localhost:${port}/plain` }, context))).toContain('reached GET /plain');
    // A tunnel, as HTTPS uses: the proxy opens it to the allowed host and passes the bytes through.
    expect(successText(await run(shell, { command: `curl -sS --proxytunnel http://localhost:${port}/tunnel` }, context))).toContain(
      'reached GET /tunnel',
    );
    const refusedTunnel = errorText(
      await run(shell, { command: `curl -sS --proxytunnel -v http://refused.invalid:${port}/ 2>&1` }, context),
    );
    expect(refusedTunnel).toContain('< HTTP/1.1 403 legion: refused.invalid is not in sandboxNetwork.allow');
    // Without the proxy there is no way out: the sandbox's own loopback has nothing listening on the port.
    expect(errorText(await run(shell, { command: `curl -sS --noproxy '*' http://localhost:${port}/` }, context))).toMatch(
      /exit code 7[\s\S]*(Couldn't connect|Failed to connect)/,
    );
  });

  it("a command's own servers stay reachable directly (NO_PROXY names the loopback the list does not)", async () => {
    const context = toolContext({ root: workspace.root });
    const shell = shellFor({ mode: 'on', network: { allow: ['registry.npmjs.org'] } });
    const env = successText(await run(shell, { command: 'echo "$NO_PROXY|$no_proxy|$HTTPS_PROXY"' }, context));
    expect(env).toMatch(/localhost,127\.0\.0\.1,::1\|localhost,127\.0\.0\.1,::1\|http:\/\/127\.0\.0\.1:\d+/);
  });

  it("sees its own list's socket only: not another list's, and with no network none", async () => {
    const context = toolContext({ root: workspace.root });
    const broader = networkProxy().socketFor(['localhost', '*.example.com']);
    const own = networkProxy().socketFor(['localhost']);
    expect(dirname(own)).toBe(dirname(broader));
    expect(successText(await run(shellFor(allowLocalhost), { command: `ls ${dirname(own)}` }, context))).toBe(
      `exit code 0\n[stdout]\n${basename(own)}`,
    );
    expect(errorText(await run(shellFor({ mode: 'on', network: 'off' }), { command: `ls ${dirname(own)}` }, context))).toContain(
      'No such file or directory',
    );
  });

  it('"off" has no network and no proxy', async () => {
    const context = toolContext({ root: workspace.root });
    const shell = shellFor({ mode: 'on', network: 'off' });
    expect(successText(await run(shell, { command: 'echo "[$HTTP_PROXY]"' }, context))).toContain('[]');
    const fetchIt = `node -e "fetch('http://localhost:${port}/').then(() => console.log('reached'), (e) => { console.error('failed:', e.cause?.code); process.exit(7); })"`;
    expect(errorText(await run(shell, { command: fetchIt }, context))).toMatch(/exit code 7[\s\S]*failed: ECONNREFUSED/);
  });

  it('process_start gets the same route, and the approval card names the hosts', async () => {
    const registry = new ProcessRegistry({ env: { ...process.env }, killGraceMs: 200, sandbox: () => allowLocalhost });
    const [start, poll] = createProcessTools(registry);
    const context = toolContext({ root: workspace.root });
    successText(await run(start!, { command: nodeThroughProxy(`http://localhost:${port}/background`) }, context));
    await expect
      .poll(async () => successText(await run(poll!, { id: 'proc-1', wait_ms: 1000 }, context)), { timeout: 10_000 })
      .toContain('reached GET /background');
    await registry.dispose();
    expect(sandboxUse(allowLocalhost)).toEqual({
      kind: 'sandboxed',
      detail:
        "writes only inside the workspace (not .legion/), secrets' folders hidden, network only to localhost (HTTP and HTTPS, through Legion's proxy)",
    });
  });
});
