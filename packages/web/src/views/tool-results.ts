import type { ToolResult, WireMessage } from '../api/wire.js';

/** Where each message's tool calls find their results, and which results are shown that way. */
export interface ToolResultPlacement {
  /** For a message holding calls: its calls' results, by call id. */
  resultsOf: Map<string, Map<string, ToolResult>>;
  /** Results shown in their call's line (by message id, then block index): not drawn again. */
  placed: Map<string, Set<number>>;
}

/**
 * A call's result is in the message right after the call's own message, never searched for across
 * the conversation: providers (and local OpenAI-compatible servers) may reuse call ids, and a
 * result matched to another turn's call would show that call's status. A result with no call in
 * the message before it (an older page, say) is left unplaced and stands alone.
 */
export function placeToolResults(messages: readonly WireMessage[]): ToolResultPlacement {
  const resultsOf = new Map<string, Map<string, ToolResult>>();
  const placed = new Map<string, Set<number>>();
  messages.forEach((message, index) => {
    const callIds = new Set(message.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : [])));
    const next = messages[index + 1];
    if (callIds.size === 0 || next === undefined) return;
    const results = new Map<string, ToolResult>();
    const used = new Set<number>();
    next.content.forEach((block, blockIndex) => {
      if (block.type !== 'tool_result' || !callIds.has(block.toolUseId) || results.has(block.toolUseId)) return;
      results.set(block.toolUseId, block);
      used.add(blockIndex);
    });
    resultsOf.set(message.id, results);
    if (used.size > 0) placed.set(next.id, used);
  });
  return { resultsOf, placed };
}

/**
 * A message with nothing left to show once its results sit in their calls' lines, or with no content
 * at all, or only white space (a tool-call-only response some models pad with "\n\n"): no empty bubble.
 */
export function showsNothing(message: WireMessage, placement: ToolResultPlacement): boolean {
  const used = placement.placed.get(message.id);
  return (
    message.ending === undefined &&
    message.content.every((block, index) => used?.has(index) === true || (block.type === 'text' && block.text.trim() === ''))
  );
}

/** A call's result; null when the message after the call came without one (none will come), undefined while it runs. */
export function resultOf(placement: ToolResultPlacement, messageId: string, callId: string): ToolResult | null | undefined {
  const results = placement.resultsOf.get(messageId);
  return results === undefined ? undefined : (results.get(callId) ?? null);
}
