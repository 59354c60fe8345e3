import { defaultMaxListeners, setMaxListeners } from 'node:events';
import type { ToolResultBlock, ToolUseBlock } from '../kernel/index.js';
import { describeZodError, errorMessage } from '../kernel/index.js';
import type { PausedOnApprovals } from '../session/index.js';
import type { CallerContext, Tool, ToolContext, ToolResult } from './tool.js';

/** A call that passed lookup and validation, ready to run once authorized. */

/** Why a call never ran: no such tool is offered to the caller, its input was invalid, a policy denied it, its approver rejected it, or Legion stopped while it waited. */
export type ToolRefusal = 'unavailable' | 'invalid' | 'denied' | 'rejected' | 'interrupted';

export interface PreparedCall {
  toolUse: ToolUseBlock;
  tool: Tool;
  input: unknown;
}

/** How one executed call ended: a result for the model, or a delegate paused on approvals. */
/** A call's result block, or the approvals it waits on (a delegate's paused turn). */
export type CallOutcome = { status: 'done'; block: ToolResultBlock } | PausedOnApprovals;

/**
 * Turns a result block into the one the model and the log get (the context's
 * eviction of large results): applied before `tool:result` is emitted, so that
 * surfaces show what the model saw.
 */
export type FinishResult = (block: ToolResultBlock) => Promise<ToolResultBlock>;

/**
 * Finds and validates tool calls, then runs them with a timeout. Every call
 * ends with exactly one outcome, whatever the tool does (throws, hangs, floods).
 * Calls marked `concurrent` that stand next to each other run at the same time.
 */
export class ToolExecutor {
  /**
   * @param redact applied to every result before it reaches the log, events
   *   or the model: secrets of the environment never leave as tool output.
   */
  constructor(private readonly redact: (text: string) => string = (text) => text) {}

  /** Looks the tool up among those the caller may use and validates the input against its schema. */
  prepare(
    toolUse: ToolUseBlock,
    tools: ReadonlyMap<string, Tool>,
    preflightError?: string,
  ): { ok: true; call: PreparedCall } | { ok: false; error: string; refusal: ToolRefusal } {
    if (preflightError !== undefined) return { ok: false, error: preflightError, refusal: 'invalid' };
    const tool = tools.get(toolUse.name);
    if (!tool) {
      const available = [...tools.keys()].join(', ') || '(none)';
      return { ok: false, error: `Tool "${toolUse.name}" is not available to you. Available tools: ${available}.`, refusal: 'unavailable' };
    }
    const parsed = this.validate(toolUse, tool);
    if (!parsed.success) {
      const { field, problem, fix } = describeZodError(parsed.error, toolUse.input);
      return {
        ok: false,
        error: `Invalid input for ${tool.name}: "${field}" ${problem}. Fix: ${fix}, and call it again.`,
        refusal: 'invalid',
      };
    }
    return { ok: true, call: { toolUse, tool, input: parsed.data } };
  }

  /**
   * A call's input checked against its tool's schema, once: the step's preflight (a hint for a tool
   * not loaded yet) and the tool phase both prepare the same call of the same reply.
   */
  private validate(toolUse: ToolUseBlock, tool: Tool): ReturnType<Tool['inputSchema']['safeParse']> {
    const known = this.validated.get(toolUse);
    if (known?.tool === tool) return known.parsed;
    const parsed = tool.inputSchema.safeParse(toolUse.input, { reportInput: true });
    this.validated.set(toolUse, { tool, parsed });
    return parsed;
  }

  private readonly validated = new WeakMap<ToolUseBlock, { tool: Tool; parsed: ReturnType<Tool['inputSchema']['safeParse']> }>();

  /** Runs prepared calls in order (adjacent concurrent ones together); outcomes by tool_use id. */
  async run(
    calls: readonly PreparedCall[],
    context: CallerContext,
    defaultTimeoutMs: number,
    finish?: FinishResult,
  ): Promise<Map<string, CallOutcome>> {
    const outcomes = new Map<string, CallOutcome>();
    let index = 0;
    while (index < calls.length) {
      let end = index + 1;
      if (calls[index]!.tool.concurrent) while (end < calls.length && calls[end]!.tool.concurrent) end++;
      const batch = calls.slice(index, end);
      const shared = batch.length > 1 ? batchSignal(context.signal, batch.length) : undefined;
      try {
        const batchContext = shared ? Object.assign({}, context, { signal: shared.signal }) : context;
        const settled = await Promise.all(batch.map((call) => this.runOne(call, batchContext, defaultTimeoutMs, finish)));
        batch.forEach((call, offset) => outcomes.set(call.toolUse.id, settled[offset]!));
      } finally {
        shared?.dispose();
      }
      index = end;
    }
    return outcomes;
  }

  /**
   * Reports a call that never ran (refused, invalid, denied) the way a run call is reported,
   * with an `execute_tool` span in error naming the decision: an operator sees a denied call.
   */
  refuse(
    toolUse: ToolUseBlock,
    error: string,
    context: Pick<ToolContext, 'callerId' | 'conversation' | 'events' | 'trace'>,
    decision: ToolRefusal = 'invalid',
  ): ToolResultBlock {
    const block = toResultBlock(toolUse.id, { status: 'error', error }, this.redact);
    context.trace?.tool(toolUse)?.refused(decision, block.content);
    context.events.emit('tool:call', Object.assign({}, context.conversation, { participantId: context.callerId, toolUse }));
    context.events.emit(
      'tool:result',
      Object.assign({}, context.conversation, { participantId: context.callerId, toolUse, result: block, durationMs: 0 }),
    );
    return block;
  }

  // Object.assign, not `{ ...base, more }`: V8 keeps objects built by a spread plus further properties through
  // young-generation GCs, so per-turn garbage would pile up in the old generation (bench/memory-runs.mjs).
  private async runOne(
    call: PreparedCall,
    context: CallerContext,
    defaultTimeoutMs: number,
    finish: FinishResult | undefined,
  ): Promise<CallOutcome> {
    const started = performance.now();
    const { toolUse } = call;
    context.events.emit('tool:call', Object.assign({}, context.conversation, { participantId: context.callerId, toolUse }));
    const span = context.trace?.tool(toolUse);
    const readable = (path: string): boolean => context.visible(path, call.tool);
    const result = await (span
      ? span.run(() =>
          this.execute(
            call,
            Object.assign({}, context, { toolUseId: toolUse.id, readable, traceparent: span.traceparent() }),
            defaultTimeoutMs,
          ),
        )
      : this.execute(call, Object.assign({}, context, { toolUseId: toolUse.id, readable }), defaultTimeoutMs));
    if (result.status === 'paused') {
      span?.end({ paused: result.requests.length });
      return result;
    }
    const whole = toResultBlock(toolUse.id, result, this.redact);
    // What the model sees (redacted), not what the tool returned.
    span?.end({ isError: whole.isError === true, content: whole.content });
    const block = finish ? await finish(whole) : whole;
    context.events.emit(
      'tool:result',
      Object.assign({}, context.conversation, {
        participantId: context.callerId,
        toolUse,
        result: block,
        durationMs: performance.now() - started,
      }),
    );
    return { status: 'done', block };
  }

  private async execute({ tool, input }: PreparedCall, context: ToolContext, defaultTimeoutMs: number): Promise<ToolResult> {
    if (context.signal.aborted) return { status: 'error', error: 'Cancelled before the tool started.' };
    const timeoutMs = tool.timeoutMs ?? defaultTimeoutMs;
    // Always a new controller, never a spare one (spare-controllers.ts): the tool is code we do not own, and a signal
    // it tied to background work (AbortSignal.any keeps no visible listener) must not later abort for another call.
    const controller = new AbortController();
    let cancelled!: (result: ToolResult) => void;
    const cancellation = new Promise<ToolResult>((resolve) => (cancelled = resolve));
    const onAbort = (): void => {
      // Resolve before aborting the tool's signal: its listeners run synchronously and might settle first.
      cancelled({ status: 'error', error: `${tool.name} was cancelled.` });
      controller.abort(context.signal.reason);
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    try {
      const execution = Promise.resolve()
        .then(() => tool.execute(input, Object.assign({}, context, { signal: controller.signal })))
        .catch((error: unknown): ToolResult => ({ status: 'error', error: `${tool.name} failed: ${errorMessage(error)}` }));
      const stops: Promise<ToolResult>[] = [execution];
      if (timeoutMs > 0) {
        stops.push(
          new Promise((resolve) => {
            timer = setTimeout(() => {
              // Resolve before aborting: abort listeners run synchronously and would report a cancellation instead.
              resolve({ status: 'error', error: `${tool.name} timed out after ${formatMs(timeoutMs)} and was abandoned.` });
              controller.abort(new Error('timeout'));
            }, timeoutMs);
          }),
        );
      }
      stops.push(cancellation);
      const result = await Promise.race(stops);
      return isToolResult(result) ? result : { status: 'error', error: `${tool.name} returned no result object.` };
    } finally {
      if (timer) clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
    }
  }
}

/**
 * One signal for a batch of calls running at once, aborting with the turn's: each call listens on it
 * while it runs, so a response with a dozen parallel calls puts one listener on the turn's signal, not
 * a dozen (Node warns of a leak past ten, on the user's terminal). The batch's own limit is its size.
 */
function batchSignal(parent: AbortSignal, size: number): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  setMaxListeners(Math.max(size, defaultMaxListeners), controller.signal);
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, dispose: () => parent.removeEventListener('abort', onAbort) };
}

function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== 'object' || value === null) return false;
  const status = (value as { status?: unknown }).status;
  if (status === 'paused') return Array.isArray((value as { requests?: unknown }).requests);
  return status === 'success' || (status === 'error' && typeof (value as { error?: unknown }).error === 'string');
}

/**
 * The block of a result, whole: no cap here. Large results are the context's
 * to evict (stored whole as an artifact, previewed: `context/evict-tool-result.ts`),
 * which needs the whole text. `redact` runs on the whole text before anything
 * cuts it: a secret straddling a cut would otherwise be recognised on neither
 * side and leak its first half. A file change kept with the result is redacted alike: its diff
 * holds what the file held, secrets included.
 */
export function toResultBlock(
  toolUseId: string,
  result: Exclude<ToolResult, { status: 'paused' }>,
  redact: (text: string) => string = (text) => text,
): ToolResultBlock {
  if (result.status === 'error') return { type: 'tool_result', toolUseId, content: redact(result.error), isError: true };
  const data = result.data;
  const text = typeof data === 'string' ? data : data === undefined ? '(done)' : JSON.stringify(data);
  const block: ToolResultBlock = { type: 'tool_result', toolUseId, content: redact(text ?? String(data)) };
  const change = result.fileChange;
  if (change !== undefined)
    block.fileChange = change.status === 'kept' ? Object.assign({}, change, { patch: redact(change.patch) }) : change;
  return block;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`;
}
