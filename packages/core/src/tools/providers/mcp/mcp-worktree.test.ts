import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventBus } from '../../../kernel/events/EventBus.js';
import { errorText, successText, tempWorkspace, toolContext } from '../../builtin/__fixtures__/tool-context.js';
import { sandboxSupport } from '../../child-processes/sandbox.js';
import { Worktrees } from '../../worktrees/Worktrees.js';
import { startEverythingOverHttp, type RunningHttpServer } from './__fixtures__/mcp-servers.js';
import { createMcpToolProvider, type McpToolProvider } from './McpToolProvider.js';

const WRITING_SERVER = fileURLToPath(new URL('./__fixtures__/writing-server.mjs', import.meta.url));

function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' });
}

// An agent that works in an isolated worktree calls MCP servers: what they write lands in its tree or nowhere,
// never in the main tree. A real stdio server built on the official SDK, run by this Node.
describe('MCP servers called by an agent in a worktree', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let treeRoot: string;
  let mcp: McpToolProvider;
  let http: RunningHttpServer | undefined;

  beforeEach(async () => {
    workspace = tempWorkspace();
    const root = workspace.root;
    git(root, 'init', '--quiet');
    git(root, 'config', 'user.name', 'Legion Test');
    git(root, 'config', 'user.email', 'test@legion.invalid');
    git(root, 'config', 'commit.gpgsign', 'false');
    writeFileSync(join(root, 'notes.txt'), 'one\n');
    git(root, 'add', 'notes.txt');
    git(root, 'commit', '--quiet', '-m', 'start');
    const made = await new Worktrees(root).create({ agentId: 'dev', callerId: 'user', sessionId: 's', conversationId: 'user__dev' });
    if (!made.ok) throw new Error(made.error);
    treeRoot = made.root;
  });
  afterEach(async () => {
    await mcp?.dispose();
    await http?.stop();
    http = undefined;
    workspace.cleanup();
  });

  function provider(servers: Parameters<typeof createMcpToolProvider>[0]['servers']): McpToolProvider {
    mcp = createMcpToolProvider({ servers, workspaceRoot: workspace.root, events: new EventBus(), env: process.env });
    return mcp;
  }

  it.skipIf(!sandboxSupport().works)(
    "a stdio server rooted at the workspace writes the worktree, through an instance confined to it; the main tree's turn still reaches the main tree",
    async () => {
      const root = workspace.root;
      // Rooted at the workspace by absolute path, as a filesystem server's allowed folder is written in a config.
      const files = provider({ files: { command: process.execPath, args: [WRITING_SERVER, root] } });
      const inTree = toolContext({ root: treeRoot });

      expect(successText(await files.execute('mcp__files__write', { path: 'made.txt', content: 'by the server\n' }, inTree))).toContain(
        `wrote ${join(treeRoot, 'made.txt')}`,
      );
      expect(readFileSync(join(treeRoot, 'made.txt'), 'utf8')).toBe('by the server\n');
      expect(existsSync(join(root, 'made.txt'))).toBe(false);

      // A path outside the tree (the main tree's own file) is not written: the instance runs in the sandbox, where the
      // rest of the filesystem is read-only (and /tmp, where this test's workspace is, a private one in memory).
      await files.execute('mcp__files__write_anywhere', { path: join(root, 'notes.txt'), content: 'overwritten\n' }, inTree);
      expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe('one\n');
      expect(git(root, 'status', '--porcelain')).toBe('');

      // A turn of the main tree uses the server as configured.
      await files.execute('mcp__files__write', { path: 'main.txt', content: 'main\n' }, toolContext({ root }));
      expect(readFileSync(join(root, 'main.txt'), 'utf8')).toBe('main\n');
    },
  );

  it("a server on this machine's loopback is refused for the worktree with a result that says why, and still serves the main tree", async () => {
    http = await startEverythingOverHttp();
    const remote = provider({ local: { url: http.url } });

    const refused = await remote.execute('mcp__local__echo', { message: 'hello' }, toolContext({ root: treeRoot }));

    expect(errorText(refused)).toContain('runs on this machine');
    expect(errorText(refused)).toContain('isolated worktree');
    expect(await remote.execute('mcp__local__echo', { message: 'hello' }, toolContext({ root: workspace.root }))).toEqual({
      status: 'success',
      data: 'Echo: hello',
    });
  });
});
