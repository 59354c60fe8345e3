import type { Message } from '../message.js';

/**
 * Where a turn starts: a `user` message with text in it (the initiator's message).
 * Tool results are `user` messages too, but only ever inside a turn, right after
 * the call they answer, so cutting at a turn start never parts a `tool_use` from
 * its `tool_result` and never cuts a turn in two.
 */
export function isTurnStart(message: Message): boolean {
  return message.role === 'user' && message.content.some((block) => block.type === 'text');
}

/**
 * The index from which messages are kept (those before it are summarized): the
 * newest turn start that still keeps at least `protectRecentTokens` of the newest
 * messages. `relaxed` (a compaction asked for, or the provider said the prompt is
 * too long) gives up the protection when nothing else can go: everything before
 * the newest turn is summarized. Undefined when nothing can be summarized.
 */
export function compactionCut(messages: readonly Message[], tokensOf: (message: Message) => number, protectRecentTokens: number, relaxed: boolean): number | undefined {
  let suffix = 0;
  let newestStart: number | undefined;
  for (let index = messages.length - 1; index > 0; index--) {
    suffix += tokensOf(messages[index]!);
    if (!isTurnStart(messages[index]!)) continue;
    newestStart ??= index;
    if (suffix >= protectRecentTokens) return index;
  }
  return relaxed ? newestStart : undefined;
}

/** Indexes of turn starts after the first message: where whole turns can be dropped from the front. */
export function turnStartsAfterFirst(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  for (let index = 1; index < messages.length; index++) if (isTurnStart(messages[index]!)) starts.push(index);
  return starts;
}
