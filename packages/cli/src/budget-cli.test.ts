import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLegion, type LegionRun } from './legion-process.test-support.js';
import { useWorkspace } from './workspace.test-support.js';

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
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), model: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url } }, null, 2));
    expectExit(await legion(['config', 'set', 'limits.maxSessionTokens', '100']), 0);
    mock.on({ userMessage: 'First' }, { content: 'First answer.', usage: { input_tokens: 80, output_tokens: 30 } });
    mock.on({ userMessage: 'Second' }, { content: 'Second answer.' });

    const first = await legion(['run', 'First']);
    expectExit(first, 0);
    expect(first.stdout).toBe('First answer.\n');

    const second = await legion(['run', 'Second']);
    expectExit(second, 1);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/legion: coordinator could not answer: Session \S+ has used 110 tokens, reaching its budget of 100 tokens \(limits\.maxSessionTokens\); coordinator's model was not called/);
    expect(second.stderr).toContain('Raise limits.maxSessionTokens in .legion/config.json (legion config set limits.maxSessionTokens 200), or start a new session (legion run --new-session');
    expect(mock.getRequests()).toHaveLength(1);

    const fresh = await legion(['run', '--new-session', 'Second']);
    expectExit(fresh, 0);
    expect(fresh.stdout).toBe('Second answer.\n');

    const spentSession = /Session (\S+) has used/.exec(second.stderr)![1]!;
    const report = await legion(['run', '--session', spentSession, '--output', 'json', 'Second']);
    expect(JSON.parse(report.stdout)).toMatchObject({ status: 'error', code: 'session_budget_exceeded', reply: null });
  }, 120_000);
});
