import { conversationId } from '../session/index.js';
import type { LegionEvent } from '../kernel/index.js';
import { COMMUNICATE_TOOL_NAME } from '../tools/index.js';

type ToolCall = Extract<LegionEvent, { type: 'tool:call' }>;

/**
 * The conversation a `communicate` call sends into, from its `tool:call` event; undefined for any
 * other tool, or a target the call itself will refuse. Events name their conversation, not the work
 * that waits on them: this is how a surface learns which conversations belong to its turn's tree.
 */
export function delegatedConversation(event: ToolCall): string | undefined {
  if (event.toolUse.name !== COMMUNICATE_TOOL_NAME) return undefined;
  const input = event.toolUse.input as { to?: unknown; conversation?: unknown };
  if (typeof input.to !== 'string') return undefined;
  try {
    return conversationId({
      initiator: event.participantId,
      responder: input.to,
      name: typeof input.conversation === 'string' ? input.conversation : undefined,
    });
  } catch {
    // A malformed target: communicate itself answers the model with the error.
    return undefined;
  }
}

/**
 * The conversations of one piece of work's delegation tree in a session, growing as its agents
 * delegate: it starts with the conversations the work runs in, and each `communicate` call made in
 * one of them adds the conversation it sends into. `whole`: work whose conversations are not known
 * beforehand (a turn another surface resumed) takes every conversation of the session.
 */
export class DelegationTree {
  readonly conversations: Set<string>;

  constructor(
    readonly sessionId: string,
    conversations: Iterable<string> | 'whole',
  ) {
    this.whole = conversations === 'whole';
    this.conversations = new Set(conversations === 'whole' ? [] : conversations);
  }

  private readonly whole: boolean;

  /** Whether an event of a conversation is this tree's (after taking in a delegation it makes). */
  takes(event: LegionEvent): boolean {
    if (!('conversationId' in event) || !('sessionId' in event) || event.sessionId !== this.sessionId) return false;
    if (this.whole) this.conversations.add(event.conversationId);
    else if (!this.conversations.has(event.conversationId)) return false;
    if (event.type === 'tool:call') {
      const delegated = delegatedConversation(event);
      if (delegated !== undefined) this.conversations.add(delegated);
    }
    return true;
  }
}
