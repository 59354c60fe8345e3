import { defineTool } from '@legion-collective/core';
import { agentParticipant, createTestLegion, mockParticipant, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import type { LegionEvent } from '@legion-collective/core';
import { z } from 'zod';
import { StreamLineSchema } from './stream-line.js';
import { STREAM_LINE_NAMES } from './stream-line-names.js';
import { streamLineOf } from './stream-lines.js';

// The lines a run writes, from the events a real engine emits: each event becomes the line its
// mapping names (or none, as the mapping says), and each line is exactly what its schema — core's
// event, cut — describes, with nothing the schema would drop.
const touchTool = defineTool({
  name: 'touch_thing',
  description: 'Touches a thing',
  effect: 'write',
  inputSchema: z.object({ thing: z.string() }),
  async execute(input) {
    return { status: 'success', data: `touched ${input.thing}` };
  },
});

describe('stream-json lines of real events', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('writes each event as the line its mapping names, matching the line schema field for field', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead', { delegation: ['echo'] }), mockParticipant('echo', [{ trigger: '*', response: 'pong' }])],
      entryAgent: 'lead',
      scripts: {
        lead: [
          { toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'echo', message: 'ping' } }], usage: { inputTokens: 10, outputTokens: 3 } },
          { toolCalls: [{ id: 't1', name: 'touch_thing', input: { thing: 'door' } }] },
          { text: 'done', usage: { inputTokens: 20, outputTokens: 1 } },
        ],
      },
    });
    const events: LegionEvent[] = [];
    test.legion.events.onAny((event) => events.push(event));
    test.legion.tools.register(touchTool);
    test.legion.attachUser({ medium: 'test', approve: async (requests) => requests.map((request) => ({ id: request.id, decision: 'approve' as const })) });
    const session = await test.legion.sessions.create();
    expect((await test.legion.send(session, 'go')).status).toBe('success');

    const written = new Set<string>();
    for (const event of events) {
      const mapping = STREAM_LINE_NAMES[event.type];
      const line = streamLineOf(event);
      if ('omitted' in mapping) {
        expect(line, `${event.type} is omitted: ${mapping.omitted}`).toBeUndefined();
        continue;
      }
      expect(line, event.type).toBeDefined();
      expect([mapping.line, 'communicate' in mapping ? mapping.communicate : mapping.line], event.type).toContain(line!.type);
      // As a script reads it: one JSON line, parsed with the documented schema, nothing dropped.
      const json: unknown = JSON.parse(JSON.stringify(line));
      expect(StreamLineSchema.parse(json), line!.type).toEqual(json);
      written.add(line!.type);
    }
    expect([...written]).toEqual(expect.arrayContaining(['approval:decided', 'approval:requested', 'delegation:end', 'delegation:start', 'message', 'tool:call', 'tool:result', 'turn:end', 'turn:start', 'usage']));
  });
});
