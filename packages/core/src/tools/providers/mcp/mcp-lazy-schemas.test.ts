import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Legion } from '../../../Legion.js';
import { toolResultsOf } from '../../../kernel/message.js';
import type { ModelRequest } from '../../../model/providers/llm-provider.js';
import type { ScriptStep } from '../../../model/providers/scripted/ScriptedProvider.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../../testing/index.js';
import { stdioServer } from './__fixtures__/mcp-servers.js';

function recorded(requests: ModelRequest[], steps: ScriptStep[]): ScriptStep[] {
  return steps.map((step) => ({ ...step, expect: (request: ModelRequest) => void requests.push(request) }));
}
const mcpNames = (request: ModelRequest): string[] => request.tools.map((tool) => tool.name).filter((name) => name.startsWith('mcp__'));

describe('lazy MCP tool schemas (mcpServers.*.lazy)', () => {
  let test: TestLegion | undefined;
  let legion: Legion | undefined;
  afterEach(async () => {
    await legion?.close();
    await test?.cleanup();
    legion = test = undefined;
  });

  async function open(lazy: boolean, context: 'full' | 'compact', steps: ScriptStep[], requests: ModelRequest[]): Promise<Legion> {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('dev', { delegation: 'none', tools: ['mcp__everything__*', 'todo_*'], context: { toolSchemas: context } }),
      ],
      scripts: { dev: recorded(requests, steps) },
    });
    writeFileSync(
      join(test.root, '.legion', 'config.json'),
      JSON.stringify({
        version: 1,
        mcpServers: { everything: { ...stdioServer('@modelcontextprotocol/server-everything'), lazy } },
        policies: { 'mcp__everything__*': 'auto' },
      }),
    );
    await test.legion.close();
    return (legion = test.reopen());
  }

  it('lazy: true lists the server tools by name and line; a schema is sent once the agent loads it, and the call runs', async () => {
    const requests: ModelRequest[] = [];
    const opened = await open(
      true,
      'full',
      [
        { toolCalls: [{ id: 'load', name: 'load_tools', input: { names: ['mcp__everything__get-sum'] } }] },
        { toolCalls: [{ id: 'sum', name: 'mcp__everything__get-sum', input: { a: 2, b: 3 } }] },
        { text: '5' },
      ],
      requests,
    );

    expect(await opened.send(await opened.sessions.create(), 'What is 2 + 3?')).toMatchObject({ status: 'success', reply: '5' });

    const [first, second, third] = requests;
    expect(mcpNames(first!)).toEqual([]);
    // The rest of a `full` agent's tools are whole, as always.
    expect(first!.tools.find((tool) => tool.name === 'todo_write')?.description).toMatch(/^Replace your todo list for this session/);
    const catalogue = first!.tools.find((tool) => tool.name === 'load_tools')!.description;
    expect(catalogue).toMatch(/^- mcp__everything \(MCP server; tools mcp__everything__<name>\): .*echo \(.+\).*; get-sum \(.+\)/m);
    expect(mcpNames(second!)).toEqual(['mcp__everything__get-sum']);
    expect(second!.tools.find((tool) => tool.name === 'mcp__everything__get-sum')?.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(toolResultsOf(third!.messages.at(-1)!).map((result) => result.content)).toEqual(['The sum of 2 and 3 is 5.']);
    test!.assertScriptsDone();

    const view = await opened.describeTools('dev');
    const family = view.schemaTokens!.onDemand.find((entry) => entry.family === 'mcp__everything')!;
    expect(family.tools).toBeGreaterThan(5);
    expect(family.savedTokens).toBeGreaterThan(0);
    expect(family.savedTokens).toBeLessThan(family.schemaTokens);
    expect(view.tools.find((tool) => tool.name === 'mcp__everything__get-sum')).toMatchObject({
      visible: true,
      offered: 'on demand',
      schemaTokens: expect.any(Number),
    });
  });

  it('lazy: false sends every schema of the server in every request, even to a compact agent', async () => {
    const requests: ModelRequest[] = [];
    const opened = await open(false, 'compact', [{ text: 'Hi.' }], requests);

    await opened.send(await opened.sessions.create(), 'Hi');

    const listed = (await opened.describeTools('dev')).tools
      .filter((tool) => tool.name.startsWith('mcp__everything__'))
      .map((tool) => tool.name);
    expect(listed.length).toBeGreaterThan(5);
    expect(mcpNames(requests[0]!).sort()).toEqual(listed.sort());
    const sum = requests[0]!.tools.find((tool) => tool.name === 'mcp__everything__get-sum')!;
    expect(sum.parameters).toMatchObject({ properties: { a: { type: 'number' }, b: { type: 'number' } } });
    // The compact agent's own built-ins still wait in the catalogue.
    expect(requests[0]!.tools.find((tool) => tool.name === 'load_tools')!.description).toContain('- planning: ');
    expect(requests[0]!.tools.find((tool) => tool.name === 'load_tools')!.description).not.toContain('mcp__everything');
  });
});
