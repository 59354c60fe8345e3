import type { Message } from '@legion-collective/core';
import { historyUpdates } from './history-replay.js';

const at = '2026-01-01T00:00:00.000Z';

describe('replaying a session', () => {
  it("gives the user's words, the answers, the tool calls with their results, and how an unanswered turn ended", () => {
    const messages: Message[] = [
      { id: 'm1', role: 'user', at, content: [{ type: 'text', text: 'Read a.txt' }] },
      { id: 'm2', role: 'assistant', at, content: [{ type: 'tool_use', id: 't1', name: 'file_read', input: { path: 'a.txt' } }] },
      { id: 'm3', role: 'user', at, content: [{ type: 'tool_result', toolUseId: 't1', content: 'hello' }] },
      { id: 'm4', role: 'assistant', at, content: [{ type: 'text', text: 'It says hello.' }] },
      { id: 'm5', role: 'user', at, content: [{ type: 'text', text: 'And b?' }] },
      { id: 'm6', role: 'assistant', at, content: [], ending: { status: 'cancelled', code: 'cancelled' } },
    ];
    expect(historyUpdates(messages, { entryAgent: 'coordinator', root: '/p' })).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Read a.txt' }, messageId: 'm1' },
      {
        sessionUpdate: 'tool_call',
        toolCallId: 't1',
        title: 'file_read a.txt',
        kind: 'read',
        locations: [{ path: '/p/a.txt' }],
        status: 'in_progress',
        rawInput: { path: 'a.txt' },
      },
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: 't1',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'hello' } }],
      },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'It says hello.' }, messageId: 'm4' },
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'And b?' }, messageId: 'm5' },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: '\n\n(The turn was cancelled.)' } },
    ]);
  });

  it('replays a file change as the diff its result kept, one diff per hunk; a result without the record as its text', () => {
    const patch = ['--- a/notes.md', '+++ b/notes.md', '@@ -1,3 +1,2 @@', ' keep', '-old one', '-old two', '+new', ''].join('\n');
    const messages: Message[] = [
      {
        id: 'm1',
        role: 'assistant',
        at,
        content: [{ type: 'tool_use', id: 't1', name: 'file_write', input: { path: 'notes.md', content: 'keep\nnew\n' } }],
      },
      {
        id: 'm2',
        role: 'user',
        at,
        content: [
          {
            type: 'tool_result',
            toolUseId: 't1',
            content: 'Overwrote notes.md (2 lines, 9 B).',
            fileChange: { status: 'kept', path: 'notes.md', action: 'replaced', patch },
          },
        ],
      },
      {
        id: 'm3',
        role: 'assistant',
        at,
        content: [{ type: 'tool_use', id: 't2', name: 'file_write', input: { path: 'old.md', content: 'x' } }],
      },
      { id: 'm4', role: 'user', at, content: [{ type: 'tool_result', toolUseId: 't2', content: 'Overwrote old.md (1 lines, 1 B).' }] },
    ];
    const updates = historyUpdates(messages, { entryAgent: 'coordinator', root: '/p' });
    expect(updates[1]).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't1',
      status: 'completed',
      content: [{ type: 'diff', path: '/p/notes.md', oldText: 'keep\nold one\nold two\n', newText: 'keep\nnew\n' }],
    });
    expect(updates[3]).toEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: 't2',
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'Overwrote old.md (1 lines, 1 B).' } }],
    });
  });
});
