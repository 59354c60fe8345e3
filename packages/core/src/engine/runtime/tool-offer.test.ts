import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolResultsOf } from '../../kernel/message.js';
import type { ModelRequest, ToolDefinition } from '../../model/providers/llm-provider.js';
import type { ScriptStep } from '../../model/providers/scripted/ScriptedProvider.js';
import { loadTokenCounter } from '../../model/context/token-count.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { BUILTIN_TOOL_FAMILIES } from '../../tools/builtin/index.js';

/** Steps that record each request they answer. */
function recorded(requests: ModelRequest[], steps: ScriptStep[]): ScriptStep[] {
  return steps.map((step) => ({ ...step, expect: (request: ModelRequest) => void requests.push(request) }));
}

const names = (request: ModelRequest): string[] => request.tools.map((tool) => tool.name).sort();
const tool = (request: ModelRequest, name: string): ToolDefinition | undefined =>
  request.tools.find((definition) => definition.name === name);
const results = (request: ModelRequest): string[] => toolResultsOf(request.messages.at(-1)!).map((result) => result.content);

describe("tool schemas under toolSchemas 'compact'", () => {
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
  });

  it('send communicate and load_tools with a catalogue; a loaded family comes whole at the next step and stays loaded in a resumed conversation', async () => {
    const requests: ModelRequest[] = [];
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('helper'), agentParticipant('worker', { context: { toolSchemas: 'compact' } })],
      scripts: {
        worker: recorded(requests, [
          { toolCalls: [{ id: 'load', name: 'load_tools', input: { names: ['files'] } }] },
          { toolCalls: [{ id: 'read', name: 'file_read', input: { path: 'notes.md' } }] },
          { text: 'Read it.' },
          // A new turn, in a Legion opened again as another process would.
          { text: 'Still here.' },
        ]),
      },
    });
    writeFileSync(join(test.root, 'notes.md'), 'hello\n');
    const session = await test.legion.sessions.create();

    expect(await test.legion.send(session, 'Read notes.md', { to: 'worker' })).toMatchObject({ status: 'success', reply: 'Read it.' });

    const [first, second] = requests;
    expect(names(first!)).toEqual(['communicate', 'load_tools']);
    // communicate in its compact form: the one-line summary, the parameters without prose.
    expect(tool(first!, 'communicate')).toEqual({
      name: 'communicate',
      description: 'Message a participant and get their reply (delegate work, ask a question).',
      parameters: {
        type: 'object',
        properties: {
          to: { type: 'string', minLength: 1 },
          message: { type: 'string', minLength: 1 },
          conversation: { type: 'string' },
          isolation: { type: 'string', enum: ['worktree'] },
        },
        required: ['to', 'message'],
      },
    });
    const catalogue = tool(first!, 'load_tools')!.description;
    for (const family of Object.keys(BUILTIN_TOOL_FAMILIES)) expect(catalogue).toMatch(new RegExp(`^- ${family}: .*`, 'm'));
    expect(catalogue).toContain('file_read, file_write, file_edit');
    expect(catalogue).toContain('- approvals: ');

    expect(results(second!)).toEqual([
      expect.stringMatching(/^Loaded files \(file_read, file_write, file_edit, file_list, file_delete, file_glob, file_grep\)\./),
    ]);
    expect(names(second!)).toEqual([
      'communicate',
      'file_delete',
      'file_edit',
      'file_glob',
      'file_grep',
      'file_list',
      'file_read',
      'file_write',
      'load_tools',
    ]);
    const fileRead = test.legion.tools.get('file_read')!;
    expect(tool(second!, 'file_read')).toEqual({ name: 'file_read', description: fileRead.description, parameters: fileRead.parameters });
    expect(tool(second!, 'load_tools')!.description).not.toContain('- files');
    expect(results(requests[2]!)[0]).toContain('hello');

    await test.legion.close();
    const reopened = test.reopen();
    try {
      const resumed = await reopened.sessions.get(session.id);
      expect(await reopened.send(resumed, 'Anything else?', { to: 'worker' })).toMatchObject({ status: 'success', reply: 'Still here.' });
    } finally {
      await reopened.close();
    }
    expect(tool(requests[3]!, 'file_read')).toEqual({
      name: 'file_read',
      description: fileRead.description,
      parameters: fileRead.parameters,
    });
    test.assertScriptsDone();
  });

  it('keep what was loaded when a turn paused on an approval resumes in another Legion', async () => {
    const requests: ModelRequest[] = [];
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', context: { toolSchemas: 'compact' } })],
      scripts: {
        worker: recorded(requests, [
          { toolCalls: [{ id: 'load', name: 'load_tools', input: { names: ['files'] } }] },
          { toolCalls: [{ id: 'write', name: 'file_write', input: { path: 'out.txt', content: 'done\n' } }] },
          { text: 'Written.' },
        ]),
      },
    });
    const fullDescription = test.legion.tools.get('file_write')!.description;
    const session = await test.legion.sessions.create();
    const paused = await test.legion.send(session, 'Write out.txt', { to: 'worker' });
    expect(paused).toMatchObject({ status: 'paused', requests: [{ tool: 'file_write' }] });
    const requestId = paused.status === 'paused' ? paused.requests[0]!.id : '';
    await test.legion.close();

    const reopened = test.reopen();
    try {
      const answered = await (await reopened.sessions.get(session.id)).answerApprovals([{ id: requestId, decision: 'approve' }], 'user');
      expect(answered).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'Written.' }] });
    } finally {
      await reopened.close();
    }
    expect(readFileSync(join(test.root, 'out.txt'), 'utf8')).toBe('done\n');
    // The resumed turn's request still carries the family loaded before the pause, whole.
    expect(tool(requests[2]!, 'file_write')?.description).toBe(fullDescription);
    expect(names(requests[2]!)).toContain('file_grep');
    test.assertScriptsDone();
  });

  it('run a tool that was not loaded when it is called, say how to load it when the input is wrong, then offer it in compact form', async () => {
    const requests: ModelRequest[] = [];
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', context: { toolSchemas: 'compact' } })],
      scripts: {
        worker: recorded(requests, [
          { toolCalls: [{ id: 'guess', name: 'todo_write', input: { todos: ['Ship it'] } }] },
          { toolCalls: [{ id: 'plan', name: 'todo_write', input: { items: [{ id: '1', text: 'Ship it', status: 'in_progress' }] } }] },
          { text: 'Planned.' },
        ]),
      },
    });
    const session = await test.legion.sessions.create();

    expect(await test.legion.send(session, 'Plan', { to: 'worker' })).toMatchObject({ status: 'success', reply: 'Planned.' });

    expect(names(requests[0]!)).toEqual(['load_tools']);
    expect(results(requests[1]!)).toEqual([
      expect.stringMatching(
        /^Invalid input for todo_write: "items" .* Its full schema is not loaded: load_tools \{ "names": \["todo_write"\] \} sends it with your next step\.$/,
      ),
    ]);
    expect(tool(requests[1]!, 'todo_write')).toMatchObject({ description: 'Replace your todo list (send the whole list).' });
    expect(results(requests[2]!)).toEqual(['Todo list (1 item: 0 done, 1 in progress, 0 pending)\n[>] 1. Ship it']);
    expect(tool(requests[2]!, 'load_tools')!.description).toContain('- planning: your todo list: todo_read');
  });

  it('never offer, load or run a tool the agent may not use: outside its tools permission, or denied by a policy', async () => {
    const requests: ModelRequest[] = [];
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('worker', { delegation: 'none', tools: ['file_*', 'todo_*'], context: { toolSchemas: 'compact' } }),
      ],
      scripts: {
        worker: recorded(requests, [
          { toolCalls: [{ id: 'sneak', name: 'load_tools', input: { names: ['file_delete', 'shell_run', 'shell'] } }] },
          { toolCalls: [{ id: 'load', name: 'load_tools', input: { names: ['files', 'file_delete'] } }] },
          {
            toolCalls: [
              { id: 'delete', name: 'file_delete', input: { path: 'notes.md' } },
              { id: 'shell', name: 'shell_run', input: { command: 'rm notes.md' } },
            ],
          },
          { text: 'Could not.' },
        ]),
      },
    });
    writeFileSync(join(test.root, '.legion', 'config.json'), JSON.stringify({ version: 1, policies: { file_delete: 'deny' } }));
    writeFileSync(join(test.root, 'notes.md'), 'keep me\n');
    await test.legion.close();
    const legion = test.reopen();
    try {
      expect(await legion.send(await legion.sessions.create(), 'Delete notes.md', { to: 'worker' })).toMatchObject({
        status: 'success',
        reply: 'Could not.',
      });
      expect((await legion.describeTools('worker')).tools.find((entry) => entry.name === 'file_delete')).toMatchObject({
        offered: 'never',
      });
    } finally {
      await legion.close();
    }

    const everything = requests.map((request) => JSON.stringify(request.tools)).join('\n');
    expect(everything).not.toContain('file_delete');
    expect(everything).not.toContain('shell');
    expect(results(requests[1]!)).toEqual([
      expect.stringMatching(
        /^Nothing to load: "file_delete", "shell_run", "shell" are not a family or tool you may use\. Families: files, planning\.$/,
      ),
    ]);
    expect(results(requests[2]!)).toEqual([
      expect.stringMatching(
        /^Loaded files \(file_read, file_write, file_edit, file_list, file_glob, file_grep\)\. .*Not loaded \(not a family or tool you may use\): file_delete\./,
      ),
    ]);
    expect(names(requests[2]!)).not.toContain('file_delete');
    const [deleted, shell] = results(requests[3]!);
    expect(deleted).toMatch(/not available to you/);
    expect(shell).toMatch(/not available to you/);
    expect(requests[3]!.tools.map((definition) => definition.name)).not.toContain('file_delete');
    expect(readFileSync(join(test.root, 'notes.md'), 'utf8')).toBe('keep me\n');
  });

  it('load globs of tool and family names, never a denied tool, and say clearly when a glob matches nothing', async () => {
    const requests: ModelRequest[] = [];
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('worker', { delegation: 'none', tools: ['file_*', 'todo_*'], context: { toolSchemas: 'compact' } }),
      ],
      scripts: {
        worker: recorded(requests, [
          { toolCalls: [{ id: 'none', name: 'load_tools', input: { names: ['mcp__github__*', 'shell_*'] } }] },
          { toolCalls: [{ id: 'glob', name: 'load_tools', input: { names: ['file_*', 'mcp__github__*'] } }] },
          { text: 'Loaded.' },
        ]),
      },
    });
    writeFileSync(join(test.root, '.legion', 'config.json'), JSON.stringify({ version: 1, policies: { file_delete: 'deny' } }));
    await test.legion.close();
    const legion = test.reopen();
    try {
      expect(await legion.send(await legion.sessions.create(), 'Load the file tools', { to: 'worker' })).toMatchObject({
        status: 'success',
        reply: 'Loaded.',
      });
    } finally {
      await legion.close();
    }
    expect(results(requests[1]!)).toEqual([
      'Nothing to load: "mcp__github__*", "shell_*" match no family or tool you may use. Families: files, planning. Give a family, a tool name, or a glob of them (e.g. "files*").',
    ]);
    expect(results(requests[2]!)).toEqual([
      expect.stringMatching(
        /^Loaded file_read; file_write; file_edit; file_list; file_glob; file_grep\. .* Globs: file_\* → file_read, file_write, file_edit, file_list, file_glob, file_grep\. Matched nothing you may use: mcp__github__\*\. Families: files, planning\.$/,
      ),
    ]);
    expect(names(requests[2]!)).toEqual(['file_edit', 'file_glob', 'file_grep', 'file_list', 'file_read', 'file_write', 'load_tools']);
  });

  it('fit a 4k window: every built-in tool of an agent takes at most 1,000 tokens of definitions at first', async () => {
    const requests: ModelRequest[] = [];
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('helper'), agentParticipant('worker', { context: { toolSchemas: 'compact' } })],
      scripts: { worker: recorded(requests, [{ text: 'Hi.' }]) },
    });
    await test.legion.send(await test.legion.sessions.create(), 'Hi', { to: 'worker' });
    const count = await loadTokenCounter();
    const tokens = requests[0]!.tools.reduce((total, definition) => total + count(JSON.stringify(definition)), 0);
    const view = await test.legion.describeTools('worker');
    expect(view.tools.filter((entry) => entry.visible)).toHaveLength(33);
    expect(view.schemaTokens).toMatchObject({ toolSchemas: 'compact', offeredTokens: tokens });
    expect(tokens).toBeLessThanOrEqual(1_000);
    expect(view.schemaTokens!.fullTokens).toBeGreaterThan(4_000);
  });
});

describe("a tool a policy denies outright, under toolSchemas 'full'", () => {
  let test: TestLegion | undefined;
  afterEach(async () => {
    await test?.cleanup();
    test = undefined;
  });

  it('is not offered to the model, and a call of it by name is refused as a tool it does not have', async () => {
    const requests: ModelRequest[] = [];
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('worker', { delegation: 'none', tools: ['file_*'], context: { toolSchemas: 'full' } }),
      ],
      scripts: {
        worker: recorded(requests, [
          { toolCalls: [{ id: 'delete', name: 'file_delete', input: { path: 'notes.md' } }] },
          { text: 'Could not.' },
        ]),
      },
    });
    writeFileSync(join(test.root, '.legion', 'config.json'), JSON.stringify({ version: 1, policies: { file_delete: 'deny' } }));
    writeFileSync(join(test.root, 'notes.md'), 'keep me\n');
    await test.legion.close();
    const legion = test.reopen();
    try {
      expect(await legion.send(await legion.sessions.create(), 'Delete notes.md', { to: 'worker' })).toMatchObject({
        status: 'success',
        reply: 'Could not.',
      });
      expect((await legion.describeTools('worker')).tools.find((entry) => entry.name === 'file_delete')).toMatchObject({
        offered: 'never',
      });
    } finally {
      await legion.close();
    }
    for (const request of requests)
      expect(names(request)).toEqual(['file_edit', 'file_glob', 'file_grep', 'file_list', 'file_read', 'file_write']);
    expect(JSON.stringify(requests.map((request) => request.tools))).not.toContain('file_delete');
    expect(results(requests[1]!)).toEqual([expect.stringMatching(/^Tool "file_delete" is not available to you\./)]);
    expect(readFileSync(join(test.root, 'notes.md'), 'utf8')).toBe('keep me\n');
  });
});
