import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { agentParticipant, createTestLegion, mockParticipant, userParticipant, type TestLegion } from '../testing/index.js';
import { defineTool } from '../tools/tool.js';
import { LEGION_EVENT_NAMES, LegionEventSchemas, type LegionEvent } from './event-types.js';

// The schemas are the one definition the wire and stream-json derive from, so what the engine
// emits must be exactly what they say: emitters build events with Object.assign (which TypeScript
// does not check for extra fields), and a field an emitter adds without the schema would vanish
// from every derived format. A real run, every event it emits parsed back, nothing dropped.
const touchTool = defineTool({
  name: 'touch_thing',
  description: 'Touches a thing',
  effect: 'write',
  inputSchema: z.object({ thing: z.string() }),
  async execute(input) {
    return { status: 'success', data: `touched ${input.thing}` };
  },
});

describe("core's event schemas", () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('describe every event a real run emits, field for field', async () => {
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
    const session = await test.legion.sessions.create({ title: 'Schemas' });

    const result = await test.legion.send(session, 'go');
    expect(result.status).toBe('success');

    const seen = new Set(events.map((event) => event.type));
    for (const type of ['session:created', 'turn:start', 'message:sent', 'context:usage', 'tool:call', 'tool:result', 'usage:report', 'approval:requested', 'approval:decided', 'turn:end', 'tool:register'] as const) {
      expect(seen, type).toContain(type);
    }
    for (const event of events) {
      const { type, seq: _seq, ...payload } = event;
      const parsed = LegionEventSchemas[type].safeParse(payload);
      expect(parsed.success, `${type}: ${parsed.error?.message}`).toBe(true);
      expect(isDeepStrictEqual(parsed.data, payload), `${type}: emitted ${JSON.stringify(payload)}, the schema keeps ${JSON.stringify(parsed.data)}`).toBe(true);
    }
    expect(events.filter((event) => event.type === 'turn:end').map((event) => [event.participantId, event.outcome])).toEqual([
      ['echo', 'succeeded'],
      ['lead', 'succeeded'],
    ]);
  });

  it('name every event once', () => {
    expect(new Set(LEGION_EVENT_NAMES).size).toBe(LEGION_EVENT_NAMES.length);
    for (const name of LEGION_EVENT_NAMES) expect(name).toMatch(/^[a-z-]+:[a-z]+$/);
  });
});
