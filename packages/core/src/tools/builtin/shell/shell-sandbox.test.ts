import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { errorText, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { sandboxSupport, type SandboxSettings } from '../../child-processes/sandbox.js';
import { createShellRunTool } from './shell-run.js';
import { ProcessRegistry } from './ProcessRegistry.js';
import { createProcessTools } from './process-tools.js';

// The OS sandbox through the tools a model calls: what a command may write, read and reach.
// Where bubblewrap cannot make the sandbox (CI without user namespaces), the suite says so and skips;
// the refusal of `required` there is proven through the binary (sandbox-cli.test.ts).
const support = sandboxSupport();

describe.skipIf(!support.works)('shell commands in the sandbox', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let home: string;
  let server: Server;
  let port: number;
  const on: SandboxSettings = { mode: 'on', network: 'off' };

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    workspace = tempWorkspace();
    // A home folder of the test's own: its ~/.ssh holds a key a command must not read.
    home = join(workspace.outside, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY');
    writeFileSync(join(home, '.netrc'), 'machine example.com password hunter2');
    writeFileSync(join(workspace.root, '.legion', 'config.json'), '{}');
  });
  afterEach(() => {
    workspace.cleanup();
    rmSync(hostFile, { force: true });
  });
  /** A file of the host outside /tmp and outside the workspace, where a test may write (and an escaped command would). */
  const hostFile = fileURLToPath(new URL(`./escaped-${process.pid}.txt`, import.meta.url));

  const shellFor = (settings: SandboxSettings) =>
    createShellRunTool({ env: { ...process.env, HOME: home }, killGraceMs: 200, sandbox: () => settings });

  it('writes inside the workspace, and nowhere else: not outside it, not in .legion/', async () => {
    const context = toolContext({ root: workspace.root });
    const shell = shellFor(on);
    expect(successText(await run(shell, { command: 'echo made > inside.txt && cat inside.txt' }, context))).toContain('made');
    expect(readFileSync(join(workspace.root, 'inside.txt'), 'utf8')).toBe('made\n');

    // Outside /tmp (which is the command's own, in memory): a folder of the host that the test may write.
    expect(errorText(await run(shell, { command: `echo out > ${hostFile}` }, context))).toContain('Read-only file system');
    expect(existsSync(hostFile)).toBe(false);
    // In /tmp, the command writes its private /tmp: the host's stays as it was.
    const inTmp = join(workspace.outside, 'escaped.txt');
    await run(shell, { command: `mkdir -p ${workspace.outside} && echo out > ${inTmp}` }, context);
    expect(existsSync(inTmp)).toBe(false);

    expect(errorText(await run(shell, { command: 'echo "{}" > .legion/config.json.new' }, context))).toContain('Read-only file system');
    expect(existsSync(join(workspace.root, '.legion', 'config.json.new'))).toBe(false);
  });

  it("hides the secrets' folders and files of the home folder", async () => {
    const context = toolContext({ root: workspace.root });
    const shell = shellFor(on);
    expect(errorText(await run(shell, { command: `cat ${join(home, '.ssh', 'id_ed25519')}` }, context))).toContain('No such file');
    // A hidden file reads as empty.
    expect(successText(await run(shell, { command: `cat ${join(home, '.netrc')}; echo end` }, context))).toBe('exit code 0\n[stdout]\nend');
  });

  it("has no network: the host's 127.0.0.1 is out of reach, unless the config gives it the network", async () => {
    const context = toolContext({ root: workspace.root });
    const fetchIt = `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log(t), e => { console.error('failed:', e.cause?.code ?? e.message); process.exit(7); })"`;
    expect(errorText(await run(shellFor(on), { command: fetchIt }, context))).toMatch(/exit code 7[\s\S]*failed: ECONNREFUSED/);
    expect(successText(await run(shellFor({ mode: 'on', network: 'on' }), { command: fetchIt }, context))).toContain('reached');
  });

  it('a command run by root cannot undo it (no capabilities: no remount)', async () => {
    const context = toolContext({ root: workspace.root });
    await run(shellFor(on), { command: `mount -o remount,rw / 2>/dev/null; echo x > ${hostFile}` }, context);
    expect(existsSync(hostFile)).toBe(false);
  });

  it('"off" runs commands as before: they may write outside the workspace', async () => {
    const context = toolContext({ root: workspace.root });
    expect(successText(await run(shellFor({ mode: 'off', network: 'off' }), { command: `echo out > ${hostFile}` }, context))).toBe(
      'exit code 0\n(no output)',
    );
    expect(existsSync(hostFile)).toBe(true);
  });

  it('process_start runs its command in the same sandbox', async () => {
    const registry = new ProcessRegistry({ env: { ...process.env, HOME: home }, killGraceMs: 200, sandbox: () => on });
    const [start, poll] = createProcessTools(registry);
    const context = toolContext({ root: workspace.root });
    successText(await run(start!, { command: `echo in > bg-inside.txt; echo out > ${hostFile}; echo done` }, context));
    await expect
      .poll(async () => successText(await run(poll!, { id: 'proc-1', wait_ms: 1000 }, context)), { timeout: 10_000 })
      .toContain('finished');
    expect(existsSync(join(workspace.root, 'bg-inside.txt'))).toBe(true);
    expect(existsSync(hostFile)).toBe(false);
    await registry.dispose();
  });
});
