import type { ContextUsage, CallProgress, LLMProvider } from '../../model/index.js';
import type { RuntimeOutcome, TurnContext } from '../../session/index.js';
import { sessionBudgetError } from './session-budget.js';
import type { TurnSettings } from './turn-settings.js';
import type { UsageRecorder } from './usage-recorder.js';

/*
 * The agent loop's speed tricks, in one place: what the loop skips, reuses or does early so that
 * one step costs what bench/agent-loop-step.mjs measures (≤ 0.15 ms a step, fsync never). Each
 * names the bench that guards it: change one only with that bench's figures before and after.
 * Tricks that live with their own concept, and are guarded the same way:
 *  - settings resolved once per turn, not per step (`turn-settings.ts`; bench/agent-loop-step.mjs);
 *  - one call signal per turn, reused by its calls (`linked-signal.ts`, `CallSignals`; bench/memory-runs.mjs);
 *  - the turn's request source built with every field in one literal, and objects built with Object.assign
 *    rather than spreads on the per-step path (`turn-request.ts`; bench/memory-runs.mjs);
 *  - a tool offer's policy verdicts cached per engine, agent and tool (`tool-offer.ts`; bench/agent-loop-step.mjs).
 */

/**
 * The session budget before a model call. Without a budget nothing is read, and no promise made,
 * per step (bench/agent-loop-step.mjs; with a budget, bench/prices.mjs measures the ledger read).
 */
export function overSessionBudget(turn: TurnContext, settings: TurnSettings): Promise<RuntimeOutcome | undefined> | undefined {
  if (!settings.budgeted) return undefined;
  return sessionBudgetError(turn.session, settings.agent.id, settings.limits).then((over) =>
    over ? { status: 'error', code: over.code, error: over.message } : undefined,
  );
}

/**
 * Text deltas become `text:delta` events only while someone listens: the event is not even built
 * otherwise (bench/agent-loop-step.mjs, the `subscribed` figure against the others). Asked at every
 * delta, not once per turn: a UI that subscribes mid-turn gets the rest of the text.
 */
export function textDeltaReporter(turn: TurnContext, participantId: string): (text: string) => void {
  return (text) => {
    if (turn.events.hasListeners('text:delta'))
      turn.events.emit('text:delta', Object.assign({}, turn.conversation.ref, { participantId, text }));
  };
}

/** A request is measured for `context:usage` only while someone listens (a token count per step otherwise; bench/agent-loop-step.mjs). */
export function contextUsageReporter(turn: TurnContext, participantId: string): { wanted(): boolean; report(usage: ContextUsage): void } {
  return {
    wanted: () => turn.events.hasListeners('context:usage'),
    report: (usage) => turn.events.emit('context:usage', Object.assign({}, turn.conversation.ref, { participantId, usage })),
  };
}

/**
 * The reply's list price is needed once it is in: the list (some 40 ms to load, bench/prices.mjs)
 * loads while the model answers. On the next turn of the event loop, not now: the request goes out first.
 */
export function prefetchPriceWhileAnswering(usage: UsageRecorder, provider: LLMProvider): void {
  setImmediate(() => usage.prefetch(provider));
}

/** One progress record per turn, reset for each call rather than made anew (bench/memory-runs.mjs). */
export function resetProgress(progress: CallProgress): CallProgress {
  progress.received = false;
  progress.outputChars = 0;
  return progress;
}

/** The clock is read for a trace's span only when the turn is traced (bench/agent-loop-step.mjs). */
export function answeredAt(traced: boolean): number {
  return traced ? Date.now() : 0;
}

/**
 * The tools loaded in the conversation (`load_tools`), read once per step: the request's tool offer
 * reads them, and the same step's preflight (load hints) takes that read rather than reading again —
 * nothing loads a tool in between, since tools run only after the preflight. One read (a stat of the
 * agent's state file, its name checks) per step instead of two (bench/agent-loop-step.mjs).
 */
export class LoadedToolsOfStep {
  private fromRequest: ReadonlySet<string> | undefined;

  constructor(private readonly read: () => Promise<ReadonlySet<string>>) {}

  /** For the request being built: read now, and kept for this step's preflight. */
  async forRequest(): Promise<ReadonlySet<string>> {
    const loaded = await this.read();
    this.fromRequest = loaded;
    return loaded;
  }

  /** For the preflight of the reply: the read the step's request made (taken, so no later step reuses it), else a read now. */
  forPreflight(): Promise<ReadonlySet<string>> {
    const loaded = this.fromRequest;
    this.fromRequest = undefined;
    return loaded ? Promise.resolve(loaded) : this.read();
  }
}
