import type { LegionEvent } from '@legion-collective/core';
import type { ParticipantStateName } from './wire/participants.js';

export interface ParticipantState {
  state: ParticipantStateName;
  detail?: string | undefined;
  sessionId?: string | undefined;
  conversationId?: string | undefined;
}

type Activity = Required<Pick<ParticipantState, 'state' | 'sessionId' | 'conversationId'>> & { detail?: string | undefined };

const IDLE: ParticipantState = { state: 'idle' };

/**
 * What each participant does now, derived from events: a participant may be busy in several
 * conversations at once (parallel delegations to it); it shows the latest change among them and
 * is idle when none is left. Events of other processes (followed, `remote`) carry no turn events,
 * so their messages stand in for them.
 */
export class ParticipantStates {
  private readonly activities = new Map<string, Map<string, Activity>>();
  private readonly shown = new Map<string, ParticipantState>();

  constructor(private readonly onChange: (participantId: string, state: ParticipantState) => void) {}

  get(participantId: string): ParticipantState {
    return this.shown.get(participantId) ?? IDLE;
  }

  observe(event: LegionEvent): void {
    switch (event.type) {
      case 'turn:start':
        return this.set(event.participantId, event, 'thinking');
      case 'text:delta':
        return this.set(event.participantId, event, 'thinking', undefined, true);
      case 'tool:call':
        return this.set(event.participantId, event, 'tool', event.toolUse.name);
      case 'tool:result':
        return this.set(event.participantId, event, 'thinking');
      case 'turn:end':
        // A turn paused on approvals waits for the decision.
        if (event.status === 'paused') return this.set(event.participantId, event, 'approval');
        return this.clear(event.participantId, event.sessionId, event.conversationId);
      case 'approval:requested':
        return this.set(event.requester, event, 'approval', event.tool);
      case 'approval:decided':
        return this.settleWaiting(event.requester, event.sessionId, event.conversationId, 'approval');
      case 'question:asked':
        return this.set(event.from, event, 'user', 'question');
      case 'question:answered':
      case 'question:withdrawn':
        return this.endQuestion(event.from, event.sessionId, event.conversationId);
      case 'message:sent':
        if (event.remote) this.remoteMessage(event);
        return;
      default:
        return;
    }
  }

  /** A followed message of another process: the responder works on a message to it, and is done at a reply without tool calls. */
  private remoteMessage(event: Extract<LegionEvent, { type: 'message:sent' }>): void {
    const { message, responder, sessionId, conversationId } = event;
    // A message to the responder, or its tools' results: it works on them.
    if (message.role === 'user') return this.set(responder, event, 'thinking');
    const toolUse = message.content.find((block) => block.type === 'tool_use');
    if (toolUse) this.set(responder, event, 'tool', toolUse.name);
    else this.clear(responder, sessionId, conversationId);
  }

  /** The wait ended: back to thinking if that conversation's turn still runs here, else (a paused turn) nothing is left. */
  private settleWaiting(participantId: string, sessionId: string, conversationId: string, waiting: ParticipantStateName): void {
    const activity = this.activities.get(participantId)?.get(`${sessionId} ${conversationId}`);
    if (activity?.state !== waiting) return;
    this.set(participantId, { sessionId, conversationId }, 'thinking');
  }

  /**
   * A question lives in the conversation to the user, not in the asker's turn (which runs where the
   * asker is the responder, and ends there): its wait is dropped when it settles. Turned back into
   * "thinking" it would stay so for good, since no turn ends in that conversation for the asker.
   */
  private endQuestion(participantId: string, sessionId: string, conversationId: string): void {
    if (this.activities.get(participantId)?.get(`${sessionId} ${conversationId}`)?.state !== 'user') return;
    this.clear(participantId, sessionId, conversationId);
  }

  private set(
    participantId: string,
    where: { sessionId: string; conversationId: string },
    state: ParticipantStateName,
    detail?: string,
    quiet = false,
  ): void {
    let active = this.activities.get(participantId);
    if (!active) this.activities.set(participantId, (active = new Map()));
    const key = `${where.sessionId} ${where.conversationId}`;
    const before = active.get(key);
    // Deltas stream by the hundred: only a change of state is news.
    if (quiet && before?.state === state) return;
    // Re-inserted so that the latest change is the last entry.
    active.delete(key);
    active.set(key, { state, detail, sessionId: where.sessionId, conversationId: where.conversationId });
    this.publish(participantId);
  }

  private clear(participantId: string, sessionId: string, conversationId: string): void {
    const active = this.activities.get(participantId);
    if (!active?.delete(`${sessionId} ${conversationId}`)) return;
    if (active.size === 0) this.activities.delete(participantId);
    this.publish(participantId);
  }

  private publish(participantId: string): void {
    const latest = [...(this.activities.get(participantId)?.values() ?? [])].at(-1);
    const next: ParticipantState = latest ? { ...latest } : IDLE;
    const before = this.get(participantId);
    if (
      before.state === next.state &&
      before.detail === next.detail &&
      before.conversationId === next.conversationId &&
      before.sessionId === next.sessionId
    )
      return;
    if (latest) this.shown.set(participantId, next);
    else this.shown.delete(participantId);
    this.onChange(participantId, next);
  }
}
