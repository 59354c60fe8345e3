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
});
