import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { toolResultsOf } from '../../kernel/message.js';
import type { ModelRequest } from '../../model/providers/llm-provider.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { ToolRegistry } from '../ToolRegistry.js';
import { isAlive, isGoneSoon, run, successText, toolContext } from './__fixtures__/tool-context.js';
import { BUILTIN_PROVIDER_ID, BUILTIN_TOOL_FAMILIES, createBuiltinTools, registerBuiltinTools, type BuiltinTools } from './index.js';

/** The tool results the model received in its latest request. */
function lastResults(request: ModelRequest): string[] {
  return toolResultsOf(request.messages.at(-1)!).map((result) => result.content);
}

describe('built-in tools', () => {
  let test: TestLegion;
  let builtin: BuiltinTools | undefined;
  afterEach(async () => {
    await builtin?.dispose();
    builtin = undefined;
    test?.cleanup();
  });

  const optionsFor = (legion: TestLegion['legion']) => ({
    collective: legion.collective,
    sessions: legion.sessions,
    toolsFor: (id: string) => {
      const participant = legion.collective.get(id);
      return participant?.type === 'agent' ? legion.tools.allowedBy(participant.tools) : [];
    },
  });

  it('serve an agent loop: the tools permission picks the families, and the calls really run', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('worker', {
          tools: ['todo_*', 'scratch_*', 'file_grep', 'list_tools'],
          delegation: 'none',
          context: { toolSchemas: 'full' },
        }),
      ],
      scripts: {
        worker: [
          {
            expect: (request) =>
              expect(request.tools.map((tool) => tool.name).sort()).toEqual([
                'file_grep',
                'list_tools',
                'scratch_add',
                'scratch_complete',
                'scratch_pin',
                'scratch_read',
                'scratch_unpin',
                'scratch_update',
                'todo_read',
                'todo_write',
              ]),
            toolCalls: [
              {
                id: 't1',
                name: 'todo_write',
                input: {
                  items: [
                    { id: '1', text: 'Find the TODOs', status: 'in_progress' },
                    { id: '2', text: 'Report', status: 'pending' },
                  ],
                },
              },
              { id: 't2', name: 'scratch_add', input: { text: 'The user wants a short report', pinned: true } },
              { id: 't3', name: 'file_grep', input: { pattern: 'TODO' } },
            ],
          },
          {
            expect: (request) =>
              expect(lastResults(request)).toEqual([
                'Todo list (2 items: 0 done, 1 in progress, 1 pending)\n[>] 1. Find the TODOs\n[ ] 2. Report',
                'Added n1 (pinned).',
                '1 matching line in 1 file:\nnotes.md:2: TODO: ship it',
              ]),
            toolCalls: [{ id: 't4', name: 'list_tools', input: { prefix: 'todo_' } }],
          },
          {
            expect: (request) =>
              expect(lastResults(request)).toEqual([
                "2 tools:\ntodo_read (read): Show your todo list for this session, with each item's status.\ntodo_write (read): Replace your todo list for this session with the items given (send the whole list every time, not only changes).",
              ]),
            text: 'One TODO: ship it.',
          },
        ],
      },
    });
    const { legion } = test;
    writeFileSync(join(test.root, 'notes.md'), '# Notes\nTODO: ship it\n');
    builtin = createBuiltinTools(optionsFor(legion));
    // Legion may already register some built-ins itself (file_read, list_participants); add the rest.
    for (const tool of builtin.tools) if (!legion.tools.get(tool.name)) legion.tools.register(tool);
    const session = await legion.sessions.create();

    const result = await legion.send(session, 'List the TODOs of the workspace');

    expect(result).toMatchObject({ status: 'success', reply: 'One TODO: ship it.' });
    test.assertScriptsDone();
    if (test.backend === 'file') {
      expect(existsSync(join(legion.paths.sessionDir(session.id), 'todos', 'worker.json'))).toBe(true);
      expect(existsSync(join(legion.paths.sessionDir(session.id), 'scratchbook', 'worker.json'))).toBe(true);
    }
    expect(await session.agentState.get('todos', 'worker', z.unknown())).toBeDefined();
    expect(await session.agentState.get('scratchbook', 'worker', z.unknown())).toBeDefined();
  });

  it('register as the builtin provider with an effect on every tool, and unregister with their processes', async () => {
    test = createTestLegion({ participants: [userParticipant(), agentParticipant('worker')] });
    const registry = new ToolRegistry();
    const registered = registerBuiltinTools(registry, { ...optionsFor(test.legion), killGraceMs: 100 });
    const expected = Object.values(BUILTIN_TOOL_FAMILIES).flat().sort();
    expect(
      registry
        .list()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(expected);
    expect(registry.list().filter((tool) => tool.effect === undefined)).toEqual([]);
    expect(registry.providerOf('shell_run')).toBe(BUILTIN_PROVIDER_ID);
    expect(registry.get('create_agent')?.effect).toBe('collective');
    expect(registry.get('shell_run')?.effect).toBe('shell');
    expect(registry.get('file_write')?.effect).toBe('write');
    expect(registry.allowedBy(['file_*']).map((tool) => tool.name)).toEqual([...BUILTIN_TOOL_FAMILIES.files]);

    const started = successText(await run(registry.get('process_start')!, { command: 'sleep 60' }, toolContext({ root: test.root })));
    expect(started).toMatch(/^Started proc-1/);
    const pid = registered.processes.list()[0]!.process.pid!;
    expect(isAlive(pid)).toBe(true);
    await registered.dispose();
    expect(registry.list()).toEqual([]);
    expect(await isGoneSoon(pid)).toBe(true);
  });

  it('create only the families asked for', () => {
    test = createTestLegion({ participants: [userParticipant(), agentParticipant('worker')] });
    builtin = createBuiltinTools({ ...optionsFor(test.legion), families: ['planning', 'scratchbook'] });
    expect(builtin.tools.map((tool) => tool.name)).toEqual([...BUILTIN_TOOL_FAMILIES.planning, ...BUILTIN_TOOL_FAMILIES.scratchbook]);
  });
});
