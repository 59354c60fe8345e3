import { isDeepStrictEqual } from 'node:util';
import { recordSampleRun } from '../../testing/index.js';
import { LEGION_EVENT_NAMES, LegionEventSchemas } from './event-types.js';

// The schemas are the one definition the wire and stream-json derive from, so what the engine
// emits must be exactly what they say: emitters build events with Object.assign (which TypeScript
// does not check for extra fields), and a field an emitter adds without the schema would vanish
// from every derived format. A real run, every event it emits parsed back, nothing dropped.
describe("core's event schemas", () => {
  it('describe every event a real run emits, field for field', async () => {
    const events = await recordSampleRun();

    const seen = new Set(events.map((event) => event.type));
    for (const type of [
      'session:created',
      'turn:start',
      'message:sent',
      'context:usage',
      'tool:call',
      'tool:result',
      'usage:report',
      'approval:requested',
      'approval:decided',
      'turn:end',
      'tool:register',
    ] as const) {
      expect(seen, type).toContain(type);
    }
    for (const event of events) {
      const { type, seq: _seq, ...payload } = event;
      const parsed = LegionEventSchemas[type].safeParse(payload);
      expect(parsed.success, `${type}: ${parsed.error?.message}`).toBe(true);
      expect(
        isDeepStrictEqual(parsed.data, payload),
        `${type}: emitted ${JSON.stringify(payload)}, the schema keeps ${JSON.stringify(parsed.data)}`,
      ).toBe(true);
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
