import { randomBytes, randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type CallToolResult,
  type InputRequest,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { errorMessage } from '@legion-collective/core';
import { z } from 'zod';
import type { CallChannel, ElicitAnswer, ElicitRequest } from './active-calls.js';
import { ELICIT_TIMEOUT_MS } from './call-channel.js';
import { progressOf } from './progress.js';
import { toolError } from './tool-results.js';

/** The part of the client's declared capabilities read here: form elicitation (or, from clients written before modes, an empty `elicitation`). */
const ElicitationCapabilitySchema = z.object({ elicitation: z.object({ form: z.unknown().optional() }).loose().optional() }).loose();

/** Whether the request's 2026-07-28 envelope declares that its client can put a form to its human. */
function declaresFormElicitation(mcp: ServerContext): boolean {
  // The SDK types the envelope as an empty object: its keys are read, and checked, here.
  const envelope: Record<string, unknown> = { ...mcp.mcpReq.envelope };
  const parsed = ElicitationCapabilitySchema.safeParse(envelope[CLIENT_CAPABILITIES_META_KEY]);
  const elicitation = parsed.success ? parsed.data.elicitation : undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
}

/** What a round's `requestState` names: the call it continues, and the tool it was made through. */
interface RoundState {
  call: string;
  tool: string;
}

/** A form put to the client's human, waiting for the round that answers it. */
interface PendingAsk {
  request: ElicitRequest;
  answer(answer: ElicitAnswer): void;
}

/** A tool call whose work outlives one request: its turn runs on while the client's human answers between rounds. */
interface RoundCall {
  readonly id: string;
  readonly tool: string;
  /** The work's own signal: aborted when the client cancels a round it is attached to. */
  readonly controller: AbortController;
  outcome: Promise<CallToolResult>;
  readonly pending: Map<string, PendingAsk>;
  asks: number;
  /** The round the client is waiting on now, if any: where progress goes, and whose cancel stops the work. */
  round: { progress(message: string): void } | undefined;
  /** Wakes the attached round when the work asks something. */
  wake: (() => void) | undefined;
  /** Forgets a finished call nobody came back for. */
  expiry: NodeJS.Timeout | undefined;
}

/**
 * Multi round-trip requests (MCP 2026-07-28), which replace a server's
 * `elicitation/create` request: a tool call that needs its client's human
 * answers with `input_required` and is retried with the answers. Legion's
 * turn does not restart on the retry: it keeps running in this process, its
 * question waiting, and the retry (which names the call in its signed
 * `requestState`) hands the answer to it and waits on with it. So an approval
 * in the middle of a delegation tree reaches the client as it does on the 2025
 * revisions, where the call stays open and the server asks.
 */
export class InputRounds {
  private readonly calls = new Map<string, RoundCall>();
  // Per process: every round of a call comes back to the process its turn runs in.
  private readonly codec = createRequestStateCodec<RoundState>({
    key: randomBytes(32),
    ttlSeconds: Math.ceil((2 * ELICIT_TIMEOUT_MS) / 1000),
  });

  /** The `requestState.verify` of every server of the 2026-07-28 era: a state this process did not sign is refused. */
  readonly verify = (state: string, context: ServerContext): Promise<RoundState> => this.codec.verify(state, context);

  /**
   * Runs `work` as a tool call of the 2026-07-28 era: the first round starts it;
   * a retry (with the `requestState` a round returned) continues it. Each round
   * answers with the work's result, or with `input_required` while it waits on
   * the client's human.
   */
  async round(
    tool: string,
    mcp: ServerContext,
    work: (channel: CallChannel, signal: AbortSignal) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const state = mcp.mcpReq.requestState<RoundState>();
    if (state === undefined) return this.serve(this.start(tool, mcp, work), mcp);
    const call = state.tool === tool ? this.calls.get(state.call) : undefined;
    if (!call)
      return toolError(
        'This call waits for no answer any more: it already ended, or its answer came too late (after 15 minutes the turn goes on without it), or legion mcp serve restarted. ' +
          'Call list_approvals for what still waits, and read_conversation for the reply.',
      );
    // One round at a time: a second retry of the same round (a replay) would take the first one's answers and progress.
    if (call.round !== undefined) return toolError('This call is already being continued by another request: wait for its answer.');
    for (const [key, pending] of call.pending) {
      const view = inputResponse(mcp.mcpReq.inputResponses, key);
      if (view.kind !== 'elicit') continue;
      call.pending.delete(key);
      pending.answer(view.action === 'accept' ? { action: 'accept', content: { ...(view.content ?? {}) } } : { action: view.action });
    }
    return this.serve(call, mcp);
  }

  private start(tool: string, mcp: ServerContext, work: (channel: CallChannel, signal: AbortSignal) => Promise<CallToolResult>): RoundCall {
    const controller = new AbortController();
    const pending = new Map<string, PendingAsk>();
    const call: RoundCall = {
      id: randomUUID(),
      tool,
      controller,
      pending,
      asks: 0,
      round: undefined,
      wake: undefined,
      expiry: undefined,
      outcome: Promise.resolve({ content: [] }),
    };
    const supportsElicitation = declaresFormElicitation(mcp);
    const channel: CallChannel = {
      progress: (message) => call.round?.progress(message),
      ...(supportsElicitation ? { elicit: (request, signal) => this.ask(call, request, signal) } : {}),
    };
    this.calls.set(call.id, call);
    // Never rejected: a failure is a tool error, as on the 2025 revisions; and a turn that ends between rounds waits for its client.
    call.outcome = work(channel, controller.signal)
      .catch((error: unknown) => toolError(errorMessage(error)))
      .finally(() => {
        if (call.round === undefined && this.calls.has(call.id)) this.expireLater(call);
      });
    return call;
  }

  /** One round: attached to this request until the work ends (its result) or asks (`input_required`). */
  private async serve(call: RoundCall, mcp: ServerContext): Promise<CallToolResult | InputRequiredResult> {
    clearTimeout(call.expiry);
    const signal = mcp.mcpReq.signal;
    const stop = (): void => call.controller.abort(signal.reason);
    // The client cancelled the call (stdio) or closed its stream (HTTP): the turn stops, as on the 2025 revisions.
    signal.addEventListener('abort', stop, { once: true });
    call.round = { progress: progressOf(mcp) };
    try {
      for (;;) {
        if (call.pending.size > 0) {
          const inputRequests: Record<string, InputRequest> = {};
          for (const [key, pending] of call.pending) inputRequests[key] = inputRequired.elicit({ mode: 'form', ...pending.request });
          return inputRequired({ inputRequests, requestState: await this.codec.mint({ call: call.id, tool: call.tool }) });
        }
        const asked = new Promise<'asked'>((resolve) => (call.wake = () => resolve('asked')));
        const next = await Promise.race([call.outcome, asked]);
        if (next !== 'asked') {
          this.calls.delete(call.id);
          return next;
        }
      }
    } finally {
      signal.removeEventListener('abort', stop);
      call.round = undefined;
      call.wake = undefined;
      if (this.calls.has(call.id)) this.expireLater(call);
    }
  }

  /** The work asks the client's human: the attached round (or the next one) carries the form; the answer comes with a retry. */
  private ask(call: RoundCall, request: ElicitRequest, signal: AbortSignal): Promise<ElicitAnswer> {
    call.asks += 1;
    const key = `ask_${call.asks}`;
    return new Promise<ElicitAnswer>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        call.pending.delete(key);
      };
      // As long as the 2025 revisions wait for a form; the question then stays open for the human's own surfaces.
      const timer = setTimeout(() => {
        done();
        reject(new Error(`the MCP client did not answer within ${Math.round(ELICIT_TIMEOUT_MS / 60_000)} minutes`));
      }, ELICIT_TIMEOUT_MS);
      const onAbort = (): void => {
        done();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      call.pending.set(key, {
        request,
        answer: (answer) => {
          done();
          resolve(answer);
        },
      });
      call.wake?.();
    });
  }

  /** A call nobody is attached to is kept as long as a client may take to answer, then forgotten (its turn stops if still running). */
  private expireLater(call: RoundCall): void {
    clearTimeout(call.expiry);
    call.expiry = setTimeout(() => {
      this.calls.delete(call.id);
      call.controller.abort(new Error('the MCP client did not come back for this call'));
    }, ELICIT_TIMEOUT_MS + 60_000);
    call.expiry.unref();
  }
}
