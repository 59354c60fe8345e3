import type { ApprovalView, ConversationSummary, StateEvent, WireEvent, WireMessage } from '../api/wire.js';
import type { AppState, Notice } from './app-state.js';

/** How many refused writes the app keeps to show. */
const MAX_CONFLICTS = 5;

/**
 * Applies one event of the stream to the state, purely. Events of other sessions change only the
 * sessions list (the stream carries all of them; the app looks at one). Applying an event twice
 * changes nothing the second time for everything keyed by id (messages, approvals, questions);
 * deltas are the exception, which is why the event stream drops ids it has already delivered.
 */
export function reduceEvent(state: AppState, event: WireEvent, now: number): AppState {
  if (event.type === 'session:created') return state;
  // Workspace-level: every session's view is under the new config.
  if (event.type === 'config:reloaded') return withNotice(state, configNotice(event.changes, event.restartNeeded));
  if (!('sessionId' in event) || event.sessionId !== state.sessionId) return state;
  switch (event.type) {
    case 'message:sent': {
      const message: WireMessage = { ...event.message, author: event.author };
      const conversations = withConversation(state.conversations, event, message.at);
      const loaded = state.messages[event.conversationId];
      const messages =
        loaded === undefined || loaded.some((known) => known.id === message.id)
          ? state.messages
          : { ...state.messages, [event.conversationId]: [...loaded, message] };
      // The reply is appended: what streamed is now in it.
      const streams = message.role === 'assistant' ? without(state.streams, event.conversationId) : state.streams;
      return { ...state, conversations, messages, streams };
    }
    case 'turn:start':
      return {
        ...state,
        conversations: withConversation(state.conversations, event),
        activeTurns: { ...state.activeTurns, [event.conversationId]: { participantId: event.participantId, chain: [...event.chain] } },
      };
    case 'turn:end':
      return {
        ...state,
        activeTurns: without(state.activeTurns, event.conversationId),
        streams: without(state.streams, event.conversationId),
      };
    case 'text:delta': {
      const stream = state.streams[event.conversationId];
      const text = (stream?.text ?? '') + event.text;
      return { ...state, streams: { ...state.streams, [event.conversationId]: { participantId: event.participantId, text } } };
    }
    case 'approval:requested': {
      if (state.approvals.some((approval) => approval.id === event.requestId)) return state;
      const approval: ApprovalView = {
        id: event.requestId,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        at: new Date(now).toISOString(),
        requester: event.requester,
        approver: event.approver,
        tool: event.tool,
        input: event.input,
        reason: event.reason,
        // The view's chain ends with the requester, as the REST list gives it.
        chain: event.chain.at(-1) === event.requester ? [...event.chain] : [...event.chain, event.requester],
        status: 'pending',
      };
      return { ...state, approvals: [...state.approvals, approval] };
    }
    case 'approval:decided': {
      const approvals = state.approvals.map((approval) =>
        approval.id === event.requestId
          ? {
              ...approval,
              status: event.decision,
              decidedBy: event.decidedBy,
              ...(event.reason !== undefined ? { decisionReason: event.reason } : {}),
              ...(event.cancelled ? { cancelled: true as const } : {}),
            }
          : approval,
      );
      return { ...state, approvals };
    }
    case 'question:asked': {
      if (state.questions.some((question) => question.id === event.questionId)) return state;
      const question = {
        id: event.questionId,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        from: event.from,
        user: event.user,
        chain: [...event.chain],
        text: event.text,
        askedAt: event.at,
      };
      return { ...state, questions: [...state.questions, question] };
    }
    case 'window:guessed':
      return withNotice(state, { id: `window:${event.provider}/${event.model}`, tone: 'warning', text: event.text });
    case 'worktree:ready': {
      const review = {
        worktreeId: event.worktreeId,
        participantId: event.participantId,
        callerId: event.callerId,
        conversationId: event.conversationId,
        files: [...event.files],
      };
      // A conversation held directly with an isolated agent keeps one worktree across its turns: a later turn's event replaces the files.
      const others = state.reviews.filter((kept) => kept.worktreeId !== event.worktreeId);
      return { ...state, reviews: [...others, review] };
    }
    case 'claim:conflict': {
      // A few, newest last: the notice shows the latest; the Claims view lists all of the session's.
      const conflicts = [...state.conflicts, event].slice(-MAX_CONFLICTS);
      if (state.refusedWrites.some((known) => known.id === event.conflictId)) return { ...state, conflicts };
      const { conflictId: id, at, conversationId, participantId, tool, path, holder } = event;
      return {
        ...state,
        conflicts,
        refusedWrites: [...state.refusedWrites, { id, at, conversationId, participantId, tool, path, holder }],
      };
    }
    case 'question:answered':
    case 'question:withdrawn':
      return { ...state, questions: state.questions.filter((question) => question.id !== event.questionId) };
    default:
      return state;
  }
}

/** A participant's live state, as the server derives it: taken whole, nothing of the previous state kept. */
export function reduceParticipantState(state: AppState, event: StateEvent): AppState {
  const participants = state.participants.map((participant) => {
    if (participant.id !== event.participantId) return participant;
    const {
      detail: _detail,
      askedBy: _askedBy,
      sessionId: _session,
      conversationId: _conversation,
      outcome: _outcome,
      code: _code,
      ...rest
    } = participant;
    return {
      ...rest,
      state: event.state,
      ...(event.detail !== undefined ? { detail: event.detail } : {}),
      ...(event.askedBy !== undefined ? { askedBy: event.askedBy } : {}),
      ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
      ...(event.conversationId !== undefined ? { conversationId: event.conversationId } : {}),
      ...(event.outcome !== undefined ? { outcome: event.outcome } : {}),
      ...(event.code !== undefined ? { code: event.code } : {}),
    };
  });
  return { ...state, participants };
}

function withConversation(
  conversations: Record<string, ConversationSummary>,
  ref: { conversationId: string; initiator: string; responder: string; name?: string | undefined },
  at?: string,
): Record<string, ConversationSummary> {
  const known = conversations[ref.conversationId];
  if (known && at === undefined) return conversations;
  const summary: ConversationSummary = known
    ? { ...known, messages: known.messages + 1, ...(at !== undefined ? { lastAt: at } : {}) }
    : {
        id: ref.conversationId,
        initiator: ref.initiator,
        responder: ref.responder,
        busy: false,
        ...(ref.name ? { name: ref.name } : {}),
        messages: at === undefined ? 0 : 1,
        ...(at !== undefined ? { lastAt: at } : {}),
      };
  return { ...conversations, [ref.conversationId]: summary };
}

function without<Value>(record: Record<string, Value>, key: string): Record<string, Value> {
  if (!(key in record)) return record;
  const { [key]: _removed, ...rest } = record;
  return rest;
}

/** Shows a notice, in place of the one of the same id. */
export function withNotice(state: AppState, notice: Notice): AppState {
  return { ...state, notices: [...state.notices.filter((shown) => shown.id !== notice.id), notice] };
}

/** What a reload of the config means here: what applies from the next message, and what only after a restart. */
function configNotice(changes: readonly string[], restartNeeded: readonly string[]): Notice {
  const applied = changes.filter((key) => !restartNeeded.includes(key));
  const parts: string[] = [];
  if (applied.length > 0) parts.push(`The config changed; from the next message on: ${applied.join(', ')}.`);
  if (restartNeeded.length > 0) parts.push(`Applies only after legion serve is restarted: ${restartNeeded.join(', ')}.`);
  return { id: 'config', tone: restartNeeded.length > 0 ? 'warning' : 'note', text: parts.join(' ') || 'The config was read again.' };
}
