import { hostname } from 'node:os';
import { ConversationBusyError, LegionError } from '../../kernel/index.js';
import type { ConversationRef, EventBus } from '../../kernel/index.js';
import { giveBackController, takeController } from '../../session/index.js';
import type { AppendableEntry, ConversationLogs, Lease, LogCursor } from '../../store/index.js';
import { LeaseLostError } from '../../store/index.js';

export const DEFAULT_LEASE_TTL_MS = 30_000;
/** Read once: it names this process in every lease it takes. */
const HOST = hostname();

/** A turn of this process that holds the conversation's lease. */
export interface HeldTurn {
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

/**
 * Who may write to one conversation: this process's turns queue for it one at a time, and the
 * turn at the head takes the backend's lease (which keeps other processes out), renews it while
 * it runs, and writes every entry under it (the backend's fencing token).
 */
export class ConversationLease {
  /** In-process queue: the turn that currently holds (or waits for) the lease. */
  private tail: Promise<void> = Promise.resolve();
  /** Turns of this process that hold or wait for the lease; counted before the first await, so a send in the same tick sees it. */
  private pending = 0;
  /** The turn of this process that holds the lease now. */
  private held: HeldTurn | undefined;

  constructor(
    private readonly ref: ConversationRef,
    private readonly logs: ConversationLogs,
    private readonly options: {
      events: EventBus;
      /** How long the lease lasts without a renewal (default 30 s); a turn renews it every third of this. */
      ttlMs?: number | undefined;
      /** The turn gave the lease back (called before the next in line may take it). */
      onRelease: () => void;
    },
  ) {}

  /** No turn of this process holds or waits for it. */
  get idle(): boolean {
    return this.pending === 0;
  }

  /** Set while a turn runs whose lease was taken over: nothing more of that turn may be written. */
  get lost(): LeaseLostError | undefined {
    return this.held?.lost;
  }

  /** Checks against the store that the running turn still holds the lease (renewing it). */
  async confirm(): Promise<void> {
    const held = this.held;
    if (!held)
      throw new LegionError('lease_not_held', `No turn of this process holds the lease of ${this.ref.conversationId}.`, {
        conversationId: this.ref.conversationId,
      });
    if (held.lost) throw held.lost;
    try {
      await held.lease.renew();
    } catch (error) {
      const lost =
        error instanceof LeaseLostError ? error : new LeaseLostError(`conversation ${this.ref.conversationId}`, held.lease.owner);
      held.lose(lost);
      throw lost;
    }
  }

  /**
   * Appends under the lease of the turn that runs: the backend writes only while that lease still
   * holds the conversation, checked with the write. A refusal ends the turn as a lost lease does.
   */
  async append(entry: AppendableEntry): Promise<LogCursor> {
    const held = this.held;
    if (!held)
      throw new LegionError(
        'lease_not_held',
        `Nothing may be appended to ${this.ref.conversationId} outside a turn that holds its lease.`,
        {
          conversationId: this.ref.conversationId,
        },
      );
    if (held.lost) throw held.lost;
    try {
      return await this.logs.append(this.ref, entry, held.lease);
    } catch (error) {
      if (error instanceof LeaseLostError) held.lose(error);
      throw error;
    }
  }

  /**
   * Waits for (or refuses) this conversation's in-process queue, then takes its
   * lease from the backend (which keeps other processes out) and keeps renewing
   * it while the turn runs. A renewal that finds the lease taken over aborts
   * the turn: it must not write on beside the new holder.
   */
  async acquire(options: { signal?: AbortSignal | undefined; ifBusy: 'wait' | 'fail' }): Promise<HeldTurn> {
    const id = this.ref.conversationId;
    if (options.ifBusy === 'fail' && this.pending > 0) throw new ConversationBusyError(id, 'a turn in this process');
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
    const ttlMs = this.options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
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
        if (options.ifBusy === 'fail') throw new ConversationBusyError(id, attempt.holder?.owner ?? 'another process');
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
        this.options.events.emit('error:raised', {
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
        this.options.onRelease();
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
          (error: unknown) => held.lose(error instanceof LeaseLostError ? error : new LeaseLostError(`conversation ${id}`, owner)),
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
