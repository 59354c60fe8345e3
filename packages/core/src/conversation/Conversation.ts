import { randomUUID } from 'node:crypto';
import type { Participant } from '../collective/participant.js';
import { ConversationBusyError, errorMessage, LegionError } from '../errors.js';
import type { ConversationRef } from '../events/event-types.js';
import type { EventBus } from '../events/EventBus.js';
import type { RuntimeOutcome, RuntimeResolver, ToolSession, TurnContext, TurnConversation, TurnResult } from '../session/turn.js';
import { waitingParticipants } from '../session/delegation-stack.js';
import { unansweredToolUses } from './unanswered-tool-uses.js';
import type { ApprovalView } from '../storage/approval-records.js';
import type { ConversationLog } from '../storage/conversation-log.js';
import type { DelegationFrame } from '../storage/delegation-frame.js';
import { CONVERSATION_FORMAT_VERSION } from '../storage/log-entry.js';
import type { Message, ToolUseBlock } from '../message.js';

export interface ConversationServices {
  events: EventBus;
  runtimes: RuntimeResolver;
  fsync: 'message' | 'turn' | 'never';
  /** The pending approvals that keep these unanswered calls waiting (none: they were interrupted). */
  pausedOn?: (conversationId: string, unanswered: readonly ToolUseBlock[]) => ApprovalView[];
  /** Ends what these calls, about to be marked interrupted, left running (their process groups). */
  endInterrupted?: (toolUseIds: readonly string[]) => void;
}

/** Tool calls are answered in the message right after them; this many recent messages always cover it. */
const RECENT_FOR_REPAIR = 20;

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
  private messages: Message[] | undefined;
  /** In-process queue: the turn that currently holds (or waits for) the lock. */
  private tail: Promise<void> = Promise.resolve();
  /** Turns of this process that hold or wait for the lock; counted before the first await, so a send in the same tick sees it. */
  private pending = 0;

  constructor(
    readonly ref: ConversationRef,
    private readonly log: ConversationLog,
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
  recent(limit: number): Message[] {
    if (this.messages) return this.messages.slice(-limit);
    return this.log.recent(limit);
  }

  /** The model's context; loaded on first use, then kept in step with appends. */
  history(): readonly Message[] {
    if (!this.messages) this.messages = this.log.context();
    return this.messages;
  }

  append(message: Omit<Message, 'id' | 'at'>, author: string): Message {
    return this.write({ id: randomUUID(), at: new Date().toISOString(), ...message }, author);
  }

  private write(full: Message, author: string): Message {
    this.log.appendMessage(full);
    this.messages?.push(full);
    if (this.services.events.hasListeners('message:sent')) {
      this.services.events.emit('message:sent', { ...this.ref, message: full, author });
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

  close(): void {
    this.log.close();
  }

  private async runTurn(options: Omit<ConversationSendOptions, 'text'>, incoming: { from: string; text: string } | undefined): Promise<TurnResult> {
    const release = await this.acquire(options);
    const started = performance.now();
    const events = this.services.events;
    const chain = waitingParticipants(options.frames);
    try {
      this.prepareTurn(incoming !== undefined);
      // Its id is known before it is appended, so that turn:start (first, for a UI) can name it.
      const arriving: Message | undefined = incoming && { id: randomUUID(), at: new Date().toISOString(), role: 'user', content: [{ type: 'text', text: incoming.text }] };
      events.emit('turn:start', { ...this.ref, participantId: options.to.id, chain, ...(arriving ? { messageId: arriving.id } : {}) });
      const message = arriving && incoming ? this.write(arriving, incoming.from) : undefined;
      let outcome: RuntimeOutcome;
      try {
        const runtime = this.services.runtimes.resolve(options.to);
        const turn: TurnContext = {
          participant: options.to,
          message,
          conversation: this,
          frames: options.frames,
          session: options.session,
          signal: options.signal ?? new AbortController().signal,
          events,
        };
        if (message) outcome = await runtime.handleMessage(turn);
        else if (runtime.resume) outcome = await runtime.resume(turn);
        else outcome = { status: 'error', code: 'not_resumable', error: `${options.to.id}'s runtime cannot resume a paused turn.` };
      } catch (error) {
        outcome = { status: 'error', code: error instanceof LegionError ? error.code : 'runtime_failed', error: errorMessage(error) };
      }
      const result = this.record(outcome, options.to.id);
      if (this.services.fsync === 'turn') this.log.sync();
      events.emit('turn:end', {
        ...this.ref,
        participantId: options.to.id,
        chain,
        status: result.status,
        reply: result.status === 'success' ? result.reply : undefined,
        error: result.status === 'error' ? result.error : undefined,
        durationMs: performance.now() - started,
      });
      return result;
    } finally {
      release();
    }
  }

  /** Writes how the turn ended: the reply, an error note, or a note that it waits on approvals. */
  private record(outcome: RuntimeOutcome, responder: string): TurnResult {
    const at = new Date().toISOString();
    if (outcome.status === 'success') {
      if (!outcome.message) this.append({ role: 'assistant', content: [{ type: 'text', text: outcome.reply }] }, responder);
      return { status: 'success', reply: outcome.reply, message: outcome.message, ...(outcome.truncated ? { truncated: true } : {}), conversationId: this.id };
    }
    if (outcome.status === 'paused') {
      const ids = outcome.requests.map((request) => request.id).join(', ');
      this.log.appendNote({ kind: 'note', level: 'info', code: 'approval_required', text: `paused until approvals are answered: ${ids}`, at });
      return { status: 'paused', requests: outcome.requests, conversationId: this.id };
    }
    this.log.appendNote({ kind: 'note', level: 'error', code: outcome.code, text: outcome.error, at });
    this.services.events.emit('error:raised', { scope: `turn of ${responder}`, message: outcome.error, code: outcome.code, participantId: responder, sessionId: this.ref.sessionId });
    return { status: 'error', code: outcome.code, error: outcome.error, conversationId: this.id };
  }

  /**
   * Brings this process's view up to date (another process may have appended).
   * Before a new message, a turn paused on approvals refuses it (answer them
   * first), and tool calls a crash left without results get `interrupted` ones.
   */
  private prepareTurn(newMessage: boolean): void {
    this.log.ensureHeader({
      kind: 'header',
      version: CONVERSATION_FORMAT_VERSION,
      conversationId: this.ref.conversationId,
      initiator: this.ref.initiator,
      responder: this.ref.responder,
      ...(this.ref.name ? { name: this.ref.name } : {}),
      createdAt: new Date().toISOString(),
    });
    const fresh = this.log.readNew();
    if (this.messages) this.messages.push(...fresh);
    if (!newMessage) return;
    const dangling = unansweredToolUses(this.recent(RECENT_FOR_REPAIR));
    if (dangling.length === 0) return;
    const waiting = this.services.pausedOn?.(this.id, dangling) ?? [];
    if (waiting.length > 0) {
      throw new LegionError(
        'conversation_paused',
        `${this.ref.initiator} → ${this.ref.responder} is paused until ${waiting.length === 1 ? 'an approval is' : 'approvals are'} answered: ` +
          `${waiting.map((request) => `${request.id} (${request.requester} wants ${request.tool}; ${request.approver} decides)`).join(', ')}. ` +
          'Answer with "legion approvals" or the approval_response tool first.',
        { conversationId: this.id, pending: waiting.map((request) => request.id) },
      );
    }
    // Nothing will wait on them any more: a command one of them started must not run on unseen.
    this.services.endInterrupted?.(dangling.map((toolUse) => toolUse.id));
    this.append(
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

  /** Waits for (or refuses) this conversation's in-process queue, then its cross-process lock. */
  private async acquire(options: { signal?: AbortSignal | undefined; ifBusy: 'wait' | 'fail' }): Promise<() => void> {
    if (options.ifBusy === 'fail' && this.pending > 0) throw new ConversationBusyError(this.id, 'a turn in this process');
    this.pending++;
    let releaseQueue!: () => void;
    const previous = this.tail;
    this.tail = new Promise<void>((resolve) => (releaseQueue = resolve));
    await previous;
    const purpose = `turn of ${this.ref.responder}`;
    try {
      let delay = 5;
      while (!this.log.tryLock(purpose)) {
        if (options.ifBusy === 'fail') throw new ConversationBusyError(this.id, this.log.lockHolder());
        options.signal?.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 200);
      }
    } catch (error) {
      this.pending--;
      releaseQueue();
      throw error;
    }
    return () => {
      this.log.unlock();
      this.pending--;
      releaseQueue();
    };
  }
}
