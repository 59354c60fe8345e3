import { randomUUID } from 'node:crypto';
import type { Usage } from '../../../kernel/index.js';
import { LegionError, ScriptExhaustedError } from '../../../kernel/index.js';
import type { FinishReason, LLMProvider, ModelRequest, StreamOptions, StreamPart } from '../llm-provider.js';

export interface ScriptedToolCall {
  name: string;
  input: unknown;
  id?: string;
}

/** One scripted model response. */
export interface ScriptStep {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: Usage;
  finishReason?: FinishReason;
  /** Throw this instead of answering (a provider failure). */
  error?: Error;
  /** Wait before answering, to make turns overlap in tests and demos. */
  delayMs?: number;
  /** Checks the request; throw (e.g. with `expect`) to fail the test at the call that was wrong. */
  expect?: (request: ModelRequest) => void;
}

/** A function may answer later (a promise): a test makes turns overlap by waiting for an event, not for a time. */
export type ScriptEntry = ScriptStep | ((request: ModelRequest, index: number) => ScriptStep | Promise<ScriptStep>);

/**
 * A zero-latency model that answers from a script, for tests and demos. It
 * fails loudly: a call after the script ran out throws, and `assertDone()`
 * throws if steps were left unused.
 */
export class ScriptedProvider implements LLMProvider {
  readonly name = 'scripted';
  /** Every request it received, in order. */
  readonly requests: ModelRequest[] = [];
  private index = 0;

  constructor(
    private readonly steps: ScriptEntry[] | ((request: ModelRequest, index: number) => ScriptStep | Promise<ScriptStep>),
    readonly model = 'scripted',
  ) {}

  get callCount(): number {
    return this.index;
  }

  get remaining(): number {
    return Array.isArray(this.steps) ? this.steps.length - this.index : Number.POSITIVE_INFINITY;
  }

  async *stream(request: ModelRequest, options: StreamOptions = {}): AsyncIterable<StreamPart> {
    const index = this.index;
    let entry: ScriptEntry | undefined;
    if (Array.isArray(this.steps)) {
      entry = this.steps[index];
      if (!entry) throw new ScriptExhaustedError(this.model, index);
    } else {
      entry = this.steps;
    }
    this.index++;
    // Kept as given: the agent loop builds every step's request anew (buildModelRequest), so later steps never change it.
    this.requests.push(request);
    const step = typeof entry === 'function' ? await entry(request, index) : entry;
    step.expect?.(request);
    if (step.delayMs) await delay(step.delayMs, options.signal);
    options.signal?.throwIfAborted();
    if (step.error) throw step.error;
    if (step.text) yield { type: 'text-delta', text: step.text };
    for (const call of step.toolCalls ?? []) {
      yield { type: 'tool-call', id: call.id ?? `call_${randomUUID().slice(0, 8)}`, name: call.name, input: call.input };
    }
    if (step.usage) yield { type: 'usage', usage: step.usage };
    yield { type: 'finish', reason: step.finishReason ?? (step.toolCalls?.length ? 'tool_use' : 'stop') };
  }

  /** Throws if scripted steps were never used: the test expected calls that did not happen. */
  assertDone(): void {
    if (this.remaining > 0 && Number.isFinite(this.remaining)) {
      throw new LegionError(
        'script_unused',
        `ScriptedProvider "${this.model}" has ${this.remaining} unused step(s) of ${this.index + this.remaining}.`,
        {
          remaining: this.remaining,
        },
      );
    }
  }
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
