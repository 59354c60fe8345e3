import type { ToolResultBlock, ToolUseBlock } from '../conversation/message.js';
import { describeZodError } from '../config/zod-issues.js';
import { errorMessage } from '../errors.js';
import type { Tool, ToolContext, ToolResult } from './tool.js';

/** Tool output beyond this is cut (head and tail kept) so one call cannot flood a context. */
export const MAX_TOOL_RESULT_CHARS = 100_000;

export interface ExecuteOptions {
  /** The tools this caller may use, by name. */
  tools: ReadonlyMap<string, Tool>;
  defaultTimeoutMs: number;
  /** Errors found before execution (e.g. unparsable arguments), by tool_use id. */
  preflightErrors?: ReadonlyMap<string, string> | undefined;
}

/**
 * Runs the tool calls of one model response: validates each input against its
 * schema, runs it with a timeout, and returns exactly one `tool_result` per
 * `tool_use`, in order, whatever happens. Calls marked `concurrent` that stand
 * next to each other run at the same time.
 */
export class ToolExecutor {
  async executeAll(toolUses: readonly ToolUseBlock[], context: ToolContext, options: ExecuteOptions): Promise<ToolResultBlock[]> {
    const results: ToolResultBlock[] = new Array(toolUses.length);
    let index = 0;
    while (index < toolUses.length) {
      const tool = options.tools.get(toolUses[index]!.name);
      if (tool?.concurrent) {
        let end = index;
        while (end < toolUses.length && options.tools.get(toolUses[end]!.name)?.concurrent) end++;
        const batch = toolUses.slice(index, end);
        const settled = await Promise.all(batch.map((toolUse) => this.execute(toolUse, context, options)));
        settled.forEach((result, offset) => (results[index + offset] = result));
        index = end;
      } else {
        results[index] = await this.execute(toolUses[index]!, context, options);
        index++;
      }
    }
    return results;
  }

  async execute(toolUse: ToolUseBlock, context: ToolContext, options: ExecuteOptions): Promise<ToolResultBlock> {
    const started = performance.now();
    const ref = context.conversation;
    context.events.emit('tool:call', { ...ref, participantId: context.callerId, toolUse });
    const result = toResultBlock(toolUse.id, await this.run(toolUse, context, options));
    context.events.emit('tool:result', {
      ...ref,
      participantId: context.callerId,
      toolUse,
      result,
      durationMs: performance.now() - started,
    });
    return result;
  }

  private async run(toolUse: ToolUseBlock, context: ToolContext, options: ExecuteOptions): Promise<ToolResult> {
    const preflight = options.preflightErrors?.get(toolUse.id);
    if (preflight !== undefined) return { status: 'error', error: preflight };
    const tool = options.tools.get(toolUse.name);
    if (!tool) {
      const available = [...options.tools.keys()].join(', ') || '(none)';
      return { status: 'error', error: `Tool "${toolUse.name}" is not available to you. Available tools: ${available}.` };
    }
    const parsed = tool.inputSchema.safeParse(toolUse.input, { reportInput: true });
    if (!parsed.success) {
      const { field, problem, fix } = describeZodError(parsed.error, toolUse.input);
      return { status: 'error', error: `Invalid input for ${tool.name}: "${field}" ${problem}. Fix: ${fix}, and call it again.` };
    }
    if (context.signal.aborted) return { status: 'error', error: 'Cancelled before the tool started.' };
    const timeoutMs = tool.timeoutMs ?? options.defaultTimeoutMs;
    const controller = new AbortController();
    const onAbort = (): void => controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    try {
      const execution = Promise.resolve()
        .then(() => tool.execute(parsed.data, { ...context, signal: controller.signal }))
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
      stops.push(
        new Promise((resolve) => {
          controller.signal.addEventListener('abort', () => resolve({ status: 'error', error: `${tool.name} was cancelled.` }), { once: true });
        }),
      );
      const result = await Promise.race(stops);
      return isToolResult(result) ? result : { status: 'error', error: `${tool.name} returned no result object.` };
    } finally {
      if (timer) clearTimeout(timer);
      context.signal.removeEventListener('abort', onAbort);
    }
  }
}

function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== 'object' || value === null) return false;
  const status = (value as { status?: unknown }).status;
  return status === 'success' || (status === 'error' && typeof (value as { error?: unknown }).error === 'string');
}

export function toResultBlock(toolUseId: string, result: ToolResult): ToolResultBlock {
  if (result.status === 'error') return { type: 'tool_result', toolUseId, content: capOutput(result.error), isError: true };
  const data = result.data;
  const text = typeof data === 'string' ? data : data === undefined ? '(done)' : JSON.stringify(data);
  return { type: 'tool_result', toolUseId, content: capOutput(text ?? String(data)) };
}

/** Keeps the head and the tail, and says how much was cut between them. */
export function capOutput(text: string, limit = MAX_TOOL_RESULT_CHARS): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n… [${cut} characters cut] …\n${text.slice(text.length - half)}`;
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s` : `${ms} ms`;
}
