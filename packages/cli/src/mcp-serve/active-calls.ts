import { delegatedConversation, UsageTally, type Legion, type UsageTotals } from '@legion-collective/core';
import type { ElicitRequestFormParams } from '@modelcontextprotocol/server';

/** What a running MCP tool call can do back to its client. */
export interface CallChannel {
  /** Asks the client's human through MCP elicitation; absent when the client does not support it. */
  elicit?: ((request: ElicitRequest, signal: AbortSignal) => Promise<ElicitAnswer>) | undefined;
  /** A progress notification, when the client sent a progress token (otherwise nothing). */
  progress(message: string): void;
}

/** A form elicitation: a message and a flat object schema of primitive fields. */
export interface ElicitRequest {
  message: string;
  requestedSchema: ElicitRequestFormParams['requestedSchema'];
}

/** What the client's human did with a form: accepted with values, declined, or cancelled (dismissed). */
export type ElicitAnswer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' | 'cancel' };

/** One `ask_<agent>` (or `answer_approval`) call in flight, and the conversations of its delegation tree. */
export interface ActiveCall extends CallChannel {
  readonly sessionId: string;
  /** The conversations whose turns work for this call: its own and every one its agents delegate into. */
  readonly conversations: Set<string>;
  /** Model calls made for this call, down the delegation tree (core's tally, per participant too). */
  readonly usage: UsageTally;
}

/**
 * The MCP calls running in this process, and which of them each conversation
 * works for. A turn's events name their conversation, not the call that waits
 * on them, so a call owns its own conversation and claims each conversation its
 * agents `communicate` into: progress, usage and questions or approvals there
 * go back to that call's client.
 */
export class ActiveCalls {
  private readonly calls = new Set<ActiveCall>();
  /** Per conversation, the calls that claimed it; the first is the one its turns work for now. */
  private readonly owners = new Map<string, ActiveCall[]>();
  private readonly requests = new Map<string, ActiveCall>();
  private readonly unsubscribe: Array<() => void> = [];
  private readonly ended = new Map<ActiveCall, Promise<void>>();
  private readonly stopper = new AbortController();

  constructor(legion: Legion) {
    const { events } = legion;
    this.unsubscribe.push(
      events.on('turn:start', (event) => {
        const call = this.owner(event.sessionId, event.conversationId);
        call?.progress(`${event.participantId} is working (${[...event.chain, event.participantId].join(' → ')})`);
      }),
      events.on('tool:call', (event) => {
        const call = this.owner(event.sessionId, event.conversationId);
        if (!call) return;
        const delegated = delegatedConversation(event);
        if (delegated === undefined) {
          call.progress(`${event.participantId} runs ${event.toolUse.name}`);
          return;
        }
        this.claim(call, delegated, 'now');
        call.progress(`${event.participantId} asks ${(event.toolUse.input as { to: string }).to}`);
      }),
      events.on('approval:requested', (event) => {
        const call = this.owner(event.sessionId, event.conversationId);
        if (!call) return;
        // Recorded before any surface is asked: the surface finds the call by the request's id (its view names no session).
        this.requests.set(event.requestId, call);
        call.progress(`${event.requester}'s ${event.tool} waits for approval by ${event.approver} (${event.requestId})`);
      }),
      events.on('usage:report', (event) => {
        const call = this.owner(event.sessionId, event.conversationId);
        if (!call) return;
        call.usage.addEvent(event);
      }),
    );
  }

  /** Aborted when the server stops: every call's turn stops with it, the way Ctrl-C stops the REPL's. */
  get stopping(): AbortSignal {
    return this.stopper.signal;
  }

  /** Stops every running call's turn and waits until each has ended (its cancellation written to the log). */
  async shutdown(reason: string): Promise<void> {
    this.stopper.abort(new Error(reason));
    await Promise.all([...this.ended.values()]);
  }

  /** Registers a call owning these conversations; the disposer ends it. */
  start(sessionId: string, conversations: readonly string[], channel: CallChannel): { call: ActiveCall; end(): void } {
    const call: ActiveCall = { ...channel, sessionId, conversations: new Set(), usage: new UsageTally() };
    this.calls.add(call);
    let ended!: () => void;
    this.ended.set(call, new Promise<void>((resolve) => (ended = resolve)));
    // Its own conversations: a turn already running there (another client's) keeps them until it ends, as the conversation's queue does.
    for (const id of conversations) this.claim(call, id, 'queued');
    return {
      call,
      end: () => {
        ended();
        this.ended.delete(call);
        this.calls.delete(call);
        for (const id of call.conversations) {
          const key = `${sessionId}/${id}`;
          const claims = (this.owners.get(key) ?? []).filter((claimant) => claimant !== call);
          if (claims.length > 0) this.owners.set(key, claims);
          else this.owners.delete(key);
        }
        for (const [id, owner] of this.requests) if (owner === call) this.requests.delete(id);
      },
    };
  }

  /** The call the conversation's turns work for now, if any. */
  owner(sessionId: string, conversation: string): ActiveCall | undefined {
    return this.owners.get(`${sessionId}/${conversation}`)?.[0];
  }

  /** The call whose tree made this approval request, while it runs. */
  ownerOfRequest(requestId: string): ActiveCall | undefined {
    return this.requests.get(requestId);
  }

  dispose(): void {
    for (const stop of this.unsubscribe.splice(0)) stop();
  }

  /**
   * `now`: a delegation, whose turn starts at once (communicate does not wait
   * for a busy conversation), so the latest claim wins. `queued`: a call's own
   * conversation, whose turn waits behind the one running there.
   */
  private claim(call: ActiveCall, id: string, when: 'now' | 'queued'): void {
    call.conversations.add(id);
    const key = `${call.sessionId}/${id}`;
    const claims = (this.owners.get(key) ?? []).filter((claimant) => claimant !== call);
    if (when === 'now') claims.unshift(call);
    else claims.push(call);
    this.owners.set(key, claims);
  }
}

/** Tokens and cost of everything a call's delegation tree did. */
export function usageOf(call: ActiveCall): UsageTotals {
  return call.usage.total;
}
