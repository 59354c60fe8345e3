import type { Message } from '../../kernel/message.js';

/** The first block of the last message of a model request, which must be a tool result. */
export const lastResult = (request: { messages: readonly Message[] }) => {
  const block = request.messages.at(-1)!.content[0];
  if (block?.type !== 'tool_result') throw new Error(`expected a tool_result, got ${JSON.stringify(block)}`);
  return block;
};

/** A promise with its resolve function outside, for "the first surface has been asked". */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** A surface's answer that never comes: it waits until its signal aborts, and reports why. */
export function hangUntilAborted<T>(signal: AbortSignal, reasons: unknown[]): Promise<T> {
  return new Promise<T>((_, reject) => {
    signal.addEventListener(
      'abort',
      () => {
        reasons.push(signal.reason);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
