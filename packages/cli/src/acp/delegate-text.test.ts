import { DelegateText } from './delegate-text.js';

describe("a delegate's streamed text on its delegation's call", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('is shown gathered, at most every quarter second, and never once the call ended', () => {
    const shown: Array<[string, string]> = [];
    const text = new DelegateText((toolCallId, streamed) => shown.push([toolCallId, streamed]));
    text.delegated('coordinator__developer', 'toolu_1');
    text.text('user__coordinator', 'not a delegation');
    text.text('coordinator__developer', 'Wri');
    text.text('coordinator__developer', 'ting');
    expect(shown).toEqual([]);
    vi.advanceTimersByTime(250);
    expect(shown).toEqual([['toolu_1', 'Writing']]);
    text.text('coordinator__developer', ' notes');
    text.end('toolu_1');
    vi.advanceTimersByTime(1_000);
    expect(shown).toEqual([['toolu_1', 'Writing']]);
  });

  it('shows the end of a long text', () => {
    const shown: string[] = [];
    const text = new DelegateText((_toolCallId, streamed) => shown.push(streamed));
    text.delegated('c', 't');
    text.text('c', 'a'.repeat(3_000) + 'END');
    vi.advanceTimersByTime(250);
    expect(shown[0]!.startsWith('…')).toBe(true);
    expect(shown[0]!.endsWith('END')).toBe(true);
    expect(shown[0]!.length).toBe(2_001);
  });
});
