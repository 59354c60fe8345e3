import type { Message } from '@legion-collective/core';
import { hitPlace } from './search-snippets.js';

const message = (content: Message['content']): Message => ({ id: 'm1', role: 'assistant', content, at: '2026-12-08T00:00:00.000Z' });

describe('a search hit’s place and snippet', () => {
  it('reads a tool call’s input as its values, and names the tool', () => {
    const asked = message([
      { type: 'text', text: 'Let me ask.' },
      { type: 'tool_use', id: 't1', name: 'communicate', input: { to: 'user', message: 'Which **database**: Postgres or SQLite?' } },
    ]);
    expect(hitPlace(asked, ['sqlite'])).toEqual({
      kind: 'tool_call',
      tool: 'communicate',
      snippet: 'to: user; message: Which **database**: Postgres or SQLite?',
    });
  });

  it('finds the words in a tool’s result, or in the text, the first block that holds them', () => {
    const answered = message([{ type: 'tool_result', toolUseId: 't1', content: 'SQLite please' }]);
    expect(hitPlace(answered, ['sqlite'])).toEqual({ kind: 'tool_result', snippet: 'SQLite please' });
    const long = `${'word '.repeat(30)}needle ${'tail '.repeat(30)}`;
    const found = hitPlace(message([{ type: 'text', text: long }]), ['needle']);
    expect(found.kind).toBe('text');
    expect(found.snippet.startsWith('…')).toBe(true);
    expect(found.snippet).toContain('needle');
    expect(found.snippet.endsWith('…')).toBe(true);
  });

  it('reads a field’s name with its value, so a search for it finds its place', () => {
    const keyed = message([{ type: 'tool_use', id: 't1', name: 'file_write', input: { path: 'a.txt', content: 'x' } }]);
    expect(hitPlace(keyed, ['content'])).toEqual({ kind: 'tool_call', tool: 'file_write', snippet: 'path: a.txt; content: x' });
  });
});
