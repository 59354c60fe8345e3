import { getEventListeners } from 'node:events';
import { CallSignals, linkedSignal } from './linked-signal.js';

describe('linkedSignal', () => {
  it('aborts with its parent, with the parent reason, and dispose detaches it', () => {
    const parent = new AbortController();
    const child = linkedSignal(parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    parent.abort('stop');
    expect(child.signal.aborted).toBe(true);
    expect(child.signal.reason).toBe('stop');
    const other = new AbortController();
    linkedSignal(other.signal).dispose();
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });
});

describe('CallSignals', () => {
  it('gives the next call the same child when the last call removed its listener', () => {
    const turn = new AbortController();
    const calls = new CallSignals(turn.signal);
    const first = calls.next();
    const listener = (): void => {};
    first.addEventListener('abort', listener);
    first.removeEventListener('abort', listener);
    expect(calls.next()).toBe(first);
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(1);
  });

  it('gives a new child when the last call left a listener behind, detaching the old one from the turn', () => {
    const turn = new AbortController();
    const calls = new CallSignals(turn.signal);
    const signals = new Set<AbortSignal>();
    for (let call = 0; call < 50; call++) {
      const signal = calls.next();
      signals.add(signal);
      signal.addEventListener('abort', () => {});
    }
    expect(signals.size).toBe(50);
    // A long turn's signal never collects the calls' listeners.
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(1);
  });

  it("detaches a finished call that left a listener behind, so the turn's abort does not reach it", () => {
    const turn = new AbortController();
    const calls = new CallSignals(turn.signal);
    const signal = calls.next();
    const leaked = vi.fn();
    signal.addEventListener('abort', leaked);
    calls.done();
    expect(getEventListeners(turn.signal, 'abort')).toHaveLength(0);
    turn.abort();
    expect(signal.aborted).toBe(false);
    expect(leaked).not.toHaveBeenCalled();
  });

  it('aborts the current child with the turn, and dispose detaches it', () => {
    const turn = new AbortController();
    const calls = new CallSignals(turn.signal);
    const signal = calls.next();
    turn.abort('cancelled');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('cancelled');
    expect(calls.next()).not.toBe(signal);
    const other = new AbortController();
    const more = new CallSignals(other.signal);
    more.next();
    more.dispose();
    expect(getEventListeners(other.signal, 'abort')).toHaveLength(0);
  });
});
