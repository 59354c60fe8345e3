import type { Legion, Message, Session, UsageTotals } from '@legion-collective/core';
import { parseConversationId } from '@legion-collective/core/internal';
import type { ConversationSummary, SessionSummary } from './wire/sessions.js';
import type { Totals } from './wire/usage.js';
import type { WireMessage } from './wire/messages.js';

/** Core totals on the wire: a cost only when some call had a price. */
export function wireTotals(totals: UsageTotals): Totals {
  const priced = totals.calls - totals.unpricedCalls;
  return {
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    cacheReadTokens: totals.cacheReadTokens,
    cacheWriteTokens: totals.cacheWriteTokens,
    costUsd: totals.calls > 0 && priced === 0 ? null : totals.costUsd,
    calls: totals.calls,
    unpricedCalls: totals.unpricedCalls,
  };
}

/** Who wrote a logged message (the log keeps roles): the responder its replies and its tools' results, the initiator the rest. */
export function authorOf(ref: { initiator: string; responder: string }, message: Message): string {
  if (message.role === 'assistant') return ref.responder;
  const toolResultsOnly = message.content.length > 0 && message.content.every((block) => block.type === 'tool_result');
  return toolResultsOnly ? ref.responder : ref.initiator;
}

export function wireMessage(ref: { initiator: string; responder: string }, message: Message): WireMessage {
  return { ...message, author: authorOf(ref, message) };
}

/** A session as the catalog keeps it: all a summary needs of its record. */
type SessionInfo = Pick<Session['info'], 'id' | 'createdAt' | 'lastActiveAt' | 'title'>;

/**
 * Session and conversation summaries, from core's session index: counts and totals kept as the
 * logs are appended to, so a page of sessions reads no log however long their histories are.
 */
export class SessionViews {
  constructor(
    private readonly legion: Legion,
    private readonly busy: (sessionId: string, conversationId: string) => boolean,
  ) {}

  /** Throws `SessionNotFoundError` when the session is gone (another process removed it). */
  async detail(info: SessionInfo): Promise<{ summary: SessionSummary; conversations: ConversationSummary[] }> {
    const tally = await this.legion.sessions.tally(info.id);
    const conversations = tally.conversations.map((counted): ConversationSummary => {
      const key = parseConversationId(counted.conversationId);
      return {
        id: counted.conversationId,
        initiator: key.initiator,
        responder: key.responder,
        ...(key.name !== undefined ? { name: key.name } : {}),
        messages: counted.messages,
        ...(counted.lastMessageAt !== undefined ? { lastAt: counted.lastMessageAt } : {}),
        busy: this.busy(info.id, counted.conversationId),
      };
    });
    const totals = wireTotals(tally.usage);
    return {
      summary: {
        id: info.id,
        createdAt: info.createdAt,
        updatedAt: info.lastActiveAt,
        ...(info.title !== undefined ? { title: info.title } : {}),
        conversations: conversations.length,
        messages: conversations.reduce((sum, conversation) => sum + conversation.messages, 0),
        costUsd: totals.costUsd,
        tokens: totals.inputTokens + totals.outputTokens + totals.cacheReadTokens + totals.cacheWriteTokens,
      },
      conversations,
    };
  }
}
