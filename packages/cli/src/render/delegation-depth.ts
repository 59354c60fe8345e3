import type { LegionEvent } from '@legion-collective/core';

/**
 * How far down its delegation tree a conversation's turn runs: 0 for the turn a user started, one
 * more for each delegation. Every surface that indents a collective's work (`legion demo`,
 * `legion run --verbose`, the REPL) reads the depth here, so they indent the same way.
 */
export function delegationDepth(chain: readonly string[]): number {
  // The chain ends with the turn's sender: a user's message has a chain of one.
  return Math.max(0, chain.length - 1);
}

/** The margin of a line at `depth`. */
export function indentation(depth: number): string {
  return '  '.repeat(depth);
}

/** The depth of each conversation, learned from the `turn:start` events that carry its chain. */
export class ConversationDepths {
  private readonly depths = new Map<string, number>();

  /** Takes in a turn's start; other events change nothing. */
  observe(event: LegionEvent): void {
    if (event.type === 'turn:start') this.depths.set(event.conversationId, delegationDepth(event.chain));
  }

  /** A conversation's depth; 0 before its first turn started (a message another process appended, say). */
  of(conversationId: string): number {
    return this.depths.get(conversationId) ?? 0;
  }

  /** Whether a turn of this conversation was seen. */
  has(conversationId: string): boolean {
    return this.depths.has(conversationId);
  }
}
