import type { Participant } from '../team/index.js';
import type { LegionErrorCode, Message, ConversationRef, EventBus, TurnTrace } from '../kernel/index.js';
import type {
  ApprovalAnswer,
  ApprovalView,
  DelegationFrame,
  CompactionEntry,
  CompactionEntryInput,
  CompactionReason,
  SessionApprovals,
  SessionQuestions,
  QuestionView,
  SessionAgentState,
  SessionArtifacts,
  UsageRecord,
  UsageTotals,
} from '../store/index.js';
import type { MessageWork } from './message-work.js';
import type { SessionFileClaims } from './file-claims.js';
import type { EditorFiles } from './editor-files.js';

/** One message from one participant to another, through `Session.send`. */
export interface SendRequest {
  from: string;
  to: string;
  message: string;
  /** Names a parallel conversation between the same two participants. */
  conversation?: string | undefined;
  signal?: AbortSignal | undefined;
  /** `wait` queues behind a running turn; `fail` returns a busy error at once. */
  ifBusy?: 'wait' | 'fail' | undefined;
  /**
   * Who waits on this message, outermost first, ending with the sender's own
   * communicate call (set by communicate). Empty or absent: the sender starts
   * a new chain.
   */
  frames?: readonly DelegationFrame[] | undefined;
}

/**
 * A turn waiting on approvals or on a user's answer, durably: it survives a
 * restart, and answering the requests (`answerApprovals`) or the questions
 * (`answerQuestion`, `legion answer`) resumes it. The one shape of "paused"
 * that turns, runtimes and tools (communicate) return.
 */
export interface PausedOnApprovals {
  status: 'paused';
  requests: ApprovalView[];
  /** Questions to users nobody could be asked now (none attached anywhere); absent or empty when none. */
  questions?: QuestionView[] | undefined;
}

export type TurnResult =
  | {
      status: 'success';
      reply: string;
      /** The appended reply, when the runtime appended it itself. */
      message?: Message | undefined;
      /** The model stopped at its output limit (max_tokens): the reply is cut short. */
      truncated?: boolean | undefined;
      conversationId: string;
    }
  | { status: 'error'; code: LegionErrorCode; error: string; conversationId: string }
  | (PausedOnApprovals & { conversationId: string });

/** What the conversation hands a runtime for one incoming message. */
export interface TurnContext {
  participant: Participant;
  /** The incoming message; absent when a paused turn resumes. */
  message: Message | undefined;
  conversation: TurnConversation;
  /** Who waits on this turn, outermost first; ends with the sender. */
  frames: readonly DelegationFrame[];
  session: ToolSession;
  signal: AbortSignal;
  events: EventBus;
  /** The turn's OpenTelemetry span; its model and tool calls are spans under it. */
  trace?: TurnTrace | undefined;
}

/** The conversation as a runtime sees it: its history, and appending to it (both through the session's backend). */
export interface TurnConversation {
  readonly ref: ConversationRef;
  /** The model's context (since the last compaction point); read once, then kept in step with appends. */
  history(): Promise<readonly Message[]>;
  append(message: Omit<Message, 'id' | 'at'>, author: string): Promise<Message>;
  /** The last compaction point (its summary stands for what came before `history()`), loaded with the history. */
  compaction(): Promise<CompactionEntry | undefined>;
  /**
   * Appends a compaction entry (under the turn's lease) and drops what it summarized
   * from the loaded history: the next `history()` starts at its kept messages.
   */
  compact(entry: CompactionEntryInput): Promise<CompactionEntry>;
  /**
   * Checks against the store that the turn still holds the conversation's lease (a compare-and-set
   * renewal); if it was taken over, the turn's writing ends and `LeaseLostError` is thrown. For what
   * a turn writes outside its conversation's log (approval requests, questions), which carries no
   * lease of its own: a process paused past its lease learns it before asking anyone anything.
   */
  confirmLease(): Promise<void>;
}

export type RuntimeOutcome =
  | { status: 'success'; reply: string; message?: Message | undefined; truncated?: boolean | undefined }
  | { status: 'error'; code: LegionErrorCode; error: string }
  | PausedOnApprovals;

/** What a compaction did: the entry it appended, or why there was nothing to summarize. */
export type CompactOutcome = { status: 'compacted'; entry: CompactionEntry } | { status: 'nothing'; why: string };

/** Answers messages for one kind of participant: agents, mocks, or a UI's user. */
export interface ParticipantRuntime {
  handleMessage(turn: TurnContext): Promise<RuntimeOutcome>;
  /** Continues a turn that paused on approvals (agents only). */
  resume?(turn: TurnContext): Promise<RuntimeOutcome>;
  /** Summarizes the older part of the conversation's context now, under the lease `turn` holds (agents only). */
  compact?(turn: Omit<TurnContext, 'message'>, reason: CompactionReason): Promise<CompactOutcome>;
}

/** Finds the runtime that answers for a participant; Legion's `RuntimeRegistry` is the one in use. */
export interface RuntimeResolver {
  resolve(participant: Participant): ParticipantRuntime;
}

/** The narrow view of a session a tool may use (communicate sends through it). */
export interface ToolSession {
  readonly id: string;
  send(request: SendRequest): Promise<TurnResult>;
  /** Adds one model call to the session's usage ledger. */
  recordUsage(record: UsageRecord): Promise<void>;
  /** Tokens and cost of every model call of the session so far, whichever process made it. */
  usageTotals(): Promise<UsageTotals>;
  /** What the delegation tree of these frames (one message's work) has started so far, to bound it. */
  messageWork(frames: readonly DelegationFrame[]): MessageWork;
  /** The session's durable approval requests and decisions. */
  readonly approvals: SessionApprovals;
  /** The session's durable questions to users and their answers (any process may answer them). */
  readonly questions: SessionQuestions;
  /** Each agent's own documents in this session (todos, scratchbook). */
  readonly agentState: SessionAgentState;
  /** Large tool outputs kept whole for this session; `artifact_read` reads them back. */
  readonly artifacts: SessionArtifacts;
  /** The files running turns claimed: write tools claim before they write. Absent where no session keeps claims (a tool run alone). */
  readonly fileClaims?: SessionFileClaims | undefined;
  /** The editor this session is driven from, when it offers its files (`legion acp`): file tools of the main tree read and write through it. */
  readonly editorFiles?: EditorFiles | undefined;
  /** Records decisions (all or nothing) and resumes the turns they unblock. */
  answerApprovals(answers: readonly ApprovalAnswer[], decidedBy: string): Promise<AnswerOutcome>;
  /** Continues a conversation whose turn paused on approvals, with the frames that waited on it. */
  resumeConversation(conversationId: string, frames: readonly DelegationFrame[]): Promise<TurnResult>;
}

/** What answering approvals led to: the replies (or next pauses) of the turns it resumed. */
export type AnswerOutcome =
  | { status: 'error'; error: string }
  | {
      status: 'answered';
      resumed: TurnResult[];
      /**
       * Conversations whose turn still runs in a live process (this one or
       * another): their decisions were recorded and that turn goes on with
       * them; they were not resumed here.
       */
      continuing?: string[] | undefined;
      /** Conversations left paused with their decisions recorded (`resume: false`): `resumeDecided` continues them. */
      waiting?: string[] | undefined;
    };

/** What resuming decided approvals led to: the turns resumed here, and those that went on (or go on) elsewhere. */
export type ResumeOutcome =
  | { status: 'error'; error: string }
  | {
      status: 'resumed';
      resumed: TurnResult[];
      /** Conversations whose turn runs in a live process, or went on before this one held its lease: not resumed here. */
      continuing?: string[] | undefined;
    };

/**
 * What answering a question from any process led to. `resumed`: the asking
 * process had ended, so the answer was written as the user's reply and the
 * chain that waited on it resumed here; these are its turns' results. Without
 * `resumed` (and `waiting`), a process goes on with it: the asking one, or one
 * that resumed the chain first (`resumeAnswered`).
 */
export type QuestionAnswerOutcome =
  | {
      status: 'answered';
      resumed?: TurnResult[] | undefined;
      /** Recorded only (`resume: false`) while no process runs the chain: it stays paused until `resumeAnswered`. */
      waiting?: true | undefined;
    }
  | { status: 'error'; error: string };
