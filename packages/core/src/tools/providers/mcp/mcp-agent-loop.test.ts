import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResultBlock } from '../../../kernel/message.js';
import type { Legion } from '../../../Legion.js';
import type { ModelRequest } from '../../../model/providers/llm-provider.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../../testing/index.js';
import { stdioServer } from './__fixtures__/mcp-servers.js';

function lastToolResults(request: ModelRequest): ToolResultBlock[] {
  const last = request.messages.at(-1)!;
  expect(last.role).toBe('user');
  return last.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

describe('an agent using MCP tools', () => {
  let test: TestLegion;
  let legion: Legion | undefined;
  afterEach(async () => {
    await legion?.close();
    await test?.cleanup();
  });

  it('calls real MCP servers configured in .legion/config.json, and their results reach the model', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('dev', { delegation: 'none', context: { toolSchemas: 'full' } })],
      scripts: {
        dev: [
          {
            expect: (request) => {
              const sum = request.tools.find((tool) => tool.name === 'mcp__everything__get-sum');
              expect(sum?.parameters).toMatchObject({
                type: 'object',
                properties: { a: { type: 'number' }, b: { type: 'number' } },
                required: ['a', 'b'],
              });
              expect(request.tools.map((tool) => tool.name)).toContain('mcp__memory__create_entities');
            },
            // A wrong argument type first: the model gets an error that names the field, and no server sees the call.
            toolCalls: [{ id: 'bad', name: 'mcp__everything__get-sum', input: { a: 'two', b: 3 } }],
          },
          {
            expect: (request) => {
              const [result] = lastToolResults(request);
              expect(result).toMatchObject({ toolUseId: 'bad', isError: true });
              expect(result!.content).toContain('"a" must be a number, got the string "two"');
            },
            toolCalls: [
              { id: 'sum', name: 'mcp__everything__get-sum', input: { a: 2, b: 3 } },
              {
                id: 'remember',
                name: 'mcp__memory__create_entities',
                input: { entities: [{ name: 'answer', entityType: 'fact', observations: ['2 + 3 = 5'] }] },
              },
              { id: 'recall', name: 'mcp__memory__search_nodes', input: { query: 'answer' } },
            ],
          },
          {
            expect: (request) => {
              const results = lastToolResults(request);
              expect(results.map((result) => result.toolUseId)).toEqual(['sum', 'remember', 'recall']);
              expect(results.every((result) => !result.isError)).toBe(true);
              expect(results[0]!.content).toBe('The sum of 2 and 3 is 5.');
              expect(results[2]!.content).toContain('2 + 3 = 5');
            },
            text: 'The sum is 5, and I wrote it down.',
          },
        ],
      },
    });
    writeFileSync(
      join(test.root, '.legion', 'config.json'),
      JSON.stringify({
        version: 1,
        mcpServers: {
          everything: stdioServer('@modelcontextprotocol/server-everything'),
          memory: stdioServer('@modelcontextprotocol/server-memory', [], { MEMORY_FILE_PATH: join(test.root, 'memory.jsonl') }),
        },
        // MCP tools ask for approval by default; this workspace trusts these two servers.
        policies: { 'mcp__everything__*': 'auto', 'mcp__memory__*': 'auto' },
      }),
    );
    await test.legion.close();
    legion = test.reopen();
    // Legion registers the configured servers on open; none starts before a turn needs its tools.

    const session = await legion.sessions.create();
    const result = await legion.send(session, 'What is 2 + 3? Remember it.');

    expect(result).toMatchObject({ status: 'success', reply: 'The sum is 5, and I wrote it down.' });
    test.assertScriptsDone();
  });

  it('asks for approval before an MCP tool runs when no policy allows it', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('dev', { delegation: 'none' })],
      scripts: { dev: [{ toolCalls: [{ id: 'echo', name: 'mcp__everything__echo', input: { message: 'hi' } }] }] },
    });
    writeFileSync(
      join(test.root, '.legion', 'config.json'),
      JSON.stringify({ version: 1, mcpServers: { everything: stdioServer('@modelcontextprotocol/server-everything') } }),
    );
    await test.legion.close();
    legion = test.reopen();
    const calls: string[] = [];
    legion.events.on('tool:result', (event) => calls.push(event.toolUse.name));

    const result = await legion.send(await legion.sessions.create(), 'Say hi through MCP.');

    expect(result).toMatchObject({ status: 'paused' });
    expect(calls).toEqual([]);
    test.assertScriptsDone();
  });
});
