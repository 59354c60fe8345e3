import { recordSampleRun } from '@legion-collective/core/testing';
import { StreamLineSchema } from './stream-line.js';
import { STREAM_LINE_NAMES } from './stream-line-names.js';
import { streamLineOf } from './stream-lines.js';

// The lines a run writes, from the events a real engine emits: each event becomes the line its
// mapping names (or none, as the mapping says), and each line is exactly what its schema — core's
// event, cut — describes, with nothing the schema would drop.
describe('stream-json lines of real events', () => {
  it('writes each event as the line its mapping names, matching the line schema field for field', async () => {
    const events = await recordSampleRun();

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
    expect([...written]).toEqual(
      expect.arrayContaining([
        'approval:decided',
        'approval:requested',
        'delegation:end',
        'delegation:start',
        'message',
        'tool:call',
        'tool:result',
        'turn:end',
        'turn:start',
        'usage',
      ]),
    );
  });
});
