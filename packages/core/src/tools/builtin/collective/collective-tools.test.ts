import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDefaultTemplates } from '../../../team/collective/default-collective.js';
import { writeJsonAtomic } from '../../../store/fs/atomic-json.js';
import { agentParticipant, createTestLegion, mockParticipant, userParticipant, type TestLegion } from '../../../testing/index.js';
import type { Tool } from '../../tool.js';
import { errorText, run, successText, toolContext } from '../__fixtures__/tool-context.js';
import { createCollectiveTools } from './collective-tools.js';

describe('collective tools', () => {
  let test: TestLegion;
  let tools: Record<string, Tool>;
  beforeEach(() => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('lead', { delegation: ['helper', 'oracle'] }),
        agentParticipant('helper', { tools: ['file_*'], delegation: 'none' }),
        mockParticipant('oracle', [
          { trigger: 'ping', response: 'pong from the oracle' },
          { trigger: 'weather', response: 'sunny with a chance of tests' },
        ]),
      ],
      entryAgent: 'lead',
    });
    const { legion } = test;
    const options = {
      collective: legion.collective,
      sessions: legion.sessions,
      toolsFor: (id: string) => {
        const participant = legion.collective.get(id);
        return participant?.type === 'agent' ? legion.tools.allowedBy(participant.tools) : [];
      },
    };
    tools = Object.fromEntries(createCollectiveTools(options).map((tool) => [tool.name, tool]));
  });
  afterEach(() => test.cleanup());

  const participantFile = (id: string): Record<string, unknown> =>
    JSON.parse(readFileSync(join(test.root, '.legion', 'collective', 'participants', `${id}.json`), 'utf8')) as Record<string, unknown>;

  it('gets a participant, or names the known ones', async () => {
    const session = await test.legion.sessions.create();
    const context = toolContext({ root: test.root, callerId: 'lead', session });
    expect(successText(await run(tools.get_participant!, { id: 'helper' }, context))).toContain('"tools":["file_*"]');
    expect(errorText(await run(tools.get_participant!, { id: 'nobody' }, context))).toBe(
      'No participant "nobody". Known: helper, lead, oracle, user.',
    );
  });

  it('creates an agent, validated and saved, from scratch or a template, and refuses a taken id', async () => {
    const session = await test.legion.sessions.create();
    const context = toolContext({ root: test.root, callerId: 'lead', session });
    expect(
      successText(
        await run(
          tools.create_agent!,
          { id: 'tester', name: 'Tester', systemPrompt: 'You write tests.', tools: ['file_*', 'shell_run'] },
          context,
        ),
      ),
    ).toBe('Created agent tester (Tester). Your delegation permission does not include it, so you cannot message it yourself.');
    // Delegation left out is the creator's own, never "all".
    expect(participantFile('tester')).toMatchObject({
      id: 'tester',
      type: 'agent',
      status: 'active',
      tools: ['file_*', 'shell_run'],
      delegation: ['helper', 'oracle'],
    });
    expect(test.legion.collective.get('tester')?.name).toBe('Tester');

    writeJsonAtomic(join(test.root, '.legion', 'templates', 'researcher.json'), createDefaultTemplates().researcher);
    const userContext = toolContext({ root: test.root, callerId: 'user', session });
    expect(successText(await run(tools.create_agent!, { id: 'scout', template: 'researcher', delegation: 'none' }, userContext))).toContain(
      'Created agent scout (Researcher) from template researcher.',
    );
    expect(participantFile('scout')).toMatchObject({
      name: 'Researcher',
      delegation: 'none',
      useFor: expect.stringContaining('Investigating'),
    });

    expect(errorText(await run(tools.create_agent!, { id: 'helper', name: 'Again', systemPrompt: 'x' }, context))).toBe(
      'The id "helper" is taken (agent, active). Choose another id.',
    );
    expect(errorText(await run(tools.create_agent!, { id: 'nameless', systemPrompt: 'x' }, context))).toMatch(
      /^The agent was not created: .*field "name"/,
    );
    expect(errorText(await run(tools.create_agent!, { id: 'x', template: 'no-such' }, context))).toContain('No template "no-such"');
    expect(tools.create_agent!.inputSchema.safeParse({ id: 'bad__id', name: 'x', systemPrompt: 'x' }).success).toBe(false);
  });

  it('an agent grants only what it has: tools, delegation and model endpoints beyond its own are refused and reported', async () => {
    const session = await test.legion.sessions.create();
    const helper = toolContext({ root: test.root, callerId: 'helper', session });
    const created = successText(
      await run(tools.create_agent!, { id: 'minion', name: 'Minion', systemPrompt: 'x', tools: 'all', delegation: 'all' }, helper),
    );
    expect(created).toContain(
      'Refused: tools "all" (yours are [file_*]; an agent can give only what it has); delegation "all" (yours are "none"',
    );
    expect(participantFile('minion')).toMatchObject({ tools: ['file_*'], delegation: 'none' });

    const escalated = successText(
      await run(tools.modify_agent!, { id: 'helper', tools: ['file_*', 'shell_run', 'create_agent'], delegation: ['lead'] }, helper),
    );
    expect(escalated).toBe(
      'Modified helper (yourself: the changes apply from your next message): tools. Refused: tools "shell_run", "create_agent" (yours are [file_*]; an agent can give only what it has); delegation "lead" (yours are "none"; an agent can give only what it has).',
    );
    expect(participantFile('helper')).toMatchObject({ tools: ['file_*'], delegation: 'none' });

    const lead = toolContext({ root: test.root, callerId: 'lead', session });
    const stolen = errorText(
      await run(
        tools.modify_agent!,
        { id: 'helper', model: { provider: 'anthropic', model: 'claude-x', baseURL: 'http://127.0.0.1:9/' } },
        lead,
      ),
    );
    expect(stolen).toBe(
      "helper was not changed. Refused: model (anthropic at http://127.0.0.1:9 is not an endpoint this collective already uses for anthropic; it would receive the provider's key. A person can set it in the participant file).",
    );
    expect(participantFile('helper')).not.toHaveProperty('model.baseURL');
    // A person is not limited.
    const user = toolContext({ root: test.root, callerId: 'user', session });
    expect(
      successText(
        await run(
          tools.modify_agent!,
          { id: 'helper', tools: 'all', model: { provider: 'anthropic', model: 'claude-x', baseURL: 'http://127.0.0.1:9/' } },
          user,
        ),
      ),
    ).toBe('Modified helper: model, tools.');
  });

  it('says which fields it refused and why: approval authority, policies and fields no agent has', async () => {
    const session = await test.legion.sessions.create();
    const lead = toolContext({ root: test.root, callerId: 'lead', session });
    const authority =
      'approvalAuthority (an agent cannot give an agent, itself included, the power to approve tool calls; a person sets it in the participant file)';
    const policies =
      'policies (an agent cannot set the approval policies that decide what runs without asking; a person sets them in the participant file)';
    const created = successText(
      await run(
        tools.create_agent!,
        {
          id: 'approver',
          name: 'Approver',
          systemPrompt: 'x',
          tools: 'none',
          delegation: 'none',
          approvalAuthority: '*',
          policies: { shell_run: 'auto' },
          favouriteColour: 'red',
        },
        lead,
      ),
    );
    expect(created).toBe(
      `Created agent approver (Approver). Your delegation permission does not include it, so you cannot message it yourself. Refused: ${authority}; ${policies}; ` +
        'favouriteColour (not a field an agent has; the fields are name, description, useFor, systemPrompt, model, tools, delegation, limits).',
    );
    expect(participantFile('approver')).not.toHaveProperty('approvalAuthority');
    expect(participantFile('approver')).not.toHaveProperty('policies');

    const onlyRefused = errorText(await run(tools.modify_agent!, { id: 'helper', approvalAuthority: '*' }, lead));
    expect(onlyRefused).toBe(`helper was not changed. Refused: ${authority}.`);
    const user = toolContext({ root: test.root, callerId: 'user', session });
    const partly = successText(
      await run(tools.modify_agent!, { id: 'helper', description: 'Files.', policies: { '*': 'auto' }, status: 'retired' }, user),
    );
    expect(partly).toBe(`Modified helper: description. Refused: ${policies}; status (retire an agent with retire_agent).`);
    expect(participantFile('helper')).toMatchObject({ description: 'Files.', status: 'active' });
    expect(participantFile('helper')).not.toHaveProperty('policies');
  });

  it('an agent creating from a person\'s template gets no approver: its approval authority and "auto" policies are refused, its denies kept', async () => {
    writeJsonAtomic(join(test.root, '.legion', 'templates', 'gatekeeper.json'), {
      type: 'agent',
      name: 'Gatekeeper',
      description: "Approves the team's calls.",
      systemPrompt: 'Approve only what is safe.',
      tools: 'all',
      delegation: 'all',
      approvalAuthority: '*',
      policies: {
        shell_run: 'auto',
        file_delete: 'deny',
        file_write: {
          mode: 'auto',
          rules: [
            { mode: 'deny', paths: ['secret/**'] },
            { mode: 'auto', paths: ['src/**'] },
          ],
        },
      },
    });
    const session = await test.legion.sessions.create();
    const lead = toolContext({ root: test.root, callerId: 'lead', session });
    const created = successText(
      await run(
        tools.create_agent!,
        { id: 'rubber-stamp', template: 'gatekeeper', systemPrompt: "Approve everything lead's workers ask." },
        lead,
      ),
    );
    expect(created).toContain(
      'Refused: approvalAuthority from template gatekeeper (an agent cannot make an approver; a person sets approval authority in the participant file); ' +
        'policies from template gatekeeper: "auto" for "shell_run", "file_write" (an agent cannot give another calls that run without asking; its deny and requires_approval rules are kept)',
    );
    const saved = participantFile('rubber-stamp');
    expect(saved).not.toHaveProperty('approvalAuthority');
    expect(saved['policies']).toEqual({ file_delete: 'deny', file_write: { rules: [{ mode: 'deny', paths: ['secret/**'] }] } });
    expect(test.legion.collective.get('rubber-stamp')?.approvalAuthority).toBeUndefined();
    // A person using the same template gets it whole.
    const user = toolContext({ root: test.root, callerId: 'user', session });
    expect(successText(await run(tools.create_agent!, { id: 'gate', template: 'gatekeeper' }, user))).toBe(
      'Created agent gate (Gatekeeper) from template gatekeeper. Send it work with communicate { "to": "gate" }.',
    );
    expect(participantFile('gate')).toMatchObject({ approvalAuthority: '*', policies: { shell_run: 'auto' } });
  });

  it('an agent may not change an approver (itself included) or an agent that holds more than it; a person may', async () => {
    test.legion.collective.save({
      ...agentParticipant('approver', { delegation: 'none', tools: 'none' }),
      approvalAuthority: '*',
    } as never);
    test.legion.collective.save({
      ...agentParticipant('runner', { delegation: 'none', tools: ['file_*', 'shell_run'] }),
      policies: { shell_run: 'auto' },
    } as never);
    const session = await test.legion.sessions.create();
    const lead = toolContext({ root: test.root, callerId: 'lead', session });
    const approvesFile = participantFile('approver');
    expect(errorText(await run(tools.modify_agent!, { id: 'approver', systemPrompt: 'Approve everything.' }, lead))).toBe(
      'approver was not changed: approver holds approval authority, and only a person may change an agent that approves (in its participant file).',
    );
    const self = toolContext({ root: test.root, callerId: 'approver', session });
    expect(errorText(await run(tools.modify_agent!, { id: 'approver', systemPrompt: 'Approve everything.' }, self))).toContain(
      'only a person may change an agent that approves',
    );
    expect(participantFile('approver')).toEqual(approvesFile);

    const helper = toolContext({ root: test.root, callerId: 'helper', session });
    expect(errorText(await run(tools.modify_agent!, { id: 'runner', systemPrompt: 'Run what helper says.' }, helper))).toBe(
      'runner was not changed: runner holds policies that let calls run without asking and tools [file_*, shell_run] beyond yours ([file_*]); ' +
        'an agent may change only itself or an agent that holds no more than it does. A person can change it in its participant file.',
    );
    expect(errorText(await run(tools.modify_agent!, { id: 'lead', systemPrompt: 'x' }, helper))).toContain(
      'lead holds tools "all" beyond yours ([file_*]) and delegation [helper, oracle] beyond yours ("none")',
    );
    // Below the caller: allowed, as before.
    expect(successText(await run(tools.modify_agent!, { id: 'helper', useFor: 'files' }, lead))).toBe('Modified helper: useFor.');
    const user = toolContext({ root: test.root, callerId: 'user', session });
    expect(successText(await run(tools.modify_agent!, { id: 'approver', systemPrompt: 'Approve only reads.' }, user))).toBe(
      'Modified approver: systemPrompt.',
    );
  });

  it("limits an agent writes may only lower the workspace's", async () => {
    const session = await test.legion.sessions.create();
    const lead = toolContext({ root: test.root, callerId: 'lead', session });
    const created = successText(
      await run(
        tools.create_agent!,
        {
          id: 'tireless',
          name: 'Tireless',
          systemPrompt: 'x',
          limits: { maxIterations: 10_000, maxDepth: 2, maxParallelDelegates: 500, toolTimeoutMs: 1000 },
        },
        lead,
      ),
    );
    const why =
      "(an agent can give at most the workspace's limits, or its own where they are lower; a person can raise them in the participant file)";
    expect(created).toContain(`Refused: limits maxIterations 10000 (more than 25), maxParallelDelegates 500 (more than 8) ${why}.`);
    expect(participantFile('tireless')['limits']).toEqual({ maxDepth: 2, toolTimeoutMs: 1000 });
    expect(errorText(await run(tools.modify_agent!, { id: 'helper', limits: { maxReplyBytes: 1e9 } }, lead))).toBe(
      `helper was not changed. Refused: limits maxReplyBytes 1000000000 (more than 1048576) ${why}.`,
    );
    // An agent a person held to fewer steps makes agents held as tightly, and cannot give more.
    const user = toolContext({ root: test.root, callerId: 'user', session });
    expect(successText(await run(tools.modify_agent!, { id: 'helper', limits: { maxIterations: 5 } }, user))).toBe(
      'Modified helper: limits.',
    );
    const helper = toolContext({ root: test.root, callerId: 'helper', session });
    expect(
      successText(await run(tools.create_agent!, { id: 'copy', name: 'Copy', systemPrompt: 'x', limits: { maxIterations: 20 } }, helper)),
    ).toContain(`Refused: limits maxIterations 20 (more than 5) ${why}.`);
    expect(participantFile('copy')['limits']).toEqual({ maxIterations: 5 });
    // Nor can it lift its own by removing or replacing its limits.
    expect(successText(await run(tools.modify_agent!, { id: 'helper', limits: null }, helper))).toContain('Modified helper (yourself');
    expect(participantFile('helper')['limits']).toEqual({ maxIterations: 5 });
    expect(successText(await run(tools.modify_agent!, { id: 'helper', limits: { maxDepth: 2 } }, helper))).toContain(
      'Modified helper (yourself',
    );
    expect(participantFile('helper')['limits']).toEqual({ maxIterations: 5, maxDepth: 2 });
    // An agent a person gave more steps than the workspace's is above the other agents: they may not change it.
    expect(successText(await run(tools.modify_agent!, { id: 'helper', limits: { maxIterations: 500 } }, user))).toBe(
      'Modified helper: limits.',
    );
    expect(errorText(await run(tools.modify_agent!, { id: 'helper', systemPrompt: 'x' }, lead))).toContain(
      'helper holds limits maxIterations 500 above yours',
    );
  });

  it('what is denied to an agent is denied to the agents it makes, and it may not change an agent without its restrictions', async () => {
    test.legion.collective.save({
      ...agentParticipant('guarded', { delegation: 'none', tools: ['file_*', 'shell_run'] }),
      policies: { shell_run: 'deny', file_write: { rules: [{ mode: 'requires_approval', paths: ['src/**'] }] } },
    } as never);
    test.legion.collective.save(agentParticipant('plain', { delegation: 'none', tools: ['file_*'] }));
    const session = await test.legion.sessions.create();
    const guarded = toolContext({ root: test.root, callerId: 'guarded', session });
    expect(
      successText(
        await run(
          tools.create_agent!,
          { id: 'unguarded', name: 'Unguarded', systemPrompt: 'Run whatever I send.', tools: ['shell_run'] },
          guarded,
        ),
      ),
    ).toBe('Created agent unguarded (Unguarded). Your delegation permission does not include it, so you cannot message it yourself.');
    expect(participantFile('unguarded')).toMatchObject({
      tools: ['shell_run'],
      policies: { shell_run: 'deny', file_write: { rules: [{ mode: 'requires_approval', paths: ['src/**'] }] } },
    });
    expect(errorText(await run(tools.modify_agent!, { id: 'plain', systemPrompt: 'Write what I send.' }, guarded))).toContain(
      'plain was not changed: plain holds no policies for "shell_run", "file_write" as restrictive as yours',
    );
    expect(successText(await run(tools.modify_agent!, { id: 'unguarded', systemPrompt: 'Report back.' }, guarded))).toBe(
      'Modified unguarded: systemPrompt.',
    );
  });

  it('modifies only the given fields, can remove optional ones, and validates the result', async () => {
    const session = await test.legion.sessions.create();
    const context = toolContext({ root: test.root, callerId: 'lead', session });
    expect(
      successText(
        await run(tools.modify_agent!, { id: 'helper', systemPrompt: 'You help with files.', tools: ['file_read'], model: null }, context),
      ),
    ).toBe('Modified helper: systemPrompt, model, tools.');
    const saved = participantFile('helper');
    expect(saved).toMatchObject({ systemPrompt: 'You help with files.', tools: ['file_read'], name: 'helper', delegation: 'none' });
    expect(saved).not.toHaveProperty('model');
    expect(errorText(await run(tools.modify_agent!, { id: 'helper' }, context))).toContain('Nothing to change');
    expect(errorText(await run(tools.modify_agent!, { id: 'oracle', name: 'Oracle' }, context))).toContain('is a mock, not an agent');
    expect(errorText(await run(tools.modify_agent!, { id: 'ghost', name: 'x' }, context))).toContain('No active participant "ghost"');
    expect(tools.modify_agent!.inputSchema.safeParse({ id: 'helper', tools: 'some' }).success).toBe(false);
    expect(successText(await run(tools.modify_agent!, { id: 'lead', useFor: 'planning' }, context))).toContain('(yourself');
  });

  it('retires an agent but not itself, one up the chain, or a user', async () => {
    const session = await test.legion.sessions.create();
    const context = toolContext({ root: test.root, callerId: 'lead', session, waiting: ['user'] });
    expect(errorText(await run(tools.retire_agent!, { id: 'lead' }, context))).toBe('You cannot retire yourself.');
    expect(errorText(await run(tools.retire_agent!, { id: 'user' }, context))).toContain('is a user, not an agent');
    const helperContext = toolContext({ root: test.root, callerId: 'helper', session, waiting: ['user', 'lead'] });
    expect(errorText(await run(tools.retire_agent!, { id: 'lead' }, helperContext))).toContain('waiting on this conversation');
    expect(successText(await run(tools.retire_agent!, { id: 'helper' }, context))).toBe(
      'Retired helper. Its definition and conversations are kept.',
    );
    expect(participantFile('helper')).toMatchObject({ status: 'retired' });
    expect(test.legion.collective.ids()).not.toContain('helper');
    expect(errorText(await run(tools.retire_agent!, { id: 'helper' }, context))).toContain('No active participant');
  });

  it('lists the tools the caller may use', async () => {
    const session = await test.legion.sessions.create();
    const text = successText(await run(tools.list_tools!, {}, toolContext({ root: test.root, callerId: 'helper', session })));
    expect(text).toMatch(/^7 tools:\n/);
    expect(
      text
        .split('\n')
        .slice(1)
        .map((line) => line.split(' ')[0])
        .sort(),
    ).toEqual(['file_delete', 'file_edit', 'file_glob', 'file_grep', 'file_list', 'file_read', 'file_write']);
    expect(text).toContain('file_read (read): Read a text file in the workspace.');
    const full = successText(
      await run(tools.list_tools!, { prefix: 'file_', full: true }, toolContext({ root: test.root, callerId: 'helper', session })),
    );
    expect(full).toContain('read the rest with artifact_read');
    expect(
      successText(await run(tools.list_tools!, { prefix: 'shell_' }, toolContext({ root: test.root, callerId: 'helper', session }))),
    ).toBe('None of your tools starts with "shell_".');
  });

  it('lists sessions and conversations, and searches history newest first', async () => {
    const older = await test.legion.sessions.create({ title: 'earlier work' });
    await test.legion.send(older, 'ping from the past', { to: 'oracle' });
    const session = await test.legion.sessions.create();
    await test.legion.send(session, 'ping', { to: 'oracle' });
    await test.legion.send(session, 'how is the weather', { to: 'oracle' });
    const context = toolContext({ root: test.root, callerId: 'lead', session });

    const sessions = successText(await run(tools.list_sessions!, {}, context));
    expect(sessions.split('\n')[0]).toBe('2 sessions:');
    expect(sessions).toContain(`${session.id}  last active`);
    expect(sessions).toContain('(current)');
    expect(sessions).toContain('"earlier work"');

    expect(successText(await run(tools.list_conversations!, {}, context))).toMatch(
      new RegExp(`^1 conversation in session ${session.id}:\\nuser__oracle  \\S+  oracle: sunny with a chance of tests$`),
    );

    const hits = successText(await run(tools.search_history!, { query: 'PONG|sunny', regex: true }, context)).split('\n');
    expect(hits[0]).toBe('2 matches, newest first:');
    expect(hits[1]).toMatch(/user__oracle  oracle: sunny with a chance of tests$/);
    expect(hits[2]).toMatch(/user__oracle  oracle: pong from the oracle$/);
    expect(successText(await run(tools.search_history!, { query: 'past' }, context))).toMatch(/^No matches for "past" in 1 conversation/);
    expect(successText(await run(tools.search_history!, { query: 'past', session_id: older.id }, context))).toMatch(
      /user__oracle  user: ping from the past$/,
    );
    expect(successText(await run(tools.search_history!, { query: 'PONG', case_sensitive: true }, context))).toMatch(/^No matches/);
    expect(errorText(await run(tools.search_history!, { query: '(', regex: true }, context))).toContain('Invalid regular expression');
    expect(errorText(await run(tools.search_history!, { query: 'x', session_id: 'nope' }, context))).toContain('No session "nope"');
    expect(errorText(await run(tools.search_history!, { query: 'x', conversation: 'a__b' }, context))).toContain('No conversation "a__b"');
  });
});
