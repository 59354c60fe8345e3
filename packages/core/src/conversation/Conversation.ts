import { randomUUID } from 'node:crypto';
import type { Participant } from '../collective/participant.js';
import { ConversationBusyError, errorMessage, LegionError } from '../errors.js';
import type { ConversationRef } from '../events/event-types.js';
import type { EventBus } from '../events/EventBus.js';
import type { RuntimeRegistry } from '../runtime/RuntimeRegistry.js';
import type { TurnConversation, TurnResult } from '../runtime/turn.js';
import type { ToolSession } from '../tools/tool.js';
import type { ConversationLog } from './conversation-log.js';
import { CONVERSATION_FORMAT_VERSION } from './log-entry.js';
import { toolUsesOf, type Message } from './message.js';

export interface ConversationServices {
  events: EventBus;
  runtimes: RuntimeRegistry;
  fsync: 'message' | 'turn' | 'never';
}

export interface ConversationSendOptions {
  from: Participant;
  to: Participant;
  text: string;
  chain: readonly string[];
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
    const full: Message = { id: randomUUID(), at: new Date().toISOString(), ...message };
    this.log.appendMessage(full);
    this.messages?.push(full);
    if (this.services.events.hasListeners('message:sent')) {
      this.services.events.emit('message:sent', { ...this.ref, message: full, author });
    }
    return full;
  }

  async send(options: ConversationSendOptions): Promise<TurnResult> {
    const release = await this.acquire(options);
    const started = performance.now();
    const events = this.services.events;
    const chain = [...options.chain, options.from.id];
    try {
      this.prepareTurn();
      events.emit('turn:start', { ...this.ref, participantId: options.to.id, chain });
      const incoming = this.append({ role: 'user', content: [{ type: 'text', text: options.text }] }, options.from.id);
      let outcome;
      try {
        const runtime = this.services.runtimes.resolve(options.to);
        outcome = await runtime.handleMessage({
          participant: options.to,
          message: incoming,
          conversation: this,
          chain,
          session: options.session,
          signal: options.signal ?? new AbortController().signal,
          events,
        });
      } catch (error) {
        outcome = { status: 'error' as const, code: error instanceof LegionError ? error.code : 'runtime_failed', error: errorMessage(error) };
      }
      let result: TurnResult;
      if (outcome.status === 'success') {
        if (!outcome.message) this.append({ role: 'assistant', content: [{ type: 'text', text: outcome.reply }] }, options.to.id);
        result = { status: 'success', reply: outcome.reply, message: outcome.message, conversationId: this.id };
      } else {
        this.log.appendNote({ kind: 'note', level: 'error', code: outcome.code, text: outcome.error, at: new Date().toISOString() });
        events.emit('error:raised', { scope: `turn of ${options.to.id}`, message: outcome.error, code: outcome.code, participantId: options.to.id, sessionId: this.ref.sessionId });
        result = { status: 'error', code: outcome.code, error: outcome.error, conversationId: this.id };
      }
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

  close(): void {
    this.log.close();
  }

  /**
   * Brings this process's view up to date (another process may have appended)
   * and answers every `tool_use` left without a result by a crash.
   */
  private prepareTurn(): void {
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
    const last = this.recent(1)[0];
    if (last?.role !== 'assistant') return;
    const dangling = toolUsesOf(last);
    if (dangling.length === 0) return;
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
