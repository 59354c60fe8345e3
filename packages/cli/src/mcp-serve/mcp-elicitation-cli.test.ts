import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLegion } from '../legion-process.test-support.js';
import { outerWorkspace } from '../mcp-serve.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

// One Legion delegates to another through MCP (`legion mcp serve` in its mcpServers), and the inner
// Legion's approval climbs to the outer Legion's user: the inner server asks through MCP
// elicitation, the outer Legion's MCP client puts it to its user's surface (here `legion run
// --answer-questions text`), and the answer travels back down. Both Legions' agents are aimock
// models on 127.0.0.1, through the real Anthropic SDK.

describe("approvals of a Legion reached through MCP climb to the outer Legion's user", () => {
  const workspace = useWorkspace('legion-mcp-inner-');
  const { mock, env, useModel } = workspace;
  const outers: string[] = [];
  afterEach(() => {
    for (const dir of outers.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const processEnv = (): Record<string, string> => {
    const merged: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...process.env, ...env() })) if (value !== undefined) merged[key] = value;
    return merged;
  };
  const claude = (model: string) => ({ provider: 'anthropic', model, baseURL: mock.url });

  /** An outer workspace whose coordinator asks the inner Legion's coordinator through MCP. */
  async function newOuterWorkspace(): Promise<string> {
    const outer = await outerWorkspace(workspace.dir, claude('claude-outer'), processEnv());
    outers.push(outer);
    return outer;
  }

  /** The inner coordinator hands the task to its developer, who writes notes.txt: a write, which needs approval. */
  function scriptInnerWrite(): void {
    // The MCP caller may decide the inner approvals; with an elicitation-capable client it asks its user.
    const config = join(workspace.dir, '.legion/config.json');
    writeFileSync(
      config,
      JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), mcpServe: { caller: { approvalAuthority: '*' } } }, null, 2),
    );
    useModel('coordinator', claude('claude-inner-coord'));
    useModel('developer', claude('claude-inner-dev'));
    mock.on(
      { model: 'claude-inner-coord', userMessage: 'Take notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_del', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'Write notes.txt' }) }] },
    );
    mock.on(
      { model: 'claude-inner-dev', userMessage: 'Write notes.txt', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_write', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello' }) }] },
    );
    mock.on({ model: 'claude-inner-dev', userMessage: 'Write notes.txt', hasToolResult: true }, { content: 'notes.txt is written.' });
    mock.on({ model: 'claude-inner-coord', userMessage: 'Take notes', hasToolResult: true }, { content: 'The developer wrote notes.txt.' });
    mock.on(
      { model: 'claude-outer', userMessage: 'Have the other team take notes', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_mcp', name: 'mcp__team__ask_coordinator', arguments: JSON.stringify({ message: 'Take notes' }) }] },
    );
    mock.on(
      { model: 'claude-outer', userMessage: 'Have the other team take notes', hasToolResult: true },
      { content: 'The other team took notes.' },
    );
  }

  /** The decisions the inner workspace recorded, from its approvals log. */
  function innerDecisions(): Array<Record<string, unknown>> {
    const sessions = join(workspace.dir, '.legion/sessions');
    const decisions: Array<Record<string, unknown>> = [];
    for (const session of readdirSync(sessions)) {
      const log = join(sessions, session, 'approvals.jsonl');
      if (!existsSync(log)) continue;
      for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
        const record = JSON.parse(line) as Record<string, unknown>;
        if (record['kind'] === 'decision') decisions.push(record);
      }
    }
    return decisions;
  }

  it("the inner developer's write is approved by the outer user, through elicitation, and the work finishes end to end", async () => {
    scriptInnerWrite();
    const outer = await newOuterWorkspace();

    const run = await runLegion(
      ['run', '--verbose', '--approve', 'auto', '--answer-questions', 'text', '--answer', 'approve', 'Have the other team take notes'],
      { cwd: outer, env: processEnv(), timeoutMs: 60_000 },
    );

    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('The other team took notes.\n');
    // The inner Legion's reply came back as the outer tool call's result.
    expect(run.stderr).toContain('↳ The developer wrote notes.txt.');
    expect(readFileSync(join(workspace.dir, 'notes.txt'), 'utf8')).toBe('hello');
    expect(innerDecisions()).toEqual([expect.objectContaining({ decision: 'approved', decidedBy: 'mcp', medium: 'mcp' })]);
  }, 90_000);

  it('an outer user who rejects it stops the write, and the inner developer is told', async () => {
    scriptInnerWrite();
    const outer = await newOuterWorkspace();

    const run = await runLegion(
      [
        'run',
        '--approve',
        'auto',
        '--answer-questions',
        'text',
        '--answer',
        'decision: reject\nreason: not now',
        'Have the other team take notes',
      ],
      { cwd: outer, env: processEnv(), timeoutMs: 60_000 },
    );

    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(join(workspace.dir, 'notes.txt'))).toBe(false);
    expect(innerDecisions()).toEqual([expect.objectContaining({ decision: 'rejected', decidedBy: 'mcp', reason: 'not now' })]);
    const developerSaw = mock
      .getRequests()
      .filter((entry) => (entry.body as { model?: string } | null)?.model === 'claude-inner-dev')
      .map((entry) => JSON.stringify(entry.body));
    expect(developerSaw.some((body) => body.includes('not now'))).toBe(true);
  }, 90_000);
});
