import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

/** The names in backticks in the first column of a Markdown file's first table (its body rows, not the header). */
function namesInFirstColumn(markdown: string): string[] {
  const lines = markdown.split('\n');
  const body = lines.slice(lines.findIndex((line) => line.startsWith('|---')) + 1);
  const end = body.findIndex((line) => !line.startsWith('|'));
  const rows = end === -1 ? body : body.slice(0, end);
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!));
}

// docs/reference/stream-json.md is where scripts read these names: its table names every line type, and only those.
describe('the stream-json reference', () => {
  it('lists every line type in its table, and no other', () => {
    const reference = readFileSync(fileURLToPath(new URL('../../../../docs/reference/stream-json.md', import.meta.url)), 'utf8');
    const documented = namesInFirstColumn(reference);
    const lineTypes = StreamLineSchema.options.map((option) => option.shape.type.value as string);
    expect([...documented].sort()).toEqual([...lineTypes].sort());
  });
});

// docs/reference/events.md is the events' contract for library users: its table names every event core emits.
describe('the events reference', () => {
  it('lists every event of the vocabulary in its table, and no other', () => {
    const reference = readFileSync(fileURLToPath(new URL('../../../../docs/reference/events.md', import.meta.url)), 'utf8');
    const documented = namesInFirstColumn(reference);
    expect([...documented].sort()).toEqual([...LEGION_EVENT_NAMES].sort());
  });
});
