import { LegionError } from '../../kernel/index.js';
import type { Message } from '../../kernel/index.js';
import type { ModelRequest } from '../providers/llm-provider.js';
import { cutPointsAfterFirst } from './compaction-cut.js';
import type { TokenMeasure } from './context-tokens.js';

/** A request that cannot fit the model's window even cut to its newest turn: refused before anything is sent. */
export class ContextOverflowError extends LegionError {
  constructor(details: { agentId: string; requestTokens: number; window: number; outputReserve: number }) {
    const { agentId, requestTokens, window, outputReserve } = details;
    super(
      'context_overflow',
      `${agentId}'s next model request needs ${requestTokens} tokens even cut to its newest turn, but its window is ${window} tokens ` +
        `with ${outputReserve} kept for the reply (${window - outputReserve} for the request). Nothing was sent. ` +
        `Fix: give ${agentId} a model with a bigger window, set its context.window if its model's window is larger than that, ` +
        'or split the message (send a file path instead of the content).',
      details,
    );
  }
}

export interface FitResult {
  messages: readonly Message[];
  /** Messages left out at the front (whole turns, or whole steps of one long turn). */
  dropped: number;
}

/**
 * The hard cap: keeps the request within window − outputReserve by leaving out whole
 * turns, or whole steps of a long turn, oldest first (a tool call always goes with its
 * result), never the newest step. `extraTokens` is what will be added to the request
 * besides (the carried-over state). Throws `ContextOverflowError` when even the newest
 * step alone does not fit.
 */
export function fitToWindow(
  request: Pick<ModelRequest, 'system' | 'tools' | 'messages'>,
  options: {
    agentId: string;
    window: number;
    outputReserve: number;
    extraTokens: number;
    measure: TokenMeasure;
    /** The whole request's tokens (extra included) as measured already (`measureContext`: the provider's report plus a count since); default: counted here. */
    requestTokens?: number | undefined;
  },
): FitResult {
  const budget = options.window - options.outputReserve;
  const perMessage = request.messages.map((message) => options.measure.message(message));
  let total =
    options.requestTokens ??
    options.measure.request({ system: request.system, tools: request.tools, messages: [] }) +
      options.extraTokens +
      perMessage.reduce((sum, tokens) => sum + tokens, 0);
  if (total <= budget) return { messages: request.messages, dropped: 0 };
  let from = 0;
  for (const start of cutPointsAfterFirst(request.messages)) {
    for (; from < start; from++) total -= perMessage[from]!;
    if (total <= budget) return { messages: request.messages.slice(start), dropped: start };
  }
  throw new ContextOverflowError({
    agentId: options.agentId,
    requestTokens: total,
    window: options.window,
    outputReserve: options.outputReserve,
  });
}
