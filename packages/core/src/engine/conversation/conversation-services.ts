import type { EventBus, ToolUseBlock, LegionTracer } from '../../kernel/index.js';
import type { RuntimeResolver, TurnClaimHooks } from '../../session/index.js';
import type { ApprovalView, QuestionView } from '../../store/index.js';

/** What a conversation's turns reach beyond its log: runtimes, events, the lease's length, the session's approvals and questions. */
export interface ConversationServices {
  events: EventBus;
  runtimes: RuntimeResolver;
  /**
   * How long the conversation's lease lasts without a renewal (default 30 s). A
   * turn renews it every third of this while it runs, so a live holder is
   * never taken over; a crashed one's lease is taken over once it expires.
   */
  leaseTtlMs?: number | undefined;
  /** The pending approvals that keep these unanswered calls waiting (none: they were interrupted). */
  pausedOn?: (
    conversationId: string,
    unanswered: readonly ToolUseBlock[],
  ) => Promise<{ requests: ApprovalView[]; questions: QuestionView[] }>;
  /** A turn here ended without answering: settles what its delegation tree still waits on (approvals, questions). */
  endedTree?: (conversationId: string, ending: { status: 'failed' | 'cancelled'; code: string }) => Promise<void>;
  /** Ends what these calls, about to be marked interrupted, left running (their process groups). */
  endInterrupted?: (toolUseIds: readonly string[]) => void;
  /** Told when a turn starts and ends, so the files it claimed are given back at every ending. */
  turnClaims?: TurnClaimHooks | undefined;
  /** OpenTelemetry spans of turns (a no-op until the application registers an SDK). */
  tracer?: LegionTracer | undefined;
}
