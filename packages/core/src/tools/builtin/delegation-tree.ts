import { z } from 'zod';
import { textOf, toolResultsOf, toolUsesOf, type Message } from '../../kernel/index.js';
import { COMMUNICATE_TOOL_NAME } from './communicate.js';
import { conversationId } from '../../session/index.js';
import type { ConversationRef } from '../../kernel/index.js';
import type { SessionHistory } from '../../session/index.js';

/** What of a `communicate` call names the conversation it delegates to and the message that opened the turn there. */
const DelegationInputSchema = z.object({ to: z.string().min(1), message: z.string().min(1), conversation: z.string().min(1).optional() });

/**
 * Every message of a conversation: a tree is found from all its delegations,
 * not only the recent ones (a log is read from its end, so this reads it whole).
 */
export const WHOLE_LOG = Number.MAX_SAFE_INTEGER;

/** A conversation of a participant's delegation tree, and which of its turns are of that tree. */
export interface StartedConversation {
  ref: ConversationRef;
  /**
   * The messages that opened its turns of the tree (a delegate conversation is shared: the
   * coordinator's conversation with the developer holds the turns of every chain that went
   * through it); undefined when every turn is the participant's (it is the initiator).
   */
  openings?: ReadonlySet<string> | undefined;
}

/** Whether a session holds a conversation this participant started (it is the initiator). */
export async function sessionStartedBy(session: SessionHistory, participantId: string): Promise<boolean> {
  return (await session.listConversations()).some((ref) => ref.initiator === participantId);
}

/**
 * The conversations of a session that a participant's own messages started:
 * those it initiated, and every conversation delegated (`communicate`) beneath
 * them, however deep, with the turns of each that its tree opened. What a
 * surface standing in for someone (an MCP client) may read: its own work, and
 * none of the human's, not even in a conversation both chains went through.
 */
export async function conversationsStartedBy(session: SessionHistory, participantId: string): Promise<StartedConversation[]> {
  const known = new Map((await session.listConversations()).map((ref) => [ref.conversationId, ref]));
  const logs = new Map<string, Promise<Message[]>>();
  const messagesOf = (ref: ConversationRef): Promise<Message[]> => {
    let log = logs.get(ref.conversationId);
    if (!log) logs.set(ref.conversationId, (log = session.conversation(ref).recent(WHOLE_LOG)));
    return log;
  };
  const reached = new Map<string, { ref: ConversationRef; openings?: Set<string> | undefined }>();
  for (const ref of known.values()) if (ref.initiator === participantId) reached.set(ref.conversationId, { ref });
  // A conversation is read again when another delegation opens more of its turns: they may delegate further.
  const dirty = [...reached.keys()];
  for (let id = dirty.shift(); id !== undefined; id = dirty.shift()) {
    const entry = reached.get(id)!;
    for (const message of turnsOpenedBy(await messagesOf(entry.ref), entry.openings)) {
      for (const use of toolUsesOf(message)) {
        if (use.name !== COMMUNICATE_TOOL_NAME) continue;
        const input = DelegationInputSchema.safeParse(use.input);
        if (!input.success) continue;
        let target: string;
        try {
          target = conversationId({ initiator: entry.ref.responder, responder: input.data.to, name: input.data.conversation });
        } catch {
          // An id the communicate tool refused: no conversation was started.
          continue;
        }
        const delegate = known.get(target);
        if (!delegate) continue;
        let found = reached.get(target);
        if (!found) reached.set(target, (found = { ref: delegate, openings: new Set() }));
        if (found.openings && !found.openings.has(input.data.message)) {
          found.openings.add(input.data.message);
          if (!dirty.includes(target)) dirty.push(target);
        }
      }
    }
  }
  return [...reached.values()];
}

/**
 * The messages of the turns these messages opened (a turn runs from the initiator's message to
 * the next one: replies, tool calls and results, its ending); all of them without `openings`.
 */
export function turnsOpenedBy(messages: readonly Message[], openings: ReadonlySet<string> | undefined): Message[] {
  if (openings === undefined) return [...messages];
  const kept: Message[] = [];
  let inTurn = false;
  for (const message of messages) {
    if (opensTurn(message)) inTurn = openings.has(textOf(message));
    if (inTurn) kept.push(message);
  }
  return kept;
}

/** The initiator's message that starts a turn: text from the initiator, not tool results. */
function opensTurn(message: Message): boolean {
  return message.role === 'user' && toolResultsOf(message).length === 0 && message.content.some((block) => block.type === 'text');
}
