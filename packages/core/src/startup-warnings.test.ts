import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initWorkspace } from './team/config/init-workspace.js';
import { Legion } from './Legion.js';
import { agentParticipant, userParticipant } from './testing/index.js';
import { useGitCeiling } from './tools/worktrees/__fixtures__/git-ceiling.js';

// Problems that arise while a workspace opens fire before any UI can subscribe; Legion keeps them.
describe('problems found while a workspace opens', () => {
  useGitCeiling();
  let root: string;
  let legion: Legion | undefined;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-warnings-'));
    initWorkspace(root, {
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('developer')],
      entryAgent: 'coordinator',
    });
  });
  afterEach(async () => {
    await legion?.close();
    legion = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  function setConfig(change: Record<string, unknown>): void {
    const file = join(root, '.legion/config.json');
    writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), ...change }));
  }

  const open = (): Legion => Legion.open({ root, globalConfigFile: join(root, 'no-global-config.json') });

  it('keeps a broken workspace tool file, naming the file once', () => {
    writeFileSync(join(root, '.legion/tools/broken.json'), '{ "name": ');
    legion = open();
    expect(legion.warnings).toHaveLength(1);
    expect(legion.warnings[0]).toMatch(/broken\.json: is not valid JSON/);
    expect(legion.warnings[0]!.match(/broken\.json/g)).toHaveLength(1);
  });

  it('names an agent whose file says "isolation": "worktree" in a workspace in no git repository, and the fix', () => {
    const file = join(root, '.legion/collective/participants/developer.json');
    writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), isolation: 'worktree' }));
    legion = open();
    expect(legion.warnings).toEqual([
      `.legion/collective/participants/developer.json: "isolation": "worktree" needs a git repository, and ${legion.paths.root} is in none: messages and delegations to developer are refused. Fix: run \`git init\` and commit, or remove "isolation".`,
    ]);
  });

  it('reports a configured entry agent that does not exist, and which agent takes its place', () => {
    setConfig({ entryAgent: 'nobody' });
    legion = open();
    expect(legion.entryAgentId()).toBe('coordinator');
    expect(legion.warnings).toEqual([
      expect.stringMatching(
        /config\.json: entryAgent: "nobody" is not an active agent .* messages go to "coordinator".*Fix: set "entryAgent" to one of coordinator, developer/,
      ),
    ]);
  });

  it('keeps an MCP server that cannot start, once its tools are first asked for', async () => {
    setConfig({ mcpServers: { gone: { command: join(root, 'no-such-server') } } });
    legion = open();
    expect(legion.warnings).toEqual([]);
    const tools = await legion.getTools();
    expect(tools.some((tool) => tool.name.startsWith('mcp__gone__'))).toBe(false);
    expect(legion.warnings.some((warning) => /mcp server.*gone/i.test(warning))).toBe(true);
  });
});
