import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLegion, type LegionRun } from '../legion-process.test-support.js';
import { useWorkspace } from '../workspace.test-support.js';

const PROCESS_LIMIT_MS = 60_000;

describe('legion run within a session budget', () => {
  const workspace = useWorkspace('legion-budget-');
  const { mock } = workspace;

  function legion(args: string[]): Promise<LegionRun> {
    return runLegion(args, { cwd: workspace.dir, env: { ...process.env, ...workspace.env() }, timeoutMs: PROCESS_LIMIT_MS });
  }

  function expectExit(run: LegionRun, status: number): void {
    expect(run.status, `exit ${run.status}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(status);
  }

  it('says which session reached which limit and how to go on, and calls no model', async () => {
    const file = join(workspace.dir, '.legion/collective/participants/coordinator.json');
    writeFileSync(
      file,
      JSON.stringify(
        { ...JSON.parse(readFileSync(file, 'utf8')), model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url } },
        null,
        2,
      ),
    );
    expectExit(await legion(['config', 'set', 'limits.maxSessionTokens', '100']), 0);
    mock.on({ userMessage: 'First' }, { content: 'First answer.', usage: { input_tokens: 80, output_tokens: 30 } });
    mock.on({ userMessage: 'Second' }, { content: 'Second answer.' });

    const first = await legion(['run', 'First']);
    expectExit(first, 0);
    expect(first.stdout).toBe('First answer.\n');

    const second = await legion(['run', 'Second']);
    expectExit(second, 1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(
      /legion: coordinator could not answer: Session \S+ has used 110 tokens, reaching its budget of 100 tokens \(limits\.maxSessionTokens\); coordinator's model was not called/,
    );
    expect(second.stderr).toContain(
      'Raise limits.maxSessionTokens in .legion/config.json (legion config set limits.maxSessionTokens 200), or start a new session (legion run --new-session',
    );
    expect(mock.getRequests()).toHaveLength(1);

    const fresh = await legion(['run', '--new-session', 'Second']);
    expectExit(fresh, 0);
    expect(fresh.stdout).toBe('Second answer.\n');

    const spentSession = /Session (\S+) has used/.exec(second.stderr)![1]!;
    const report = await legion(['run', '--session', spentSession, '--output', 'json', 'Second']);
    expect(JSON.parse(report.stdout)).toMatchObject({ status: 'error', code: 'session_budget_exceeded', reply: null });
  }, 120_000);

  it('stops the work of one message at limits.maxModelCallsPerMessage, naming it on stderr and as the json report code', async () => {
    workspace.useModel('coordinator', { provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
    expectExit(await legion(['config', 'set', 'limits.maxModelCallsPerMessage', '1']), 0);
    // Each message's first call asks for a tool; the reply after the tool result would be a second call.
    for (const userMessage of ['Who is here?', 'Who else?']) {
      mock.on(
        { userMessage, hasToolResult: false },
        { toolCalls: [{ id: `toolu_${userMessage.length}`, name: 'list_participants', arguments: '{}' }] },
      );
      mock.on({ userMessage, hasToolResult: true }, { content: 'Everyone.' });
    }

    const text = await legion(['run', 'Who is here?']);
    expectExit(text, 1);
    expect(text.stdout).toBe('');
    expect(text.stderr).toContain(
      'coordinator could not answer: The message being answered has started 1 model call across its whole delegation tree, its limit (limits.maxModelCallsPerMessage)',
    );
    expect(text.stderr).toContain(
      'Raise limits.maxModelCallsPerMessage in .legion/config.json (legion config set limits.maxModelCallsPerMessage 2)',
    );
    expect(mock.getRequests()).toHaveLength(1);

    // Another message gets a count of its own: its one call, then the same error, as the json report's code.
    const report = await legion(['run', '--new-session', '--output', 'json', 'Who else?']);
    expectExit(report, 1);
    expect(JSON.parse(report.stdout)).toMatchObject({ status: 'error', code: 'message_work_limit', reply: null });
    expect(report.stderr).toContain('limits.maxModelCallsPerMessage');
    expect(mock.getRequests()).toHaveLength(2);
  }, 120_000);
});
