import type { Message, TurnEnding } from '../../kernel/index.js';
import { withEndedTurns } from './turn-ending.js';

let next = 0;
const at = '2026-12-07T00:00:00.000Z';
const user = (text: string, ending?: TurnEnding): Message => ({
  id: `m${next++}`,
  role: 'user',
  content: [{ type: 'text', text }],
  at,
  ...(ending ? { ending } : {}),
});

describe('withEndedTurns, read step by step over one growing history', () => {
  it('returns the history itself while nothing is withheld, and sees an ending appended later', () => {
    const history: Message[] = [user('hello'), user('a huge paste')];
    expect(withEndedTurns(history)).toBe(history);
    const refused = history[1]!;
    history.push(user('next', { status: 'failed', code: 'provider_bad_request', error: 'too long', withheld: [refused.id] }));
    const shown = withEndedTurns(history);
    expect(shown).not.toBe(history);
    expect(shown[0]).toBe(history[0]);
    expect(shown[1]!.content).toEqual([{ type: 'text', text: expect.stringContaining('[left out: the provider refused the request') }]);
    // The stored message is untouched, and the next step shows the same replacement object (counted once).
    expect(refused.content).toEqual([{ type: 'text', text: 'a huge paste' }]);
    history.push(user('and more'));
    const again = withEndedTurns(history);
    expect(again[1]).toBe(shown[1]);
    expect(again[3]).toBe(history[3]);
  });

  it('reads a history that was cut and grown again anew', () => {
    const history: Message[] = [user('a'), user('b')];
    history.push(user('c', { status: 'failed', code: 'provider_bad_request', withheld: [history[1]!.id] }));
    expect(withEndedTurns(history)).not.toBe(history);
    // Compaction-like cut: the ending is gone, so nothing is withheld any more.
    history.length = 2;
    history.push(user('d'));
    expect(withEndedTurns(history)).toBe(history);
  });
});
