import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseParticipant, type Participant } from '../team/collective/participant.js';
import type { ApprovalRule } from './approval-rule.js';
import { ConfigError } from '../kernel/errors.js';
import type { LegionEvent } from '../kernel/events/event-types.js';
import type { Message } from '../kernel/message.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../testing/index.js';
import { tempWorkspace } from '../tools/builtin/__fixtures__/tool-context.js';
import { createFileWriteTool } from '../tools/builtin/files/file-write.js';
import { createShellRunTool } from '../tools/builtin/shell/shell-run.js';
import { AuthEngine } from '../authorization/AuthEngine.js';

const dev: Participant = parseParticipant({ id: 'dev', type: 'agent', name: 'dev', systemPrompt: '' });
const shellRun = createShellRunTool();
const fileWrite = createFileWriteTool();

const rule = (fields: Partial<ApprovalRule> & Pick<ApprovalRule, 'tool'>): ApprovalRule => ({
  version: 1,
  id: 'rule_test',
  participant: 'dev',
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'user',
  ...fields,
});

describe('an approval rule in the AuthEngine', () => {
  const engine = (rules: ApprovalRule[], root?: string) =>
    new AuthEngine({}, root, { approvalRules: (id) => rules.filter((candidate) => candidate.participant === id) });
  const shell = (rules: ApprovalRule[], command: string, participant = dev) =>
    engine(rules).evaluate({ participant, tool: shellRun, input: { command } });

  it('approves the commands its pattern matches whole, for its participant and tool only', () => {
    const rules = [rule({ tool: 'shell_run', pattern: 'git status*' })];
    expect(shell(rules, 'git status')).toMatchObject({ mode: 'auto', source: 'approval rule rule_test' });
    expect(shell(rules, 'git status --short')).toMatchObject({ mode: 'auto' });
    expect(shell(rules, 'git status && git status -s').mode).toBe('auto');
    expect(shell(rules, 'git push').mode).toBe('requires_approval');
    expect(shell([], 'git status').mode).toBe('requires_approval');
    const other = parseParticipant({ id: 'ops', type: 'agent', name: 'ops', systemPrompt: '' });
    expect(shell(rules, 'git status', other).mode).toBe('requires_approval');
    expect(shell([rule({ tool: 'process_start', pattern: 'git status*' })], 'git status').mode).toBe('requires_approval');
  });

  it.each([
    'git status; rm -rf x',
    'git status && rm -rf x',
    'git status\nrm -rf x',
    'git status | sh',
    'git status > x',
    'git status $(rm -rf x)',
    'git status `rm -rf x`',
    'git status "$HOME"',
    'git status --output=x',
    'git status &',
    'git status "unterminated',
  ])('"git status*" does not approve %j', (command) => {
    const rules = [rule({ tool: 'shell_run', pattern: 'git status*' })];
    expect(shell(rules, 'git status').mode).toBe('auto');
    expect(shell(rules, command).mode).toBe('requires_approval');
  });

  it('even a rule for every command leaves a command that refers to .legion/ asking', () => {
    expect(shell([rule({ tool: 'shell_run' })], 'ls src').mode).toBe('auto');
    expect(shell([rule({ tool: 'shell_run' })], 'cat .legion/config.json').mode).toBe('requires_approval');
  });

  it('makes an exact pattern from a call, keeping word boundaries, and refuses what no rule could approve', () => {
    const auth = engine([]);
    expect(auth.rulePattern(shellRun, { command: 'git commit -m "fix it"' })).toEqual({ ok: true, pattern: "git commit -m 'fix it'" });
    const exact = [rule({ tool: 'shell_run', pattern: "git commit -m 'fix it'" })];
    expect(shell(exact, "git commit -m 'fix it'").mode).toBe('auto');
    expect(shell(exact, 'git commit -m fix it').mode).toBe('requires_approval');
    // A glob in the command is a word of its own: the exact pattern matches that word, not what the shell expands it to.
    expect(auth.rulePattern(shellRun, { command: 'ls *.ts' })).toEqual({ ok: true, pattern: "ls '\\*.ts'" });
    expect(shell([rule({ tool: 'shell_run', pattern: "ls '\\*.ts'" })], 'ls *.ts').mode).toBe('auto');
    expect(shell([rule({ tool: 'shell_run', pattern: "ls '\\*.ts'" })], 'ls x.ts').mode).toBe('requires_approval');
    expect(auth.rulePattern(shellRun, { command: 'git status > x' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('a redirection'),
    });
    expect(auth.rulePattern(shellRun, { command: 'npm run build && npm test' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('2 commands'),
    });
    expect(auth.rulePattern(shellRun, { command: 'npm run build && npm test' }, 'npm *')).toEqual({ ok: true, pattern: 'npm *' });
    expect(auth.rulePattern(shellRun, { command: 'git push' }, 'git status*')).toMatchObject({
      ok: false,
      error: expect.stringContaining('does not match'),
    });
  });

  describe("on paths, with the path rules' forms", () => {
    let workspace: ReturnType<typeof tempWorkspace>;
    beforeEach(() => {
      workspace = tempWorkspace();
      mkdirSync(join(workspace.root, 'src'));
      mkdirSync(join(workspace.root, 'secret'));
      symlinkSync(join(workspace.root, 'secret'), join(workspace.root, 'src', 'link'));
    });
    afterEach(() => workspace.cleanup());

    it('approves a write only when every form of the path matches', () => {
      const auth = engine([rule({ tool: 'file_write', pattern: 'src/**' })], workspace.root);
      const write = (path: string) => auth.evaluate({ participant: dev, tool: fileWrite, input: { path, content: '' } }).mode;
      expect(write('src/app.ts')).toBe('auto');
      expect(write('./src/deep/app.ts')).toBe('auto');
      expect(write('src/../secret/key')).toBe('requires_approval');
      expect(write('src/link/key')).toBe('requires_approval');
      expect(write('../outside.ts')).toBe('requires_approval');
      expect(auth.rulePattern(fileWrite, { path: './src/a(1).ts', content: '' })).toEqual({ ok: true, pattern: 'src/a\\(1\\).ts' });
      expect(
        engine([rule({ tool: 'file_write', pattern: 'src/a\\(1\\).ts' })], workspace.root).evaluate({
          participant: dev,
          tool: fileWrite,
          input: { path: 'src/a(1).ts', content: '' },
        }).mode,
      ).toBe('auto');
      expect(
        engine([rule({ tool: 'file_write', pattern: 'src/a\\(1\\).ts' })], workspace.root).evaluate({
          participant: dev,
          tool: fileWrite,
          input: { path: 'src/a1.ts', content: '' },
        }).mode,
      ).toBe('requires_approval');
      expect(auth.rulePattern(fileWrite, { path: 'src/link/key', content: '' })).toMatchObject({ ok: false });
    });
  });
});

const lastResult = (request: { messages: readonly Message[] }) => {
  const block = request.messages.at(-1)!.content[0];
  if (block?.type !== 'tool_result') throw new Error(`expected a tool_result, got ${JSON.stringify(block)}`);
  return block;
};

describe('approval rules in a workspace', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  const shellCall = (id: string, command: string) => ({ toolCalls: [{ id, name: 'shell_run', input: { command } }] });
  const rulesDir = () => join(test.root, '.legion/collective/approval-rules');

  it('an answer with remember "always" makes a rule that approves the next matching call in a new session of a new Legion, not another call; removing it revokes it', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('dev')],
      entryAgent: 'dev',
      scripts: {
        dev: [
          shellCall('s1', 'echo one'),
          { expect: (request) => expect(lastResult(request).content).toContain('one'), text: 'ran one' },
          shellCall('s2', 'echo two'),
          { expect: (request) => expect(lastResult(request).content).toContain('two'), text: 'ran two' },
          shellCall('s3', 'echo three; touch x'),
          shellCall('s4', 'echo four'),
        ],
      },
    });
    const first = await test.legion.sessions.create();
    const paused = await test.legion.send(first, 'run one');
    if (paused.status !== 'paused') throw new Error(`expected a pause, got ${JSON.stringify(paused)}`);
    const requestId = paused.requests[0]!.id;
    const added: LegionEvent[] = [];
    test.legion.events.on('approval-rule:added', (event) => added.push(event));
    const answered = await first.answerApprovals([{ id: requestId, decision: 'approve', remember: 'always', pattern: 'echo *' }], 'user', {
      medium: 'terminal',
    });
    expect(answered).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'ran one' }] });

    const [created] = test.legion.approvalRules.list();
    expect(created).toMatchObject({
      participant: 'dev',
      tool: 'shell_run',
      pattern: 'echo *',
      createdBy: 'user',
      medium: 'terminal',
      fromRequest: { sessionId: first.id, requestId },
    });
    expect(readdirSync(rulesDir())).toEqual([`${created!.id}.json`]);
    expect(added).toMatchObject([{ type: 'approval-rule:added', id: created!.id, pattern: 'echo *' }]);
    const decisionLine = readFileSync(join(test.root, '.legion/sessions', first.id, 'approvals.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .at(-1)!;
    expect(JSON.parse(decisionLine)).toMatchObject({
      kind: 'decision',
      requestId,
      remember: 'always',
      ruleId: created!.id,
      pattern: 'echo *',
      medium: 'terminal',
    });
    expect(JSON.parse(decisionLine).always).toBeUndefined();

    // A new process: another Legion on the same files, in a new session.
    const reopened = test.reopen();
    try {
      const second = await reopened.sessions.create();
      expect(await reopened.send(second, 'run two')).toMatchObject({ status: 'success', reply: 'ran two' });
      expect(await second.approvals.list()).toEqual([]);
      const smuggled = await reopened.send(second, 'run three');
      expect(smuggled).toMatchObject({ status: 'paused', requests: [{ tool: 'shell_run', input: { command: 'echo three; touch x' } }] });

      expect(reopened.approvalRules.remove(created!.id)).toMatchObject({ id: created!.id });
      expect(readdirSync(rulesDir())).toEqual([]);
      const third = await reopened.sessions.create();
      expect(await reopened.send(third, 'run four')).toMatchObject({ status: 'paused', requests: [{ input: { command: 'echo four' } }] });
    } finally {
      await reopened.close();
    }
    test.assertScriptsDone();
  });

  it('a denied tool stays denied with a rule for it; a rule for a tool that asks cannot make it run where a deny holds', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        {
          ...agentParticipant('dev'),
          policies: { shell_run: { mode: 'requires_approval', rules: [{ mode: 'deny', args: { command: '^rm\\b' } }] } },
        } as never,
      ],
      entryAgent: 'dev',
      scripts: {
        dev: [
          shellCall('s1', 'rm -rf src'),
          {
            expect: (request) =>
              expect(lastResult(request)).toMatchObject({
                isError: true,
                content: expect.stringMatching(/^Denied: shell_run is not allowed here/),
              }),
            text: 'denied',
          },
        ],
      },
    });
    test.legion.approvalRules.add({ participant: 'dev', tool: 'shell_run', pattern: '*' });
    writeFileSync(join(test.root, '.legion/config.json'), JSON.stringify({ policies: { file_write: 'deny' } }));
    const reopened = test.reopen();
    try {
      reopened.approvalRules.add({ participant: 'dev', tool: 'file_write' });
      const write = reopened.auth.evaluate({
        participant: reopened.collective.require('dev'),
        tool: fileWrite,
        input: { path: 'a.txt', content: '' },
      });
      expect(write.mode).toBe('deny');
      const session = await reopened.sessions.create();
      expect(await reopened.send(session, 'clean up')).toMatchObject({ status: 'success', reply: 'denied' });
      expect(await session.approvals.list()).toEqual([]);
    } finally {
      await reopened.close();
    }
  });

  it('a corrupt rule file is reported with its file, field and fix, approves nothing, and is left as it was', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('dev')],
      entryAgent: 'dev',
      scripts: { dev: [shellCall('s1', 'echo hi')] },
    });
    mkdirSync(rulesDir(), { recursive: true });
    const broken = join(rulesDir(), 'rule_broken.json');
    const text = JSON.stringify({
      version: 1,
      id: 'rule_broken',
      participant: 'dev',
      tool: 'shell_run',
      paterns: 'echo *',
      createdAt: '2026-01-01T00:00:00.000Z',
      createdBy: 'user',
    });
    writeFileSync(broken, text);
    const error = (() => {
      try {
        test.legion.approvalRules.list();
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/^\.legion\/collective\/approval-rules\/rule_broken\.json .*paterns.*Fix:/s);
    const warnings: LegionEvent[] = [];
    test.legion.events.on('storage:warning', (event) => warnings.push(event));
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'hi')).toMatchObject({ status: 'paused' });
    expect(warnings).toMatchObject([
      { path: '.legion/collective/approval-rules/rule_broken.json', problem: expect.stringContaining('paterns') },
    ]);
    test.legion.approvalRules.add({ participant: 'dev', tool: 'shell_run', pattern: 'ls' });
    expect(readFileSync(broken, 'utf8')).toBe(text);
    expect(readdirSync(rulesDir())).toHaveLength(2);
  });

  it('a rule approves nothing unless its maker is a user who may approve that call, and says so once', async () => {
    test = createTestLegion({
      participants: [userParticipant(), userParticipant('visitor', { approvalAuthority: 'none' } as never), agentParticipant('dev')],
      entryAgent: 'dev',
      scripts: { dev: [shellCall('s1', 'echo hi')] },
    });
    expect(() => test.legion.approvalRules.add({ participant: 'dev', tool: 'shell_run', createdBy: 'visitor' })).toThrow(
      /visitor may not approve dev's shell_run/,
    );
    expect(() => test.legion.approvalRules.add({ participant: 'dev', tool: 'shell_run', createdBy: 'dev' })).toThrow(/Only a user makes/);
    mkdirSync(rulesDir(), { recursive: true });
    const file = join(rulesDir(), 'rule_byagent.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        id: 'rule_byagent',
        participant: 'dev',
        tool: 'shell_run',
        createdAt: '2026-01-01T00:00:00.000Z',
        createdBy: 'dev',
      }),
    );
    const warnings: LegionEvent[] = [];
    test.legion.events.on('storage:warning', (event) => warnings.push(event));
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'hi')).toMatchObject({ status: 'paused' });
    const dev = test.legion.collective.require('dev');
    expect(
      test.legion.auth.evaluate({ participant: dev, tool: test.legion.tools.get('shell_run')!, input: { command: 'echo hi' } }).mode,
    ).toBe('requires_approval');
    expect(warnings).toMatchObject([
      {
        path: '.legion/collective/approval-rules/rule_byagent.json',
        problem: expect.stringMatching(/^field "createdBy": "dev" is not an active user who may approve dev's shell_run.*Fix:/),
      },
    ]);
  });

  it('a surface that answers "approve always" makes the rule; one whose pattern cannot stand is told, and the others decide', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('dev')],
      entryAgent: 'dev',
      scripts: { dev: [shellCall('s1', 'echo one'), { text: 'ran one' }] },
    });
    const errors: LegionEvent[] = [];
    test.legion.events.on('error:raised', (event) => errors.push(event));
    let release: () => void = () => {};
    const later = new Promise<void>((resolve) => (release = resolve));
    test.legion.attachUser({
      medium: 'bad',
      approve: async (requests) =>
        requests.map((request) => ({ id: request.id, decision: 'approve', remember: 'always', pattern: 'git *' })),
    });
    test.legion.attachUser({
      medium: 'good',
      approve: async (requests) => {
        await later;
        return requests.map((request) => ({ id: request.id, decision: 'approve', remember: 'always' }));
      },
    });
    test.legion.events.on('error:raised', () => release());
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'run one')).toMatchObject({ status: 'success', reply: 'ran one' });
    expect(errors).toMatchObject([{ scope: 'user surface bad', message: expect.stringContaining('does not match') }]);
    expect(test.legion.approvalRules.list()).toMatchObject([{ pattern: 'echo one', medium: 'good' }]);
  });

  it('two Legions answering one request "always" at once make one rule: the winning decision\'s', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('dev')],
      entryAgent: 'dev',
      scripts: { dev: [shellCall('s1', 'echo one'), { text: 'ran one' }] },
    });
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'run one');
    if (paused.status !== 'paused') throw new Error('expected a pause');
    const id = paused.requests[0]!.id;
    const other = test.reopen();
    try {
      const otherSession = await other.sessions.get(session.id);
      const outcomes = await Promise.all([
        session.answerApprovals([{ id, decision: 'approve', remember: 'always', pattern: 'echo *' }], 'user'),
        otherSession.answerApprovals([{ id, decision: 'approve', remember: 'always' }], 'user'),
      ]);
      expect(outcomes.filter((outcome) => outcome.status === 'answered')).toHaveLength(1);
      const rules = test.legion.approvalRules.list();
      expect(rules).toHaveLength(1);
      expect((await session.approvals.list())[0]).toMatchObject({ status: 'approved', decisionRuleId: rules[0]!.id });
    } finally {
      await other.close();
    }
  });
});
