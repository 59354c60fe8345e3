import { randomUUID } from 'node:crypto';
import type { Participant } from '../../team/index.js';
import { ConversationBusyError, errorMessage, LegionError } from '../../kernel/index.js';
import type { ConversationRef, Message } from '../../kernel/index.js';
import type { CompactOutcome, RuntimeOutcome, ToolSession, TurnContext, TurnConversation, TurnResult } from '../../session/index.js';
import { waitingParticipants } from '../../session/index.js';
import { unansweredToolUses } from './unanswered-tool-uses.js';
import { turnOutcome } from './turn-ending.js';
import type { ConversationLogs, LogCursor, DelegationFrame } from '../../store/index.js';
import {
  LeaseLostError,
  CompactionEntrySchema,
  type CompactionEntry,
  type CompactionEntryInput,
  type CompactionReason,
} from '../../store/index.js';
import { ConversationHistory } from './conversation-history.js';
import { ConversationLease, type HeldTurn } from './conversation-lease.js';
import { prepareTurn, RECENT_FOR_REPAIR } from './turn-preparation.js';
import { TurnRecorder } from './turn-recorder.js';
import type { ConversationServices } from './conversation-services.js';

export { DEFAULT_LEASE_TTL_MS } from './conversation-lease.js';
export type { ConversationServices } from './conversation-services.js';

export interface ConversationSendOptions {
  from: Participant;
  to: Participant;
  text: string;
  /** Who waits on this turn, outermost first, ending with the sender. */
  frames: readonly DelegationFrame[];
  session: ToolSession;
  signal?: AbortSignal | undefined;
  ifBusy: 'wait' | 'fail';
}

/**
 * A directional conversation: the initiator's messages are `user`, the
 * responder's `assistant`. It answers one message at a time: the turn holds a
 * lock that also keeps other processes out, and the history is loaded only
 * when a turn needs it.
 */
export class Conversation implements TurnConversation {
  /** The model's context as this process holds it. */
  private readonly loaded: ConversationHistory;
  /** This process's queue for the conversation and the backend lease its running turn holds. */
  private readonly lease: ConversationLease;
  /** Writes how each turn ended. */
  private readonly recorder: TurnRecorder;

  constructor(
    readonly ref: ConversationRef,
    private readonly logs: ConversationLogs,
    private readonly services: ConversationServices,
  ) {
    const loaded = new ConversationHistory(ref, logs);
    this.loaded = loaded;
    this.lease = new ConversationLease(ref, logs, {
      events: services.events,
      ttlMs: services.leaseTtlMs,
      onRelease: () => loaded.leaveTurn(),
    });
    this.recorder = new TurnRecorder(ref, this.turnLog(), services);
  }

  get id(): string {
    return this.ref.conversationId;
  }

  /** No turn of this process holds or waits for it: it may be closed and reopened later from its log. */
  get idle(): boolean {
    return this.lease.idle;
  }

  /** The newest messages, oldest first, read from the end of the log. */
  recent(limit: number): Promise<Message[]> {
    return this.loaded.recent(limit);
  }

  /** The model's context; loaded on first use, then kept in step with appends (and, outside a turn, with the log). */
  history(): Promise<readonly Message[]> {
    return this.loaded.load();
  }

  compaction(): Promise<CompactionEntry | undefined> {
    return this.loaded.compaction();
  }

  async compact(input: CompactionEntryInput): Promise<CompactionEntry> {
    const lost = this.lease.lost;
    if (lost) throw lost;
    const history = await this.history();
    const entry = CompactionEntrySchema.parse(input);
    if (entry.keptMessages > history.length) {
      throw new LegionError(
        'compaction_invalid',
        `A compaction of ${this.id} keeps ${entry.keptMessages} messages; the context holds only ${history.length}.`,
        { conversationId: this.id },
      );
    }
    const cursor = await this.lease.append(entry);
    this.loaded.compacted(entry, cursor);
    return entry;
  }

  confirmLease(): Promise<void> {
    return this.lease.confirm();
  }

  async append(message: Omit<Message, 'id' | 'at'>, author: string): Promise<Message> {
    return this.write({ id: randomUUID(), at: new Date().toISOString(), ...message }, author);
  }

  private async write(full: Message, author: string): Promise<Message> {
    const lost = this.lease.lost;
    if (lost) throw lost;
    let cursor: LogCursor;
    try {
      cursor = await this.lease.append({ kind: 'message', ...full });
    } catch (error) {
      this.loaded.distrust();
      throw error;
    }
    this.loaded.appended(full, cursor);
    this.recorder.wrote(full);
    // Object.assign, not `{ ...base, more }`: V8 keeps objects built by a spread plus further properties through
    // young-generation GCs, so per-turn garbage would pile up in the old generation (bench/memory-runs.mjs).
    if (this.services.events.hasListeners('message:sent')) {
      this.services.events.emit('message:sent', Object.assign({}, this.ref, { message: full, author }));
    }
    return full;
  }

  /** How the turn recorder writes: through this conversation, under the running turn's lease. */
  private turnLog(): ConstructorParameters<typeof TurnRecorder>[1] {
    return {
      append: (message, author) => this.append(message, author),
      appendEntry: (entry) => this.lease.append(entry),
      recent: (limit) => this.loaded.recent(limit),
    };
  }

  /** Appends a message from the initiator and runs the responder's turn on it. */
  async send(options: ConversationSendOptions): Promise<TurnResult> {
    return this.runTurn(options, { from: options.from.id, text: options.text });
  }

  /** Continues the responder's turn that paused on approvals, from the log. */
  async resume(options: Omit<ConversationSendOptions, 'text'>): Promise<TurnResult> {
    return this.runTurn(options, undefined);
  }

  /**
   * Continues the paused turn only if, once this process holds the lease, a
   * tool call of it still waits: the turn may have gone on meanwhile in the
   * process that ran it (or another resumer), and a second continuation would
   * run the model again. Undefined when nothing waited; nothing is written then.
   */
  async resumeIfWaiting(options: Omit<ConversationSendOptions, 'text'>): Promise<TurnResult | undefined> {
    return this.runTurn(options, undefined, true);
  }

  /**
   * Summarizes the older part of the responder's context now, holding the
   * conversation's lease as a turn does: refused while a turn runs in it.
   */
  async compactNow(options: {
    responder: Participant;
    session: ToolSession;
    reason: CompactionReason;
    signal?: AbortSignal | undefined;
  }): Promise<CompactOutcome> {
    let held: HeldTurn;
    try {
      held = await this.lease.acquire({ signal: options.signal, ifBusy: 'fail' });
    } catch (error) {
      if (!(error instanceof ConversationBusyError)) throw error;
      throw new LegionError(
        'conversation_busy',
        `Cannot compact ${this.id} while a turn runs in it (${String(error.details['holder'])}). Wait for the turn to end (or stop it), then compact again.`,
        { conversationId: this.id },
      );
    }
    try {
      if (!(await this.logs.header(this.ref))) return { status: 'nothing', why: `${this.id} has no messages yet` };
      await this.loaded.enterTurn();
      const runtime = this.services.runtimes.resolve(options.responder);
      if (!runtime.compact)
        throw new LegionError('not_compactable', `${options.responder.id} is not an agent: only an agent's context is compacted.`, {
          participantId: options.responder.id,
        });
      const turn = {
        participant: options.responder,
        conversation: this,
        frames: [],
        session: options.session,
        signal: held.signal,
        events: this.services.events,
      };
      return await runtime.compact(turn, options.reason);
    } finally {
      await held.release();
    }
  }

  /** Forgets the loaded history (it is read again from the log when next needed). */
  close(): void {
    if (!this.lease.idle) return;
    this.loaded.forget();
  }

  private async runTurn(
    options: Omit<ConversationSendOptions, 'text'>,
    incoming: { from: string; text: string } | undefined,
  ): Promise<TurnResult>;
  private async runTurn(
    options: Omit<ConversationSendOptions, 'text'>,
    incoming: undefined,
    onlyIfWaiting: true,
  ): Promise<TurnResult | undefined>;
  private async runTurn(
    options: Omit<ConversationSendOptions, 'text'>,
    incoming: { from: string; text: string } | undefined,
    onlyIfWaiting = false,
  ): Promise<TurnResult | undefined> {
    const held = await this.lease.acquire(options);
    if (onlyIfWaiting && !(await this.stillWaiting(held))) return undefined;
    const started = performance.now();
    const events = this.services.events;
    const chain = waitingParticipants(options.frames);
    const trace = this.services.tracer?.startTurn({
      participantId: options.to.id,
      participantType: options.to.type,
      participantName: options.to.name,
      sessionId: this.ref.sessionId,
      conversationId: this.id,
      parent: options.frames.at(-1)?.trace,
      resumed: incoming === undefined,
      input: incoming?.text,
    });
    const frames = framesWithTrace(options.frames, trace?.traceparent());
    this.recorder.startTurn();
    this.services.turnClaims?.enterTurn(this.ref, options.to.id, incoming?.text);
    try {
      await this.prepareTurn(incoming !== undefined);
      // Its id is known before it is appended, so that turn:start (first, for a UI) can name it.
      const arriving: Message | undefined = incoming && {
        id: randomUUID(),
        at: new Date().toISOString(),
        role: 'user',
        content: [{ type: 'text', text: incoming.text }],
      };
      events.emit(
        'turn:start',
        Object.assign({}, this.ref, { participantId: options.to.id, chain }, arriving ? { messageId: arriving.id } : {}),
      );
      const message = arriving && incoming ? await this.write(arriving, incoming.from) : undefined;
      let outcome: RuntimeOutcome;
      try {
        const runtime = this.services.runtimes.resolve(options.to);
        const turn: TurnContext = {
          participant: options.to,
          message,
          conversation: this,
          frames,
          session: options.session,
          signal: held.signal,
          events,
          trace,
        };
        if (message) outcome = await (trace ? trace.run(() => runtime.handleMessage(turn)) : runtime.handleMessage(turn));
        else if (runtime.resume) outcome = await (trace ? trace.run(() => runtime.resume!(turn)) : runtime.resume(turn));
        else outcome = { status: 'error', code: 'not_resumable', error: `${options.to.id}'s runtime cannot resume a paused turn.` };
      } catch (error) {
        outcome = { status: 'error', code: error instanceof LegionError ? error.code : 'runtime_failed', error: errorMessage(error) };
      }
      // Whatever a runtime made of it (a surface that threw its stop reason, a tool's abort error), a turn
      // that failed once its signal was aborted was cancelled: the log, the model and every surface say so.
      if (outcome.status === 'error' && held.signal.aborted && !held.lost && outcome.code !== 'cancelled') {
        outcome = { status: 'error', code: 'cancelled', error: outcome.error };
      }
      // A turn whose lease was taken over writes nothing more: the new holder's turn owns the log now.
      let result: TurnResult;
      try {
        result = held.lost ? leaseLostResult(held.lost, this.id) : await this.recorder.record(outcome, options.to.id);
      } catch (error) {
        // The lease was lost while its ending was written (the backend refused that append): the ending is that.
        if (!(error instanceof LeaseLostError)) throw error;
        result = leaseLostResult(error, this.id);
      }
      await this.logs.flush(this.ref);
      trace?.end(result);
      events.emit(
        'turn:end',
        Object.assign({}, this.ref, {
          participantId: options.to.id,
          chain,
          outcome: turnOutcome(result),
          status: result.status,
          reply: result.status === 'success' ? result.reply : undefined,
          code: result.status === 'error' ? result.code : undefined,
          error: result.status === 'error' ? result.error : undefined,
          durationMs: performance.now() - started,
        }),
      );
      return result;
    } catch (error) {
      trace?.end({ status: 'error', code: error instanceof LegionError ? error.code : 'turn_failed', error: errorMessage(error) });
      throw error;
    } finally {
      // Before the lease: the next turn here (or anywhere) starts with this one's files free.
      await this.services.turnClaims?.leaveTurn(this.ref);
      await held.release();
    }
  }

  /** Under the lease: whether a tool call of the last response still has no result. Gives the lease back when none has. */
  private async stillWaiting(held: HeldTurn): Promise<boolean> {
    let waiting = false;
    try {
      await this.prepareTurn(false);
      waiting = unansweredToolUses(await this.recent(RECENT_FOR_REPAIR)).length > 0;
      return waiting;
    } finally {
      if (!waiting) await held.release();
    }
  }

  /** Brings this process's view up to date under the lease; refuses a new message to a paused turn, repairs what a crash left. */
  private prepareTurn(newMessage: boolean): Promise<void> {
    return prepareTurn(
      {
        ref: this.ref,
        logs: this.logs,
        history: this.loaded,
        services: this.services,
        append: (message, author) => this.append(message, author),
      },
      newMessage,
    );
  }
}

function leaseLostResult(error: LeaseLostError, conversationId: string): TurnResult {
  return { status: 'error', code: error.code, error: error.message, conversationId };
}

/**
 * The frame that starts a chain has no span to wait in: it gets the turn's own,
 * so a resume of this turn (recorded with its approvals) joins the same trace.
 */
function framesWithTrace(frames: readonly DelegationFrame[], traceparent: string | undefined): readonly DelegationFrame[] {
  const last = frames.at(-1);
  if (traceparent === undefined || !last || last.trace !== undefined) return frames;
  return [...frames.slice(0, -1), Object.assign({}, last, { trace: traceparent })];
}
