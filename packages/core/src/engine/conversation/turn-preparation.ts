import { LegionError } from '../../kernel/index.js';
import type { ConversationRef, Message } from '../../kernel/index.js';
import type { ConversationLogs, ApprovalView, QuestionView } from '../../store/index.js';
import { CONVERSATION_FORMAT_VERSION } from '../../store/index.js';
import type { ConversationServices } from './conversation-services.js';
import type { ConversationHistory } from './conversation-history.js';
import { unansweredToolUses } from './unanswered-tool-uses.js';

/** Tool calls are answered in the message right after them; this many recent messages always cover it. */
export const RECENT_FOR_REPAIR = 20;

/**
 * Brings this process's view up to date under the turn's lease (another process may have
 * appended). Before a new message, a turn paused on approvals or questions refuses it (answer
 * them first), and tool calls a crash left without results get `interrupted` ones.
 */
export async function prepareTurn(
  conversation: {
    ref: ConversationRef;
    logs: ConversationLogs;
    history: ConversationHistory;
    services: Pick<ConversationServices, 'pausedOn' | 'endInterrupted'>;
    append(message: Omit<Message, 'id' | 'at'>, author: string): Promise<Message>;
  },
  newMessage: boolean,
): Promise<void> {
  const { ref, logs, history, services } = conversation;
  await logs.ensureHeader(ref, {
    kind: 'header',
    version: CONVERSATION_FORMAT_VERSION,
    conversationId: ref.conversationId,
    initiator: ref.initiator,
    responder: ref.responder,
    ...(ref.name ? { name: ref.name } : {}),
    createdAt: new Date().toISOString(),
  });
  await history.enterTurn();
  if (!newMessage) return;
  const dangling = unansweredToolUses(await history.recent(RECENT_FOR_REPAIR));
  if (dangling.length === 0) return;
  const waiting = (await services.pausedOn?.(ref.conversationId, dangling)) ?? { requests: [], questions: [] };
  const refusal = pausedRefusal(ref, waiting);
  if (refusal) throw refusal;
  // Nothing will wait on them any more: a command one of them started must not run on unseen.
  services.endInterrupted?.(dangling.map((toolUse) => toolUse.id));
  await conversation.append(
    {
      role: 'user',
      content: dangling.map((toolUse) => ({
        type: 'tool_result' as const,
        toolUseId: toolUse.id,
        content: `interrupted: Legion stopped while ${toolUse.name} was running, so its outcome is unknown. Check its effects before repeating it.`,
        isError: true,
      })),
    },
    ref.responder,
  );
}

/** A new message to a conversation whose turn waits on approvals or questions is refused, naming them and how to answer. */
function pausedRefusal(ref: ConversationRef, waiting: { requests: ApprovalView[]; questions: QuestionView[] }): LegionError | undefined {
  const conversationId = ref.conversationId;
  if (waiting.requests.length > 0) {
    return new LegionError(
      'conversation_paused',
      `${ref.initiator} → ${ref.responder} is paused until ${waiting.requests.length === 1 ? 'an approval is' : 'approvals are'} answered: ` +
        `${waiting.requests.map((request) => `${request.id} (${request.requester} wants ${request.tool}; ${request.approver} decides)`).join(', ')}. ` +
        'Answer with "legion approvals" or the approval_response tool first.',
      { conversationId, pending: waiting.requests.map((request) => request.id) },
    );
  }
  if (waiting.questions.length > 0) {
    return new LegionError(
      'conversation_paused',
      `${ref.initiator} → ${ref.responder} is paused until ${waiting.questions.length === 1 ? 'a question is' : 'questions are'} answered: ` +
        `${waiting.questions.map((question) => `${question.id} (${question.from} asks ${question.user}: "${question.text.length > 80 ? `${question.text.slice(0, 79)}…` : question.text}")`).join(', ')}. ` +
        `Answer with legion answer ${waiting.questions[0]!.id} "…" first (legion questions lists them).`,
      { conversationId, pending: waiting.questions.map((question) => question.id) },
    );
  }
  return undefined;
}
