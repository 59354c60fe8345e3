import { LEGION_EVENT_NAMES } from '@legion-collective/core/vocabulary';
import { StreamLineSchema } from './stream-line.js';
import { STREAM_LINE_NAMES } from './stream-line-names.js';

// The one mapping from core's events to stream-json's documented line names, checked against both
// ends: core's list of events (a new event needs a line or a reason) and the line schemas (every
// name the mapping gives has its schema, and no schema is left that nothing writes).
describe('stream-json line names', () => {
  const lineTypes = StreamLineSchema.options.map((option) => option.shape.type.value as string);
  /** Lines a run writes itself, not from one of core's events. */
  const ownLines = ['run:start', 'result', 'question:asked', 'question:answered'];

  it('gives every core event a line or a reason, and names no event core lacks', () => {
    expect(Object.keys(STREAM_LINE_NAMES).sort()).toEqual([...LEGION_EVENT_NAMES].sort());
    for (const [event, mapping] of Object.entries(STREAM_LINE_NAMES)) {
      if ('omitted' in mapping) expect(mapping.omitted.length, event).toBeGreaterThan(10);
    }
  });

  it('has a line schema for every name it gives, and every line schema is a mapped name or a line of the run itself', () => {
    const mapped = Object.values(STREAM_LINE_NAMES).flatMap((mapping) =>
      'line' in mapping ? [mapping.line, ...('communicate' in mapping ? [mapping.communicate] : [])] : [],
    );
    for (const name of mapped) expect(lineTypes, name).toContain(name);
    expect([...lineTypes].sort()).toEqual([...new Set([...mapped, ...ownLines])].sort());
  });

  it('keeps the documented names of the renamed events', () => {
    expect(STREAM_LINE_NAMES['message:sent'].line).toBe('message');
    expect(STREAM_LINE_NAMES['usage:report'].line).toBe('usage');
    expect(STREAM_LINE_NAMES['provider:retry'].line).toBe('retry');
    expect(STREAM_LINE_NAMES['storage:warning'].line).toBe('warning');
    expect(STREAM_LINE_NAMES['error:raised'].line).toBe('error');
    expect(STREAM_LINE_NAMES['tool:call'].communicate).toBe('delegation:start');
    expect(STREAM_LINE_NAMES['tool:result'].communicate).toBe('delegation:end');
  });
});
