import { errorMessage, type Legion } from '@legion-collective/core';
import { waitingParticipants } from '@legion-collective/core/internal';
import type { ParticipantStates } from './participant-states.js';

/** Sessions whose records are read at start: the most recently active, where a paused turn may wait. */
const SEEDED_SESSIONS = 20;

/**
 * A restarted server has heard none of the events of before, but what waits on a person is
 * recorded: pending approvals and questions. Their requesters, askers and the chains above them
 * show as waiting (for you, for their delegate) rather than idle.
 */
export async function seedStates(legion: Legion, states: ParticipantStates): Promise<void> {
  // The catalog (most recently active first) is the one the session pages read: one listing at start, not two.
  const recent = await legion.sessions.find('', { limit: SEEDED_SESSIONS });
  for (const meta of recent) {
    try {
      await seedSession(legion, meta.id, states);
      // Read, not used: left open, a session another process removes later would still be listed here.
      legion.sessions.release(meta.id);
    } catch (error) {
      // A session that cannot be read is told where it is read (its routes say why); serve starts regardless.
      legion.events.emit('storage:warning', {
        path: meta.id,
        offset: 0,
        problem: `participant states: ${errorMessage(error)}`,
        sessionId: meta.id,
      });
    }
  }
}

async function seedSession(legion: Legion, sessionId: string, states: ParticipantStates): Promise<void> {
  const session = await legion.sessions.get(sessionId);
  const approvals = await session.approvals.state();
  for (const view of approvals.list({ status: 'pending' })) {
    const frames = approvals.request(view.id)?.frames ?? [];
    const chainConversations = turnConversations(frames);
    states.seed(view.id, {
      kind: 'approval',
      sessionId: session.id,
      conversationId: view.conversationId,
      participantId: view.requester,
      asked: view.approver,
      detail: view.tool,
      chain: waitingParticipants(frames),
      chainConversations,
    });
  }
  const questions = await session.questions.state();
  for (const view of questions.list({ status: 'pending' })) {
    states.seed(view.id, {
      kind: 'question',
      sessionId: session.id,
      conversationId: view.conversationId,
      participantId: view.from,
      asked: view.user,
      detail: view.from,
      chain: [...view.chain],
      chainConversations: turnConversations(questions.question(view.id)?.frames ?? []),
    });
  }
}

/** Where each participant of a chain waits: a frame with a tool call is a turn waiting on it, its participant the responder there. */
function turnConversations(
  frames: readonly { participantId: string; conversationId: string; toolUseId?: string | undefined }[],
): Record<string, string> {
  return Object.fromEntries(
    frames.filter((frame) => frame.toolUseId !== undefined).map((frame) => [frame.participantId, frame.conversationId]),
  );
}
