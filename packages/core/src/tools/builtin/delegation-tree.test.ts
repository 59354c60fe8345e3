import type { Message } from '../../kernel/message.js';
import { turnsOpenedBy } from './delegation-tree.js';

let next = 0;
const message = (role: Message['role'], content: Message['content'], extra: Partial<Message> = {}): Message => ({
  id: `m${next++}`,
  role,
  content,
  at: new Date(next * 1000).toISOString(),
  ...extra,
});
const text = (role: Message['role'], value: string): Message => message(role, [{ type: 'text', text: value }]);

// coordinator__developer as two chains used it: the MCP client's ask, then the human's run, then the client's again.
const log: Message[] = [
  text('user', 'Note the port'),
  message('assistant', [{ type: 'tool_use', id: 't1', name: 'file_read', input: { path: 'ports.txt' } }]),
  message('user', [{ type: 'tool_result', toolUseId: 't1', content: '8080' }]),
  text('assistant', 'Port 8080 noted.'),
  text('user', 'Keep the human secret'),
  text('assistant', 'Kept it safe.'),
  text('user', 'Check the build'),
  message('assistant', [{ type: 'text', text: '[This turn was cancelled before it finished.]' }], {
    ending: { status: 'cancelled', code: 'cancelled' },
  }),
];

describe('turnsOpenedBy: the turns of one tree in a conversation several chains went through', () => {
  it('keeps each turn its messages opened, with its tool calls, results and ending; not the turns others opened', () => {
    const kept = turnsOpenedBy(log, new Set(['Note the port', 'Check the build']));
    expect(kept.map((entry) => entry.id)).toEqual([log[0], log[1], log[2], log[3], log[6], log[7]].map((entry) => entry!.id));
  });

  it('keeps everything of a conversation the participant started, and nothing when no turn is its own', () => {
    expect(turnsOpenedBy(log, undefined)).toEqual(log);
    expect(turnsOpenedBy(log, new Set())).toEqual([]);
  });
});
