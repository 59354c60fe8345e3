import type { LegionEvent } from '@legion-collective/core';
import { StreamTexts } from './stream-texts.js';

const ref = { sessionId: 's1', conversationId: 'user__lead', initiator: 'user', responder: 'lead' };
let seq = 0;
const delta = (text: string, conversationId = ref.conversationId): LegionEvent =>
  ({ type: 'text:delta', seq: ++seq, ...ref, conversationId, participantId: 'lead', text }) as LegionEvent;
const reply = (role: 'user' | 'assistant'): LegionEvent =>
  ({
    type: 'message:sent',
    seq: ++seq,
    ...ref,
    author: role === 'assistant' ? 'lead' : 'user',
    message: { id: `m${seq}`, role, content: [{ type: 'text', text: 'x' }], at: 'now' },
  }) as LegionEvent;

describe('the text each conversation streams now', () => {
  it('gathers the deltas until the reply is appended or the turn ends; each conversation its own', () => {
    const streams = new StreamTexts();
    for (const event of [delta('Hel'), delta('lo'), delta('Other', 'user__echo')]) streams.observe(event);
    expect(streams.get('s1', 'user__lead')).toEqual({ participantId: 'lead', text: 'Hello' });
    expect(streams.get('s1', 'user__echo')?.text).toBe('Other');
    expect(streams.get('s2', 'user__lead')).toBeUndefined();
    // A user's message (a tool result) is no reply: the text goes on.
    streams.observe(reply('user'));
    expect(streams.get('s1', 'user__lead')?.text).toBe('Hello');
    streams.observe(reply('assistant'));
    expect(streams.get('s1', 'user__lead')).toBeUndefined();
    streams.observe({
      type: 'turn:end',
      seq: ++seq,
      ...ref,
      conversationId: 'user__echo',
      participantId: 'echo',
    } as unknown as LegionEvent);
    expect(streams.get('s1', 'user__echo')).toBeUndefined();
  });
});
