import { z } from 'zod';
import { toolUsesOf } from '../../message.js';
import { COMMUNICATE_TOOL_NAME } from './communicate.js';
import { conversationId } from '../../conversation/conversation-id.js';
import type { ConversationRef } from '../../events/event-types.js';
import type { Session } from '../../conversation/Session.js';

/** What of a `communicate` call names the conversation it delegates to (the rest of its input is not needed here). */
const DelegationInputSchema = z.object({ to: z.string().min(1), conversation: z.string().min(1).optional() });

/**
 * Every message of a conversation: a tree is found from all its delegations,
 * not only the recent ones (a log is read from its end, so this reads it whole).
 */
const WHOLE_LOG = Number.MAX_SAFE_INTEGER;

/** Whether a session holds a conversation this participant started (it is the initiator). */
export async function sessionStartedBy(session: Session, participantId: string): Promise<boolean> {
  return (await session.listConversations()).some((ref) => ref.initiator === participantId);
}

/**
 * The conversations of a session that a participant's own messages started:
 * those it initiated, and every conversation delegated (`communicate`) beneath
 * them, however deep. What a surface standing in for someone (an MCP client)
 * may read: its own work, and none of the human's.
 */
export async function conversationsStartedBy(session: Session, participantId: string): Promise<ConversationRef[]> {
  const known = new Map((await session.listConversations()).map((ref) => [ref.conversationId, ref]));
  const reached = new Map<string, ConversationRef>();
  const queue = [...known.values()].filter((ref) => ref.initiator === participantId);
  for (let ref = queue.shift(); ref !== undefined; ref = queue.shift()) {
    if (reached.has(ref.conversationId)) continue;
    reached.set(ref.conversationId, ref);
    for (const message of await session.conversation(ref).recent(WHOLE_LOG)) {
      for (const use of toolUsesOf(message)) {
        if (use.name !== COMMUNICATE_TOOL_NAME) continue;
        const input = DelegationInputSchema.safeParse(use.input);
        if (!input.success) continue;
        let id: string;
        try {
          id = conversationId({ initiator: ref.responder, responder: input.data.to, name: input.data.conversation });
        } catch {
          // An id the communicate tool refused: no conversation was started.
          continue;
        }
        const delegate = known.get(id);
        if (delegate && !reached.has(id)) queue.push(delegate);
      }
    }
  }
  return [...reached.values()];
}
