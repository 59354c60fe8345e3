import { errorText, isAlive, isGoneSoon, run, successText, tempWorkspace, toolContext } from '../__fixtures__/tool-context.js';
import { hostPid, PID_NAMESPACE } from '../../../testing/host-pid.js';
import type { Tool } from '../../tool.js';
import { createProcessTools } from './process-tools.js';
import { ProcessRegistry } from './ProcessRegistry.js';

describe('background process tools', () => {
  let workspace: ReturnType<typeof tempWorkspace>;
  let registry: ProcessRegistry;
  let tools: Record<string, Tool>;
  let context: ReturnType<typeof toolContext>;

  beforeEach(() => {
    workspace = tempWorkspace();
    registry = new ProcessRegistry({ env: { ...process.env, SERVICE_SECRET: 'very-secret-value' }, killGraceMs: 200, maxRunning: 2 });
    tools = Object.fromEntries(createProcessTools(registry).map((tool) => [tool.name, tool]));
    context = toolContext({ root: workspace.root });
  });
  afterEach(async () => {
    await registry.dispose();
    workspace.cleanup();
  });

  const start = async (command: string): Promise<string> => {
    const text = successText(await run(tools.process_start!, { command }, context));
    return /Started (proc-\d+)/.exec(text)![1]!;
  };
  /** Polls (waiting for activity each time) until the output so far contains `expected`. */
  const pollUntil = async (id: string, expected: string): Promise<string> => {
    let seen = '';
    // One poll a line: a poll that ends mid-line must not run into the next one's header.
    for (let attempt = 0; attempt < 50 && !seen.includes(expected); attempt++)
      seen += `${successText(await run(tools.process_poll!, { id, wait_ms: 2000 }, context))}\n`;
    return seen;
  };

  it('starts, polls only new output, and stops a process with everything it started', async () => {
    const id = await start(`sleep 60 & echo "sleeper=$! ${PID_NAMESPACE}"; echo "secret=$SERVICE_SECRET"; echo ready; wait`);
    const seen = await pollUntil(id, 'ready');
    expect(seen).toMatch(/^running \(pid \d+\)\n\[stdout\]\n/);
    expect(seen).toContain('secret=[redacted:SERVICE_SECRET]');
    expect(seen).not.toContain('very-secret-value');
    // The command may run in a PID namespace of its own: its $! is found among the host's processes.
    const sleeperPid = hostPid(/sleeper=(.*)/.exec(seen)![1]!);
    expect(sleeperPid !== undefined && isAlive(sleeperPid)).toBe(true);
    expect(successText(await run(tools.process_poll!, { id }, context))).toMatch(/^running \(pid \d+\)\n\(no output\)$/);
    expect(successText(await run(tools.process_list!, {}, context))).toContain(`${id}  running`);

    const stopped = successText(await run(tools.process_stop!, { id }, context));
    expect(stopped).toMatch(new RegExp(`^Stopped ${id}: finished, killed by SIGTERM`));
    expect(await isGoneSoon(sleeperPid!)).toBe(true);
    expect(errorText(await run(tools.process_poll!, { id }, context))).toContain(`No background process "${id}"`);
  });

  it('reports the exit code and the last output of a process that ended on its own', async () => {
    const id = await start('echo working; echo warn >&2; exit 3');
    const seen = await pollUntil(id, 'exit code 3');
    expect(seen).toContain('working');
    expect(seen).toContain('[stderr]\nwarn');
    expect(successText(await run(tools.process_list!, {}, context))).toContain(`${id}  finished, exit code 3`);
  });

  it('limits how many run at once and refuses a cwd outside the workspace', async () => {
    await start('sleep 60');
    await start('sleep 60');
    expect(errorText(await run(tools.process_start!, { command: 'sleep 60' }, context))).toContain(
      '2 background processes are running (the limit)',
    );
    expect(errorText(await run(tools.process_start!, { command: 'pwd', cwd: '../outside' }, context))).toContain('outside the workspace');
  });

  it('is scoped to its starter in its session: the same agent elsewhere, or another agent, gets an error that shows nothing of it; one who sees all may stop it', async () => {
    const id = await start('sleep 60 # private-marker');
    const elsewhere = toolContext({ root: workspace.root, sessionId: '20250101-000000-fedcba' });
    const other = toolContext({ root: workspace.root, callerId: 'other' });
    for (const outsider of [elsewhere, other]) {
      expect(successText(await run(tools.process_list!, {}, outsider))).toBe('No background processes.');
      for (const tool of [tools.process_poll!, tools.process_stop!]) {
        const refused = errorText(await run(tool, { id }, outsider));
        expect(refused).toContain(`${id} was started by another participant (or in another session)`);
        expect(refused).not.toContain('private-marker');
      }
    }
    expect(registry.list()[0]).toMatchObject({ running: true });
    const second = await start('sleep 60');
    const full = errorText(await run(tools.process_start!, { command: 'sleep 1' }, other));
    expect(full).toContain('2 background processes are running (the limit): none of them is yours');
    expect(full).not.toMatch(/proc-/);
    expect(errorText(await run(tools.process_start!, { command: 'sleep 1' }, context))).toContain(
      `stop one of yours first (${id}, ${second})`,
    );
    const human = Object.fromEntries(
      createProcessTools(registry, { seesAll: (callerId) => callerId === 'user' }).map((tool) => [tool.name, tool]),
    );
    expect(
      successText(await run(human.process_stop!, { id }, toolContext({ root: workspace.root, callerId: 'user', sessionId: 'another' }))),
    ).toMatch(new RegExp(`^Stopped ${id}`));
  });

  it('dispose() kills every process group', async () => {
    const ids = [await start('sleep 60'), await start('sleep 60 & wait')];
    const pids = registry.list().map((entry) => entry.process.pid!);
    expect(ids).toHaveLength(2);
    expect(pids.every(isAlive)).toBe(true);
    await registry.dispose();
    for (const pid of pids) expect(await isGoneSoon(pid)).toBe(true);
    expect(registry.list()).toEqual([]);
  });
});
