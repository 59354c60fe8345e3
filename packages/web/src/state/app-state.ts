import type {
  ApprovalView,
  ClaimConflict,
  ConversationSummary,
  FileClaim,
  Participant,
  RefusedWrite,
  SessionSummary,
  UsageView,
  WireMessage,
  WireQuestion,
  Workspace,
} from '../api/wire.js';
import { emptyTurnTree, type ActiveTurn, type TurnTree } from './turn-tree.js';

export type { ActiveTurn } from './turn-tree.js';

/** Text a responder is streaming in a conversation, not yet appended as a message. */
export interface Stream {
  participantId: string;
  text: string;
}

/** Something the user should know that is no message of a conversation: a config reload, a guessed window. */
export interface Notice {
  /** The same notice again replaces the shown one (`window:<provider>/<model>`, `config`). */
  id: string;
  /** `warning` needs the user's action (a restart, a setting); `note` is news. */
  tone: 'note' | 'warning';
  text: string;
}

/** An isolated agent's change waiting on the human (a `worktree:ready` event): applied from a terminal with `legion worktrees apply`. */
export interface WorktreeReview {
  worktreeId: string;
  participantId: string;
  callerId: string;
  conversationId: string;
  files: string[];
}

/** Everything the app shows, for the session it looks at. Replaced, never mutated (views compare by identity). */
export interface AppState {
  workspace: Workspace | null;
  participants: Participant[];
  sessions: SessionSummary[];
  /** The cursor of the next page of sessions, or null when every session is loaded. */
  sessionsNext: string | null;
  sessionId: string | null;
  conversations: Record<string, ConversationSummary>;
  /** Loaded conversations only (the ones opened); others are fetched when opened. */
  messages: Record<string, WireMessage[]>;
  /** Conversation id → older messages exist than those loaded. */
  earlier: Record<string, boolean>;
  streams: Record<string, Stream>;
  activeTurns: Record<string, ActiveTurn>;
  /** The current turn's delegations, live (turn-tree.ts). */
  turnTree: TurnTree;
  approvals: ApprovalView[];
  questions: WireQuestion[];
  /** Changes of isolated agents announced while this page was open (the stream's events; a reload starts empty). */
  reviews: WorktreeReview[];
  usage: UsageView | null;
  /** The files running turns claimed, in every process on the workspace's store (polled, and read again after turns). */
  claims: FileClaim[];
  /** The latest writes refused because another agent's turn held the file, newest last (a few): the notice's. */
  conflicts: ClaimConflict[];
  /** Every write refused in the session looked at, oldest first: read at load, then each as it happens. */
  refusedWrites: RefusedWrite[];
  selectedConversation: string | null;
  /** Shown above the views until dismissed. */
  notices: Notice[];
  /** Set when the event stream could not be read; shown until it is back. */
  connection: 'connecting' | 'open' | 'reconnecting';
  error: string | null;
}

export const initialState: AppState = {
  workspace: null,
  participants: [],
  sessions: [],
  sessionsNext: null,
  sessionId: null,
  conversations: {},
  messages: {},
  earlier: {},
  streams: {},
  activeTurns: {},
  turnTree: emptyTurnTree,
  approvals: [],
  questions: [],
  reviews: [],
  usage: null,
  claims: [],
  conflicts: [],
  refusedWrites: [],
  selectedConversation: null,
  notices: [],
  connection: 'connecting',
  error: null,
};

/** `<initiator>__<responder>[__<name>]`, as core names conversations. */
export function conversationIdOf(initiator: string, responder: string, name?: string): string {
  return name ? `${initiator}__${responder}__${name}` : `${initiator}__${responder}`;
}
