import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { legionCommandLine, tmuxOn, waitForText } from '../tmux.test-support.js';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { useWorkspace } from '../workspace.test-support.js';

// The built `legion` binary, its agents on the real Anthropic and OpenAI SDKs,
// talking to aimock on 127.0.0.1 in this process. Every legion process is
// spawned asynchronously: a synchronous spawn would block the event loop that
// serves the model.
const LEGION = fileURLToPath(new URL('../../dist/legion.js', import.meta.url));
/** Preload that holds a process until a file exists, to release racing processes at one instant. */
const START_GATE = fileURLToPath(new URL('../__fixtures__/start-gate.mjs', import.meta.url));

/** A hard bound on any one legion process, so a hang fails the test instead of stalling the run. */
const PROCESS_LIMIT_MS = 45_000;
/** How long we wait for the terminal to show something before giving up. */

const TMUX_MISSING = spawnSync('tmux', ['-V']).status !== 0;
if (TMUX_MISSING)
  console.warn('approvals-cli.test.ts: tmux is not installed, so the terminal prompt test is skipped (apt-get install -y tmux).');

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

describe('approvals through the legion binary, agents on real provider SDKs', () => {
  const workspace = useWorkspace('legion-approvals-');
  const { mock, env, useModel, toolResultSent } = workspace;

  function legion(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
    return new Promise((resolve, reject) => {
      // stdin is a pipe: no terminal, as under a script or CI.
      const child = spawn(process.execPath, [LEGION, ...args], {
        cwd: workspace.dir,
        env: { ...process.env, ...env(), ...extraEnv },
        stdio: ['pipe', 'pipe', 'pipe'],
        timeout: PROCESS_LIMIT_MS,
        killSignal: 'SIGKILL',
      });
      child.stdin.end();
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
    });
  }

  function expectExit(run: Run, status: number): void {
    expect(run.status, `exit ${run.status ?? run.signal}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(status);
  }

  const claude = () => ({ provider: 'anthropic', model: 'claude-test', baseURL: mock.url });
  const gpt = () => ({ provider: 'openai', model: 'gpt-test', baseURL: `${mock.url}/v1` });

  /** The model asks to write `path`, then, once it has the tool's result, replies `reply`. */
  function scriptWrite(options: {
    model: string;
    userMessage: string;
    path: string;
    content: string;
    toolUseId: string;
    reply: string;
  }): void {
    const { model, userMessage, path, content, toolUseId, reply } = options;
    mock.on(
      { model, userMessage, hasToolResult: false },
      { toolCalls: [{ id: toolUseId, name: 'file_write', arguments: JSON.stringify({ path, content }) }] },
    );
    mock.on({ model, userMessage, hasToolResult: true }, { content: reply });
  }

  const modelCalls = (model: string) =>
    mock.getRequests().filter((entry) => (entry.body as { model?: string } | null)?.model === model).length;
  const workspaceFile = (path: string) => join(workspace.dir, path);

  interface RunReport {
    status: string;
    reply: string | null;
    approvals?: Array<{ id: string; requester: string; approver: string; tool: string; input: unknown; status: string }>;
  }
  const report = (run: Run) => JSON.parse(run.stdout) as RunReport;

  it('--approve deny rejects the write, tells the model why, and prints its final reply', async () => {
    useModel('coordinator', claude());
    scriptWrite({
      model: 'claude-test',
      userMessage: 'Write the notes',
      path: 'notes.txt',
      content: 'hello',
      toolUseId: 'toolu_deny',
      reply: 'I was not allowed to write notes.txt.',
    });

    const run = await legion(['run', '--approve', 'deny', 'Write the notes']);

    expectExit(run, 0);
    expect(run.stdout).toBe('I was not allowed to write notes.txt.\n');
    expect(existsSync(workspaceFile('notes.txt'))).toBe(false);
    expect(toolResultSent('toolu_deny')).toMatch(/^Rejected: user rejected it: this run does not allow it \(--approve deny\)/);
    expect(modelCalls('claude-test')).toBe(2);
  }, 60_000);

  it('--approve auto runs the write and prints the final reply', async () => {
    useModel('coordinator', claude());
    scriptWrite({
      model: 'claude-test',
      userMessage: 'Write the notes',
      path: 'docs/notes.txt',
      content: 'hello\n',
      toolUseId: 'toolu_auto',
      reply: 'Wrote docs/notes.txt.',
    });

    const run = await legion(['run', '--approve', 'auto', 'Write the notes']);

    expectExit(run, 0);
    expect(run.stdout).toBe('Wrote docs/notes.txt.\n');
    expect(readFileSync(workspaceFile('docs/notes.txt'), 'utf8')).toBe('hello\n');
    expect(toolResultSent('toolu_auto')).toMatch(/^Created docs\/notes\.txt \(1 lines/);
  }, 60_000);

  it('without a terminal the run pauses durably; separate processes list, approve and reject it', async () => {
    useModel('coordinator', claude());
    scriptWrite({
      model: 'claude-test',
      userMessage: 'Write the notes',
      path: 'notes.txt',
      content: 'approved content',
      toolUseId: 'toolu_first',
      reply: 'notes.txt is written.',
    });
    scriptWrite({
      model: 'claude-test',
      userMessage: 'Write the secrets',
      path: 'secrets.txt',
      content: 'nope',
      toolUseId: 'toolu_second',
      reply: 'Understood, I left secrets.txt alone.',
    });

    const paused = await legion(['run', '--output', 'json', 'Write the notes']);
    expectExit(paused, 2);
    const first = report(paused);
    expect(first).toMatchObject({ status: 'approval_required', reply: null });
    expect(first.approvals).toHaveLength(1);
    expect(first.approvals![0]).toMatchObject({
      requester: 'coordinator',
      approver: 'user',
      tool: 'file_write',
      input: { path: 'notes.txt', content: 'approved content' },
      status: 'pending',
    });
    const id = first.approvals![0]!.id;
    expect(existsSync(workspaceFile('notes.txt'))).toBe(false);

    const pending = await legion(['approvals']);
    expectExit(pending, 0);
    expect(pending.stdout).toMatch(new RegExp(`${escape(id)}\\s+pending\\s+coordinator → file_write .*notes\\.txt.* — user decides`));

    const approved = await legion(['approve', id]);
    expectExit(approved, 0);
    expect(approved.stdout).toBe('notes.txt is written.\n');
    expect(readFileSync(workspaceFile('notes.txt'), 'utf8')).toBe('approved content');
    expect(toolResultSent('toolu_first')).toMatch(/^Created notes\.txt/);

    const all = await legion(['approvals', '--all']);
    expectExit(all, 0);
    expect(all.stdout).toMatch(new RegExp(`${escape(id)}\\s+approved\\s+coordinator → file_write .* — approved by user`));
    // `legion approve` decides on the terminal, and the decision says so.
    expect(all.stdout).toContain('approved by user (on terminal)');
    expect((await legion(['approvals'])).stdout).toBe('Nothing is waiting for approval.\n');

    const again = await legion(['approve', id]);
    expectExit(again, 1);
    expect(again.stderr).toContain(`${id} was already approved by user`);
    expect(modelCalls('claude-test')).toBe(2);

    // A second pause in the same session, answered with a rejection.
    const secondRun = await legion(['run', '--output', 'json', 'Write the secrets']);
    expectExit(secondRun, 2);
    const secondId = report(secondRun).approvals![0]!.id;
    expect(secondId).not.toBe(id);
    const listed = await legion(['approvals', '--json']);
    expect((JSON.parse(listed.stdout) as { approvals: Array<{ id: string }> }).approvals.map((view) => view.id)).toEqual([secondId]);

    const rejected = await legion(['reject', secondId, '--reason', 'secrets stay out of the repository']);
    expectExit(rejected, 0);
    expect(rejected.stdout).toBe('Understood, I left secrets.txt alone.\n');
    expect(existsSync(workspaceFile('secrets.txt'))).toBe(false);
    expect(toolResultSent('toolu_second')).toBe('Rejected by user: secrets stay out of the repository');
    const decided = await legion(['approvals', '--all']);
    expect(decided.stdout).toMatch(
      new RegExp(`${escape(secondId)}\\s+rejected\\s+.* — rejected by user: secrets stay out of the repository`),
    );
  }, 120_000);

  it('approve and reject racing on one request from 8 processes released at once: exactly one decision, the others exit 1', async () => {
    useModel('coordinator', claude());
    scriptWrite({
      model: 'claude-test',
      userMessage: 'Write the notes',
      path: 'notes.txt',
      content: 'raced',
      toolUseId: 'toolu_race',
      reply: 'Settled.',
    });
    const paused = await legion(['run', '--output', 'json', 'Write the notes']);
    expectExit(paused, 2);
    const id = report(paused).approvals![0]!.id;

    const gate = join(workspace.dir, 'release');
    const gateEnv = { NODE_OPTIONS: `--import=${START_GATE}`, LEGION_TEST_GATE: gate };
    const deciders = Array.from({ length: 8 }, (_, index) =>
      index % 2 === 0 ? legion(['approve', id], gateEnv) : legion(['reject', id, '--reason', `decider ${index} says no`], gateEnv),
    );
    // Every process is up and holding at the gate before any may decide.
    while (readdirSync(workspace.dir).filter((name) => name.endsWith('.ready')).length < deciders.length) await delay(10);
    writeFileSync(gate, '');
    const runs = await Promise.all(deciders);

    const winners = runs.filter((run) => run.status === 0);
    expect(winners, runs.map((run) => `${run.status}: ${run.stdout}${run.stderr}`).join('\n')).toHaveLength(1);
    const losers = runs.filter((run) => run.status !== 0);
    for (const run of losers) expect(run.stderr).toMatch(new RegExp(`${escape(id)} was already (approved|rejected) by user`));
    const all = await legion(['approvals', '--all', '--json']);
    const [view] = (JSON.parse(all.stdout) as { approvals: Array<{ id: string; status: string }> }).approvals;
    expect(existsSync(workspaceFile('notes.txt'))).toBe(view!.status === 'approved');
    expect(toolResultSent('toolu_race')).toMatch(
      view!.status === 'approved' ? /^Created notes\.txt/ : /^Rejected by user: decider \d says no/,
    );
    expect(modelCalls('claude-test')).toBe(2);
  }, 120_000);

  it('an answer that leads to the next approval exits 2 again; approve --this-session lets the same tool run on', async () => {
    useModel('coordinator', claude());
    const write = (id: string, path: string) => ({
      toolCalls: [{ id, name: 'file_write', arguments: JSON.stringify({ path, content: path }) }],
    });
    const userMessage = 'Write a, b and c';
    mock.on({ model: 'claude-test', userMessage, hasToolResult: false }, write('toolu_a', 'a.txt'));
    mock.on({ model: 'claude-test', userMessage, toolCallId: 'toolu_a' }, write('toolu_b', 'b.txt'));
    mock.on({ model: 'claude-test', userMessage, toolCallId: 'toolu_b' }, write('toolu_c', 'c.txt'));
    mock.on({ model: 'claude-test', userMessage, toolCallId: 'toolu_c' }, { content: 'Wrote a.txt, b.txt and c.txt.' });

    const paused = await legion(['run', '--output', 'json', userMessage]);
    expectExit(paused, 2);
    const firstId = report(paused).approvals![0]!.id;

    const once = await legion(['approve', '--json', firstId]);
    expectExit(once, 2);
    const resumed = (JSON.parse(once.stdout) as { resumed: Array<{ status: string; requests: Array<{ id: string; input: unknown }> }> })
      .resumed;
    expect(resumed).toEqual([
      expect.objectContaining({
        status: 'approval_required',
        requests: [expect.objectContaining({ input: { path: 'b.txt', content: 'b.txt' } })],
      }),
    ]);
    expect(readFileSync(workspaceFile('a.txt'), 'utf8')).toBe('a.txt');
    expect(existsSync(workspaceFile('b.txt'))).toBe(false);

    const always = await legion(['approve', '--this-session', resumed[0]!.requests[0]!.id]);
    expectExit(always, 0);
    expect(always.stdout).toBe('Wrote a.txt, b.txt and c.txt.\n');
    expect(always.stderr).toBe('');
    expect(existsSync(workspaceFile('.legion/collective/approval-rules'))).toBe(false);
    // c.txt ran on the grant: nobody was asked.
    expect(readFileSync(workspaceFile('c.txt'), 'utf8')).toBe('c.txt');
    expect(toolResultSent('toolu_c')).toMatch(/^Created c\.txt/);
    const all = JSON.parse((await legion(['approvals', '--all', '--json'])).stdout) as {
      approvals: Array<{ status: string; input: { path: string } }>;
    };
    expect(all.approvals.map((view) => `${view.input.path} ${view.status}`)).toEqual(['a.txt approved', 'b.txt approved']);
  }, 60_000);

  it('the deprecated --always still means this session, never a rule, and says what to use instead', async () => {
    useModel('coordinator', claude());
    const write = (id: string, path: string) => ({
      toolCalls: [{ id, name: 'file_write', arguments: JSON.stringify({ path, content: path }) }],
    });
    const userMessage = 'Write x and y';
    mock.on({ model: 'claude-test', userMessage, hasToolResult: false }, write('toolu_x', 'x.txt'));
    mock.on({ model: 'claude-test', userMessage, toolCallId: 'toolu_x' }, write('toolu_y', 'y.txt'));
    mock.on({ model: 'claude-test', userMessage, toolCallId: 'toolu_y' }, { content: 'Wrote x.txt and y.txt.' });

    const paused = await legion(['run', '--output', 'json', userMessage]);
    expectExit(paused, 2);
    const approved = await legion(['approve', '--always', report(paused).approvals![0]!.id]);
    expectExit(approved, 0);
    expect(approved.stderr).toContain('--always is deprecated: it means --this-session here, but "always" is a rule everywhere else');
    // y.txt ran on the session grant, and no rule was made for later sessions.
    expect(approved.stdout).toBe('Wrote x.txt and y.txt.\n');
    expect(readFileSync(workspaceFile('y.txt'), 'utf8')).toBe('y.txt');
    expect(existsSync(workspaceFile('.legion/collective/approval-rules'))).toBe(false);
  }, 60_000);

  it('a delegate’s write pauses the whole chain when the coordinator has no authority; approve resumes it to the coordinator’s reply', async () => {
    useModel('coordinator', claude());
    useModel('developer', gpt());
    const delegation = { to: 'developer', message: 'Create src/health.ts exporting health()' };
    mock.on(
      { model: 'claude-test', userMessage: 'Add a health check', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify(delegation) }] },
    );
    mock.on(
      { model: 'claude-test', userMessage: 'Add a health check', hasToolResult: true },
      { content: 'The developer added src/health.ts.' },
    );
    scriptWrite({
      model: 'gpt-test',
      userMessage: 'Create src/health.ts',
      path: 'src/health.ts',
      content: 'export const health = () => "ok";\n',
      toolUseId: 'call_write',
      reply: 'Created src/health.ts.',
    });

    const paused = await legion(['run', '--output', 'json', 'Add a health check']);
    expectExit(paused, 2);
    const pausedReport = report(paused);
    expect(pausedReport.status).toBe('approval_required');
    expect(pausedReport.approvals).toEqual([
      expect.objectContaining({ requester: 'developer', approver: 'user', tool: 'file_write', status: 'pending' }),
    ]);
    expect(existsSync(workspaceFile('src/health.ts'))).toBe(false);
    // Paused, not answered: the coordinator's model has not been called back yet.
    expect(modelCalls('claude-test')).toBe(1);

    const approved = await legion(['approve', pausedReport.approvals![0]!.id]);
    expectExit(approved, 0);
    expect(approved.stdout).toBe('The developer added src/health.ts.\n');
    expect(readFileSync(workspaceFile('src/health.ts'), 'utf8')).toBe('export const health = () => "ok";\n');
    expect(toolResultSent('call_write')).toMatch(/^Created src\/health\.ts/);
    // The developer's reply came back up as the result of the coordinator's communicate call.
    expect(toolResultSent('toolu_delegate')).toBe('Created src/health.ts.');
    expect(modelCalls('claude-test')).toBe(2);
    expect(modelCalls('gpt-test')).toBe(2);
  }, 60_000);

  it.skipIf(TMUX_MISSING)(
    'asks on a real terminal (tmux) with the numbered menu: a letter is no answer; 4 and a reason reject the write and the reason reaches the model',
    async () => {
      useModel('coordinator', claude());
      scriptWrite({
        model: 'claude-test',
        userMessage: 'Write the notes',
        path: 'notes.txt',
        content: 'hello',
        toolUseId: 'toolu_prompt',
        reply: 'Fine, I will not write notes.txt.',
      });
      const socket = join(workspace.dir, 'tmux.sock');
      const config = join(workspace.dir, 'tmux.conf');
      // The pane stays after legion exits, so its last screen can still be read.
      writeFileSync(config, 'set -g remain-on-exit on\nset -g history-limit 5000\n');
      const command = legionCommandLine(env(), ['run', 'Write the notes']);
      const tmuxEnv = { ...process.env };
      delete tmuxEnv.TMUX;
      const tmux = tmuxOn(socket, config, workspace.dir);
      const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'legion');
      const waitForScreen = (text: string) => waitForText(screen, text);

      tmux('new-session', '-d', '-s', 'legion', '-x', '200', '-y', '50', '-c', workspace.dir, command);
      try {
        const question = await waitForScreen('choose 1, 2, 3, 4, then Enter:');
        expect(question).toContain('approval needed coordinator wants to run file_write');
        expect(question).toMatch(/\n  path: notes\.txt\n  content: hello\n/);
        // The REPL's menu, in the same words and order.
        expect(question).toMatch(/1\. Approve once .*\n.*2\. Approve for this session .*\n.*3\. Approve always .*\n.*4\. Reject /);
        // A letter of the old one-key prompt is no answer any more.
        tmux('send-keys', '-t', 'legion', 'n', 'Enter');
        await waitForScreen('answer with the number of a choice: 1, 2, 3, 4');
        tmux('send-keys', '-t', 'legion', '4', 'Enter');
        await waitForScreen('reason (shown to the agent; optional)');
        tmux('send-keys', '-t', 'legion', '-l', 'keep the workspace clean');
        tmux('send-keys', '-t', 'legion', 'Enter');

        const final = await waitForScreen('[legion exited:');
        expect(final).toContain('Fine, I will not write notes.txt.');
        expect(final).toContain('[legion exited: 0]');
        expect(existsSync(workspaceFile('notes.txt'))).toBe(false);
        expect(toolResultSent('toolu_prompt')).toBe('Rejected: user rejected it: keep the workspace clean');
        const all = await legion(['approvals', '--all', '--json']);
        expect((JSON.parse(all.stdout) as { approvals: unknown[] }).approvals).toMatchObject([
          { status: 'rejected', decidedBy: 'user', decisionMedium: 'terminal' },
        ]);
      } finally {
        spawnSync('tmux', ['-S', socket, 'kill-server'], { env: tmuxEnv });
      }
    },
    60_000,
  );

  describe('"approve always" rules', () => {
    /** The model runs `command` with shell_run, then, once it has the result, replies `reply`. */
    function scriptShell(options: { userMessage: string; command: string; toolUseId: string; reply: string }): void {
      const { userMessage, command, toolUseId, reply } = options;
      mock.on(
        { model: 'claude-test', userMessage, hasToolResult: false },
        { toolCalls: [{ id: toolUseId, name: 'shell_run', arguments: JSON.stringify({ command }) }] },
      );
      mock.on({ model: 'claude-test', userMessage, hasToolResult: true }, { content: reply });
    }
    const rulesDir = () => workspaceFile('.legion/collective/approval-rules');
    interface ListedRule {
      id: string;
      participant: string;
      tool: string;
      pattern?: string;
      createdBy: string;
      medium?: string;
    }
    const listedRules = async (): Promise<ListedRule[]> => {
      const listed = await legion(['approvals', 'rules', '--json']);
      expectExit(listed, 0);
      return (JSON.parse(listed.stdout) as { rules: ListedRule[] }).rules;
    };

    it('approve --rule makes a rule a new process honours in a new session, for matching commands only; rules rm revokes it', async () => {
      useModel('coordinator', claude());
      scriptShell({ userMessage: 'Status please', command: 'echo status', toolUseId: 'toolu_status', reply: 'Status checked.' });
      scriptShell({ userMessage: 'Again please', command: 'echo again', toolUseId: 'toolu_again', reply: 'Checked again.' });
      scriptShell({ userMessage: 'Smuggle please', command: 'echo x; touch smuggled', toolUseId: 'toolu_smuggle', reply: 'Smuggled.' });
      scriptShell({ userMessage: 'Revoked please', command: 'echo revoked', toolUseId: 'toolu_revoked', reply: 'Ran revoked.' });

      const paused = await legion(['run', '--output', 'json', 'Status please']);
      expectExit(paused, 2);
      const id = report(paused).approvals![0]!.id;
      const approved = await legion(['approve', id, '--rule', '--pattern', 'echo *']);
      expectExit(approved, 0);
      expect(approved.stdout).toBe('Status checked.\n');

      const [rule] = await listedRules();
      expect(rule).toMatchObject({
        participant: 'coordinator',
        tool: 'shell_run',
        pattern: 'echo *',
        createdBy: 'user',
        medium: 'terminal',
      });
      expect(readdirSync(rulesDir())).toEqual([`${rule!.id}.json`]);
      const table = await legion(['approvals', 'rules']);
      expectExit(table, 0);
      expect(table.stdout).toMatch(
        new RegExp(`^${escape(rule!.id)}  coordinator → shell_run  echo \\*  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d by user on terminal$`, 'm'),
      );
      const all = await legion(['approvals', '--all']);
      expect(all.stdout).toContain(`(rule ${rule!.id})`);

      // A new process, a new session: the rule approves it, nobody is asked.
      const again = await legion(['run', '--new-session', 'Again please']);
      expectExit(again, 0);
      expect(again.stdout).toBe('Checked again.\n');
      expect(toolResultSent('toolu_again')).toContain('again');

      // A second command smuggled behind a matching one: asked about, not run.
      const smuggled = await legion(['run', '--new-session', '--output', 'json', 'Smuggle please']);
      expectExit(smuggled, 2);
      expect(report(smuggled).approvals).toEqual([
        expect.objectContaining({ tool: 'shell_run', input: { command: 'echo x; touch smuggled' }, status: 'pending' }),
      ]);
      expect(existsSync(workspaceFile('smuggled'))).toBe(false);

      const removed = await legion(['approvals', 'rules', 'rm', rule!.id]);
      expectExit(removed, 0);
      expect(removed.stdout).toContain(`Removed ${rule!.id}`);
      expect(await listedRules()).toEqual([]);
      const revoked = await legion(['run', '--new-session', '--output', 'json', 'Revoked please']);
      expectExit(revoked, 2);
      expect(report(revoked).approvals).toEqual([expect.objectContaining({ input: { command: 'echo revoked' }, status: 'pending' })]);
      const unknown = await legion(['approvals', 'rules', 'rm', rule!.id]);
      expectExit(unknown, 1);
      expect(unknown.stderr).toContain(`No approval rule "${rule!.id}"`);
    }, 120_000);

    it('approve --rule refuses a pattern that does not match the call, and records nothing', async () => {
      useModel('coordinator', claude());
      scriptShell({ userMessage: 'Status please', command: 'echo status', toolUseId: 'toolu_status', reply: 'Status checked.' });
      const paused = await legion(['run', '--output', 'json', 'Status please']);
      expectExit(paused, 2);
      const id = report(paused).approvals![0]!.id;
      const refused = await legion(['approve', id, '--pattern', 'git *']);
      expectExit(refused, 1);
      expect(refused.stderr).toMatch(/Nothing was recorded\. .*the pattern "git \*" does not match the command "echo status"/);
      expect((await legion(['approvals', '--json'])).stdout).toContain(id);
      expect(existsSync(rulesDir())).toBe(false);
      const both = await legion(['approve', id, '--rule', '--always']);
      expectExit(both, 1);
      expect(both.stderr).toContain('give one of them');
    }, 60_000);

    it('a corrupt rule file: the listing names the file, the field and the fix, a run asks instead of trusting it, and the file is left as it was', async () => {
      useModel('coordinator', claude());
      scriptShell({ userMessage: 'Status please', command: 'echo status', toolUseId: 'toolu_status', reply: 'Status checked.' });
      mkdirSync(rulesDir(), { recursive: true });
      const file = join(rulesDir(), 'rule_broken.json');
      const text =
        '{ "version": 1, "id": "rule_broken", "participant": "coordinator", "tool": "shell_run", "pattern": ["echo *"], "createdAt": "2026-01-01T00:00:00Z", "createdBy": "user" }\n';
      writeFileSync(file, text);

      const listed = await legion(['approvals', 'rules']);
      expectExit(listed, 1);
      expect(listed.stderr).toMatch(/^legion: \.legion\/collective\/approval-rules\/rule_broken\.json \(field "pattern"\): .*Fix: .*/);
      const run = await legion(['run', '--output', 'json', 'Status please']);
      expectExit(run, 2);
      expect(run.stderr).toContain('.legion/collective/approval-rules/rule_broken.json');
      const doctor = await legion(['doctor', '--json']);
      expectExit(doctor, 1);
      const checks = (
        JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; error?: string; fix?: string; file?: string }> }
      ).checks;
      expect(checks.find((entry) => entry.name === 'approval rule .legion/collective/approval-rules/rule_broken.json')).toMatchObject({
        status: 'failed',
        file: '.legion/collective/approval-rules/rule_broken.json',
        error: expect.stringContaining('(field "pattern")'),
        fix: expect.stringContaining('"pattern"'),
      });
      expect(readFileSync(file, 'utf8')).toBe(text);
      expect(readdirSync(rulesDir())).toEqual(['rule_broken.json']);
    }, 60_000);

    it.skipIf(TMUX_MISSING)(
      "the terminal prompt offers a rule: 3 (as on the REPL's card) shows the exact command, a typed pattern is used",
      async () => {
        useModel('coordinator', claude());
        scriptShell({ userMessage: 'Status please', command: 'echo status', toolUseId: 'toolu_status', reply: 'Status checked.' });
        const terminal = openTerminal(['run', 'Status please']);
        try {
          const question = await terminal.waitFor('choose 1, 2, 3, 4, then Enter:');
          expect(question).toContain('approval needed coordinator wants to run shell_run');
          expect(question).toMatch(/\n  command: echo status\n/);
          terminal.type('3');
          await terminal.waitFor('coordinator may run shell_run without asking when it matches [echo status]:');
          terminal.type('git *');
          await terminal.waitFor('not a usable pattern: the pattern "git *" does not match');
          terminal.type('3');
          await terminal.waitFor('when it matches [echo status]:', 2);
          terminal.type('echo *');
          const final = await terminal.waitFor('[legion exited:');
          expect(final).toContain('Status checked.');
          expect(final).toContain('[legion exited: 0]');
        } finally {
          terminal.close();
        }
        expect(await listedRules()).toEqual([
          expect.objectContaining({ participant: 'coordinator', tool: 'shell_run', pattern: 'echo *', medium: 'terminal' }),
        ]);
      },
      60_000,
    );

    /** `legion ARGS` in a tmux pane: type into it, wait for text on its screen (scrollback included). */
    function openTerminal(args: string[]) {
      const socket = join(workspace.dir, 'tmux-rules.sock');
      const config = join(workspace.dir, 'tmux-rules.conf');
      writeFileSync(config, 'set -g remain-on-exit on\nset -g history-limit 5000\n');
      const command = legionCommandLine(env(), args);
      const tmuxEnv = { ...process.env };
      delete tmuxEnv.TMUX;
      const tmux = tmuxOn(socket, config, workspace.dir);
      tmux('new-session', '-d', '-s', 'legion', '-x', '200', '-y', '50', '-c', workspace.dir, command);
      const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'legion');
      return {
        /** Resolves with the screen once `text` is on it `times` times. */
        waitFor: (text: string, times = 1): Promise<string> => waitForText(screen, text, { times }),
        type(text: string): void {
          tmux('send-keys', '-t', 'legion', '-l', text);
          tmux('send-keys', '-t', 'legion', 'Enter');
        },
        close(): void {
          spawnSync('tmux', ['-S', socket, 'kill-server'], { env: tmuxEnv });
        },
      };
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
