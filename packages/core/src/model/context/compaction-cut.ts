import type { Message } from '../../kernel/index.js';

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
 * Where a step of a turn starts: a model response right after the tool results
 * that answered the step before. Cutting there keeps every `tool_use` with its
 * `tool_result`; it is where a turn of many steps (one long task) can be cut,
 * since it has no turn start but its first.
 */
export function isStepStart(messages: readonly Message[], index: number): boolean {
  const previous = messages[index - 1];
  return (
    messages[index]?.role === 'assistant' &&
    previous?.role === 'user' &&
    previous.content.length > 0 &&
    previous.content.every((block) => block.type === 'tool_result')
  );
}

/**
 * The index from which messages are kept (those before it are summarized): the
 * newest turn start that still keeps at least `protectRecentTokens` of the newest
 * messages; where there is none (one long turn), the newest such step start.
 * `relaxed` (a compaction asked for, or the provider said the prompt is too long)
 * gives up the protection when nothing else can go: everything before the newest
 * turn (or step) is summarized. Undefined when nothing can be summarized.
 */
export function compactionCut(
  messages: readonly Message[],
  tokensOf: (message: Message) => number,
  protectRecentTokens: number,
  relaxed: boolean,
): number | undefined {
  let suffix = 0;
  let newestTurn: number | undefined;
  let newestStep: number | undefined;
  let stepCut: number | undefined;
  for (let index = messages.length - 1; index > 0; index--) {
    suffix += tokensOf(messages[index]!);
    if (isTurnStart(messages[index]!)) {
      newestTurn ??= index;
      if (suffix >= protectRecentTokens) return index;
    } else if (isStepStart(messages, index)) {
      newestStep ??= index;
      if (suffix >= protectRecentTokens) stepCut ??= index;
    }
  }
  if (stepCut !== undefined) return stepCut;
  return relaxed ? (newestTurn ?? newestStep) : undefined;
}

/**
 * Indexes after the first message where the front can be dropped, oldest first:
 * turn starts, and step starts inside a turn (a long task's), never between a
 * tool call and its result.
 */
export function cutPointsAfterFirst(messages: readonly Message[]): number[] {
  const points: number[] = [];
  for (let index = 1; index < messages.length; index++)
    if (isTurnStart(messages[index]!) || isStepStart(messages, index)) points.push(index);
  return points;
}
