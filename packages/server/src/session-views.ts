import type { Message, Session, UsageTotals } from '@legion-collective/core';
import type { ConversationSummary, SessionSummary } from './wire/sessions.js';
import type { Totals } from './wire/usage.js';
import type { WireMessage } from './wire/messages.js';

/** Every message of a log: `recent` reads from the end, and the whole log is its end. */
const ALL = Number.MAX_SAFE_INTEGER;

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

/**
 * Session and conversation summaries. Counting messages reads whole logs, so what was counted
 * is kept until an event of that session says it changed.
 */
export class SessionViews {
  private readonly summaries = new Map<string, Promise<{ summary: SessionSummary; conversations: ConversationSummary[] }>>();

  constructor(private readonly busy: (sessionId: string, conversationId: string) => boolean) {}

  /** Something happened in the session: its summary is counted again when next asked for. */
  changed(sessionId: string): void {
    this.summaries.delete(sessionId);
  }

  async detail(session: Session): Promise<{ summary: SessionSummary; conversations: ConversationSummary[] }> {
    let cached = this.summaries.get(session.id);
    if (!cached) {
      cached = this.count(session);
      this.summaries.set(session.id, cached);
      // A failed count is not kept.
      cached.catch(() => this.summaries.delete(session.id));
    }
    const { summary, conversations } = await cached;
    return {
      // The metadata may be newer than the counts (a title set meanwhile).
      summary: {
        ...summary,
        updatedAt: session.info.lastActiveAt,
        ...(session.info.title !== undefined ? { title: session.info.title } : {}),
      },
      conversations: conversations.map((conversation) => ({ ...conversation, busy: this.busy(session.id, conversation.id) })),
    };
  }

  private async count(session: Session): Promise<{ summary: SessionSummary; conversations: ConversationSummary[] }> {
    const conversations: ConversationSummary[] = [];
    for (const ref of await session.listConversations()) {
      const messages = await session.conversation(ref).recent(ALL);
      const last = messages.at(-1);
      conversations.push({
        id: ref.conversationId,
        initiator: ref.initiator,
        responder: ref.responder,
        ...(ref.name !== undefined ? { name: ref.name } : {}),
        messages: messages.length,
        ...(last ? { lastAt: last.at } : {}),
        busy: false,
      });
    }
    const totals = wireTotals(await session.usageTotals());
    const info = session.info;
    return {
      summary: {
        id: session.id,
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
