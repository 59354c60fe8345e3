import type { Message } from '../../kernel/index.js';
import { listUpperBound, messageUpperBound } from './message-tokens.js';

let next = 0;
const message = (text: string): Message => ({
  id: `m${next++}`,
  role: 'user',
  content: [{ type: 'text', text }],
  at: '2026-12-07T00:00:00.000Z',
});
const summed = (messages: readonly Message[]): number => messages.reduce((total, each) => total + messageUpperBound(each), 0);

describe('listUpperBound: the byte bound of a history, kept as it grows', () => {
  it('equals the whole sum after each append to the same array, as a conversation history grows', () => {
    const history: Message[] = [];
    for (let index = 0; index < 50; index++) {
      history.push(message(`step ${index} ${'é'.repeat(index)}`));
      expect(listUpperBound(history)).toBe(summed(history));
    }
  });

  it('is summed anew when the array was cut and grown again, or is another array', () => {
    const history = [message('one'), message('two'), message('three')];
    expect(listUpperBound(history)).toBe(summed(history));
    // Cut to two, then grown back to three with a different, longer last message.
    history.length = 2;
    history.push(message('a much longer third message than before'));
    expect(listUpperBound(history)).toBe(summed(history));
    history.length = 1;
    expect(listUpperBound(history)).toBe(summed(history));
    const copy = [...history, message('four')];
    expect(listUpperBound(copy)).toBe(summed(copy));
  });
});
