import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Participant } from '../collective/participant.js';
import { ConversationBusyError, errorMessage, LegionError } from '../errors.js';
import type { ConversationRef } from '../events/event-types.js';
import type { EventBus } from '../events/EventBus.js';
import type {
  CompactOutcome,
  RuntimeOutcome,
  RuntimeResolver,
  ToolSession,
  TurnContext,
  TurnConversation,
  TurnResult,
} from '../session/turn.js';
import { waitingParticipants } from '../session/delegation-stack.js';
import { giveBackController, takeController } from '../session/spare-controllers.js';
import { unansweredToolUses } from './unanswered-tool-uses.js';
import { endingText, turnEnding, turnOutcome } from './turn-ending.js';
import type { QuestionView } from '../storage/question-records.js';
import type { ApprovalView } from '../storage/approval-records.js';
import type { AppendableEntry, ConversationLogs, Lease, LogCursor } from '../storage/backend/session-backend.js';
import { LeaseLostError } from '../storage/backend/lease-lost-error.js';
import type { DelegationFrame } from '../storage/delegation-frame.js';
import {
  CompactionEntrySchema,
  CONVERSATION_FORMAT_VERSION,
  type CompactionEntry,
  type CompactionEntryInput,
  type CompactionReason,
} from '../storage/log-entry.js';
import type { Message, ToolUseBlock } from '../message.js';
import type { LegionTracer } from '../tracing/LegionTracer.js';

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
  /** OpenTelemetry spans of turns (a no-op until the application registers an SDK). */
  tracer?: LegionTracer | undefined;
}

/** Tool calls are answered in the message right after them; this many recent messages always cover it. */
const RECENT_FOR_REPAIR = 20;

export const DEFAULT_LEASE_TTL_MS = 30_000;
/** Read once: it names this process in every lease it takes. */
const HOST = hostname();

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
  /** The model's context once loaded, kept in step with appends; `cursor` is just past what it holds. */
  private messages: Message[] | undefined;
  private cursor: LogCursor | undefined;
  /** The compaction point the loaded history starts after. */
  private point: CompactionEntry | undefined;
  /** In-process queue: the turn that currently holds (or waits for) the lease. */
  private tail: Promise<void> = Promise.resolve();
  /** Turns of this process that hold or wait for the lease; counted before the first await, so a send in the same tick sees it. */
  private pending = 0;
  /** A turn of this process holds the lease and has caught up with the log: the loaded history is the log. */
  private current = false;
  /** Set while a turn runs whose lease was taken over: nothing more of that turn may be written. */
  private lost: LeaseLostError | undefined;
  /** The turn of this process that holds the lease now: every append names its lease (the backend's fencing token). */
  private held: HeldTurn | undefined;
  /** The messages the running turn appended, oldest first: a failed turn's ending names those the provider refused. */
  private turnMessages: Message[] = [];

  constructor(
    readonly ref: ConversationRef,
    private readonly logs: ConversationLogs,
    private readonly services: ConversationServices,
  ) {}

  get id(): string {
    return this.ref.conversationId;
  }

  /** No turn of this process holds or waits for it: it may be closed and reopened later from its log. */
  get idle(): boolean {
    return this.pending === 0;
  }

  /** The newest messages, oldest first, read from the end of the log. */
  async recent(limit: number): Promise<Message[]> {
    // Outside this process's turn, another process may have appended: the log says.
    if (this.messages && this.current) return this.messages.slice(-limit);
    return this.logs.recent(this.ref, limit);
  }

  /** The model's context; loaded on first use, then kept in step with appends (and, outside a turn, with the log). */
  async history(): Promise<readonly Message[]> {
    if (this.messages && !this.current) await this.catchUp();
    if (!this.messages) {
      const context = await this.logs.context(this.ref);
      // Another call may have loaded it meanwhile: the first load stands.
      if (!this.messages) {
        this.messages = context.messages;
        this.cursor = context.cursor;
        this.point = context.compaction;
      }
    }
    return this.messages;
  }

  async compaction(): Promise<CompactionEntry | undefined> {
    await this.history();
    return this.point;
  }

  async compact(input: CompactionEntryInput): Promise<CompactionEntry> {
    if (this.lost) throw this.lost;
    const history = await this.history();
    const entry = CompactionEntrySchema.parse(input);
    if (entry.keptMessages > history.length) {
      throw new LegionError(
        'compaction_invalid',
        `A compaction of ${this.id} keeps ${entry.keptMessages} messages; the context holds only ${history.length}.`,
        { conversationId: this.id },
      );
    }
    const cursor = await this.appendHeld(entry);
    if (this.messages) {
      this.messages = this.messages.slice(this.messages.length - entry.keptMessages);
      this.cursor = cursor;
    }
    this.point = entry;
    return entry;
  }

  async confirmLease(): Promise<void> {
    const held = this.held;
    if (!held)
      throw new LegionError('lease_not_held', `No turn of this process holds the lease of ${this.id}.`, { conversationId: this.id });
    if (held.lost) throw held.lost;
    try {
      await held.lease.renew();
    } catch (error) {
      const lost = error instanceof LeaseLostError ? error : new LeaseLostError(`conversation ${this.id}`, held.lease.owner);
      held.lose(lost);
      throw lost;
    }
  }

  async append(message: Omit<Message, 'id' | 'at'>, author: string): Promise<Message> {
    return this.write({ id: randomUUID(), at: new Date().toISOString(), ...message }, author);
  }

  private async write(full: Message, author: string): Promise<Message> {
    if (this.lost) throw this.lost;
    let cursor: LogCursor;
    try {
      cursor = await this.appendHeld({ kind: 'message', ...full });
    } catch (error) {
      // What the log holds is unknown now (a database that restarted may have lost the entries before
      // this one): the next turn loads the history from the log instead of trusting what is loaded.
      this.messages = undefined;
      this.cursor = undefined;
      throw error;
    }
    if (this.messages) {
      this.messages.push(full);
      this.cursor = cursor;
    }
    this.turnMessages.push(full);
    // Object.assign, not `{ ...base, more }`: V8 keeps objects built by a spread plus further properties through
    // young-generation GCs, so per-turn garbage would pile up in the old generation (bench/memory-runs.mjs).
    if (this.services.events.hasListeners('message:sent')) {
      this.services.events.emit('message:sent', Object.assign({}, this.ref, { message: full, author }));
    }
    return full;
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
      held = await this.acquire({ signal: options.signal, ifBusy: 'fail' });
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
      await this.catchUp();
      this.current = true;
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
    if (this.pending > 0) return;
    this.messages = undefined;
    this.cursor = undefined;
    this.point = undefined;
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
    const held = await this.acquire(options);
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
    this.turnMessages = [];
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
        result = held.lost ? leaseLostResult(held.lost, this.id) : await this.record(outcome, options.to.id);
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

  /**
   * Writes how the turn ended: the reply, a note that it waits on approvals, or,
   * when it failed or was cancelled, its ending in the responder's place (so the
   * next request shows the model that the message was not answered, and the next
   * message is never merged with it).
   */
  private async record(outcome: RuntimeOutcome, responder: string): Promise<TurnResult> {
    const at = new Date().toISOString();
    if (outcome.status === 'success') {
      if (!outcome.message) await this.append({ role: 'assistant', content: [{ type: 'text', text: outcome.reply }] }, responder);
      return {
        status: 'success',
        reply: outcome.reply,
        message: outcome.message,
        ...(outcome.truncated ? { truncated: true } : {}),
        conversationId: this.id,
      };
    }
    if (outcome.status === 'paused') {
      const questions = outcome.questions ?? [];
      const ids = [...outcome.requests.map((request) => request.id), ...questions.map((question) => question.id)].join(', ');
      const text = questions.length === 0 ? `paused until approvals are answered: ${ids}` : `paused until answered: ${ids}`;
      await this.appendHeld({
        kind: 'note',
        level: 'info',
        code: questions.length === 0 ? 'approval_required' : 'answer_required',
        text,
        at,
      });
      return { status: 'paused', requests: outcome.requests, ...(questions.length > 0 ? { questions } : {}), conversationId: this.id };
    }
    if (!(await this.writeEnding(outcome, responder)))
      await this.appendHeld({ kind: 'note', level: 'error', code: outcome.code, text: outcome.error, at });
    this.services.events.emit('error:raised', {
      scope: `turn of ${responder}`,
      message: outcome.error,
      code: outcome.code,
      participantId: responder,
      sessionId: this.ref.sessionId,
    });
    return { status: 'error', code: outcome.code, error: outcome.error, conversationId: this.id };
  }

  /**
   * Ends a failed or cancelled turn in the log: calls it left without results get
   * one (nothing waits on them any more), then its ending closes the turn as an
   * assistant message. Only when the turn's last message is the initiator's
   * (the message or tool results nobody answered): false when there is nothing
   * to close (a turn that failed before its message was written).
   */
  private async writeEnding(outcome: { code: string; error: string }, responder: string): Promise<boolean> {
    const recent = await this.recent(RECENT_FOR_REPAIR);
    const dangling = unansweredToolUses(recent);
    if (dangling.length > 0) {
      this.services.endInterrupted?.(dangling.map((toolUse) => toolUse.id));
      const why = outcome.code === 'cancelled' ? 'the turn was cancelled' : `the turn failed (${outcome.code})`;
      await this.append(
        {
          role: 'user',
          content: dangling.map((toolUse) => ({
            type: 'tool_result' as const,
            toolUseId: toolUse.id,
            content: `not run to the end: ${why} before ${toolUse.name} returned. Check its effects before repeating it.`,
            isError: true,
          })),
        },
        this.ref.responder,
      );
    } else if (recent.at(-1)?.role !== 'user') {
      return false;
    }
    // What was new in the refused request: the turn's messages after its last model response.
    const lastResponse = this.turnMessages.findLastIndex((message) => message.role === 'assistant');
    const sinceResponse = this.turnMessages.slice(lastResponse + 1).filter((message) => message.role === 'user');
    const ending = turnEnding(outcome.code, outcome.error, sinceResponse);
    // Before the ending is written: a decision racing it must find the requests settled, not resume a tree that ended.
    await this.services.endedTree?.(this.id, ending);
    await this.append({ role: 'assistant', content: [{ type: 'text', text: endingText(ending) }], ending }, responder);
    return true;
  }

  /**
   * Brings this process's view up to date (another process may have appended).
   * Before a new message, a turn paused on approvals refuses it (answer them
   * first), and tool calls a crash left without results get `interrupted` ones.
   */
  private async prepareTurn(newMessage: boolean): Promise<void> {
    await this.logs.ensureHeader(this.ref, {
      kind: 'header',
      version: CONVERSATION_FORMAT_VERSION,
      conversationId: this.ref.conversationId,
      initiator: this.ref.initiator,
      responder: this.ref.responder,
      ...(this.ref.name ? { name: this.ref.name } : {}),
      createdAt: new Date().toISOString(),
    });
    await this.catchUp();
    this.current = true;
    if (!newMessage) return;
    const dangling = unansweredToolUses(await this.recent(RECENT_FOR_REPAIR));
    if (dangling.length === 0) return;
    const waiting = (await this.services.pausedOn?.(this.id, dangling)) ?? { requests: [], questions: [] };
    if (waiting.requests.length > 0) {
      throw new LegionError(
        'conversation_paused',
        `${this.ref.initiator} → ${this.ref.responder} is paused until ${waiting.requests.length === 1 ? 'an approval is' : 'approvals are'} answered: ` +
          `${waiting.requests.map((request) => `${request.id} (${request.requester} wants ${request.tool}; ${request.approver} decides)`).join(', ')}. ` +
          'Answer with "legion approvals" or the approval_response tool first.',
        { conversationId: this.id, pending: waiting.requests.map((request) => request.id) },
      );
    }
    if (waiting.questions.length > 0) {
      throw new LegionError(
        'conversation_paused',
        `${this.ref.initiator} → ${this.ref.responder} is paused until ${waiting.questions.length === 1 ? 'a question is' : 'questions are'} answered: ` +
          `${waiting.questions.map((question) => `${question.id} (${question.from} asks ${question.user}: "${question.text.length > 80 ? `${question.text.slice(0, 79)}…` : question.text}")`).join(', ')}. ` +
          `Answer with legion answer ${waiting.questions[0]!.id} "…" first (legion questions lists them).`,
        { conversationId: this.id, pending: waiting.questions.map((question) => question.id) },
      );
    }
    // Nothing will wait on them any more: a command one of them started must not run on unseen.
    this.services.endInterrupted?.(dangling.map((toolUse) => toolUse.id));
    await this.append(
      {
        role: 'user',
        content: dangling.map((toolUse) => ({
          type: 'tool_result' as const,
          toolUseId: toolUse.id,
          content: `interrupted: Legion stopped while ${toolUse.name} was running, so its outcome is unknown. Check its effects before repeating it.`,
          isError: true,
        })),
      },
      this.ref.responder,
    );
  }

  /**
   * Appends under the lease of the turn that runs: the backend writes only while that lease still
   * holds the conversation, checked with the write. A refusal ends the turn as a lost lease does.
   */
  private async appendHeld(entry: AppendableEntry): Promise<LogCursor> {
    const held = this.held;
    if (!held)
      throw new LegionError('lease_not_held', `Nothing may be appended to ${this.id} outside a turn that holds its lease.`, {
        conversationId: this.id,
      });
    if (held.lost) throw held.lost;
    try {
      return await this.logs.append(this.ref, entry, held.lease);
    } catch (error) {
      if (error instanceof LeaseLostError) held.lose(error);
      throw error;
    }
  }

  /** Adds what other processes appended since the loaded history was last brought up to date. */
  private async catchUp(): Promise<void> {
    const cursor = this.cursor;
    if (!this.messages || !cursor) return;
    const fresh = await this.logs.readSince(this.ref, cursor);
    // Only if nothing moved the history on meanwhile (an append, another catch-up, a close).
    if (this.cursor !== cursor || !this.messages) return;
    if (fresh.compacted) {
      // Another process compacted it (`legion compact`): the context starts at its new point.
      const context = await this.logs.context(this.ref);
      this.messages = context.messages;
      this.cursor = context.cursor;
      this.point = context.compaction;
      return;
    }
    this.messages.push(...fresh.messages);
    this.cursor = fresh.cursor;
  }

  /**
   * Waits for (or refuses) this conversation's in-process queue, then takes its
   * lease from the backend (which keeps other processes out) and keeps renewing
   * it while the turn runs. A renewal that finds the lease taken over aborts
   * the turn: it must not write on beside the new holder.
   */
  private async acquire(options: { signal?: AbortSignal | undefined; ifBusy: 'wait' | 'fail' }): Promise<HeldTurn> {
    if (options.ifBusy === 'fail' && this.pending > 0) throw new ConversationBusyError(this.id, 'a turn in this process');
    this.pending++;
    let releaseQueue!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((resolve) => (releaseQueue = resolve));
    try {
      await queuedBehind(previous, options.signal);
    } catch (error) {
      // Cancelled while waiting for the turn before it: it leaves the queue without writing anything; the next in line still waits for that turn.
      this.pending--;
      void previous.then(releaseQueue);
      throw error;
    }
    const ttlMs = this.services.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    const owner = `pid ${process.pid} on ${HOST}: turn of ${this.ref.responder}`;
    let lease: Lease;
    try {
      let delay = 5;
      for (;;) {
        const attempt = await this.logs.acquire(this.ref, owner, { ttlMs });
        if (attempt.acquired) {
          lease = attempt.lease;
          break;
        }
        if (options.ifBusy === 'fail') throw new ConversationBusyError(this.id, attempt.holder?.owner ?? 'another process');
        options.signal?.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 200);
      }
    } catch (error) {
      this.pending--;
      releaseQueue();
      throw error;
    }
    // The turn's signal: the caller's, and aborted too when the lease is lost (a listener, cheaper than AbortSignal.any per turn).
    const turnController = takeController();
    const callerSignal = options.signal;
    const forward = (): void => turnController.abort(callerSignal?.reason);
    if (callerSignal?.aborted) forward();
    else callerSignal?.addEventListener('abort', forward, { once: true });
    const held: HeldTurn = {
      lost: undefined,
      lease,
      signal: turnController.signal,
      // Once: by a renewal or an append that found the lease taken over, whichever came first.
      lose: (error) => {
        if (held.lost) return;
        clearInterval(renewal);
        held.lost = error;
        if (this.held === held) this.lost = error;
        this.services.events.emit('error:raised', {
          scope: `turn of ${this.ref.responder}`,
          message: error.message,
          code: 'lease_lost',
          participantId: this.ref.responder,
          sessionId: this.ref.sessionId,
        });
        turnController.abort(error);
      },
      release: async () => {
        clearInterval(renewal);
        callerSignal?.removeEventListener('abort', forward);
        this.current = false;
        this.lost = undefined;
        if (this.held === held) this.held = undefined;
        // A renewal still in flight may yet abort it: then it is not handed on.
        if (!renewing) giveBackController(turnController);
        try {
          await lease.release();
        } finally {
          this.pending--;
          releaseQueue();
        }
      },
    };
    let renewing = false;
    const renewal = setInterval(
      () => {
        if (renewing) return;
        renewing = true;
        lease.renew().then(
          () => (renewing = false),
          (error: unknown) => held.lose(error instanceof LeaseLostError ? error : new LeaseLostError(`conversation ${this.id}`, owner)),
        );
      },
      Math.max(1, Math.floor(ttlMs / 3)),
    );
    // A turn alone never keeps the process alive; what it awaits does.
    renewal.unref();
    this.held = held;
    return held;
  }
}

interface HeldTurn {
  /** Set when a renewal, or an append, found the lease taken over. */
  lost: LeaseLostError | undefined;
  /** The lease the turn holds; every append carries it. */
  lease: Lease;
  /** Ends the turn's writing: records the loss, stops renewing, aborts the turn's signal. */
  lose(error: LeaseLostError): void;
  /** The caller's signal, aborted also when the lease is lost. */
  signal: AbortSignal;
  release(): Promise<void>;
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

/**
 * Waits for the turn queued before this one; a caller that cancels while it
 * waits (one MCP client among several in a conversation) stops waiting at
 * once rather than when that turn ends. Already cancelled on arrival: waits as
 * before, the turn then ends as cancelled.
 */
function queuedBehind(previous: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal || signal.aborted) return previous;
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void =>
      reject(
        signal.reason instanceof Error
          ? signal.reason
          : new Error(`cancelled while waiting for the turn before it: ${String(signal.reason)}`),
      );
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
