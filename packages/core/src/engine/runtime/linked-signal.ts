import { getEventListeners } from 'node:events';
import { giveBackController, takeController } from '../../session/index.js';

/**
 * A child signal that aborts with its parent, for one operation. SDKs add an
 * abort listener per request and do not always remove it; giving each request
 * its own child keeps a long turn's signal from collecting hundreds of them.
 */
export function linkedSignal(parent: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, dispose: () => {} };
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, dispose: () => parent.removeEventListener('abort', onAbort) };
}

/** A linked child made from a spare controller; `release` detaches it and hands the controller back when its call is over. */
function spareLinkedSignal(parent: AbortSignal): { signal: AbortSignal; dispose: () => void; release: () => void } {
  const controller = takeController();
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  const dispose = (): void => parent.removeEventListener('abort', onAbort);
  return {
    signal: controller.signal,
    dispose,
    release: () => {
      dispose();
      giveBackController(controller);
    },
  };
}

/**
 * The signals of one turn's model calls, each aborting with the turn. A call gets the
 * previous call's child again when nothing listens on it any more (the SDK removed its
 * listener), else a new one: on Node 20 an AbortSignal and an abort listener, even dropped at
 * once, survive young-generation GCs and are promoted (measured: 40,000 dropped signals leave
 * 12 MB in the old generation, plain EventTargets none), so a child per call kept ~0.7 KB per
 * call until a full GC in a long-lived process (bench/memory-runs.mjs).
 */
export class CallSignals {
  private current: { signal: AbortSignal; dispose: () => void; release: () => void } | undefined;
  private foreign: { dispose: () => void } | undefined;

  constructor(private readonly parent: AbortSignal) {}

  /**
   * `reusable: false` for a provider Legion does not own: it may tie the signal to work that outlives
   * the call (AbortSignal.any leaves no listener getEventListeners can see), which a later call's or
   * another turn's abort must never reach, so its call gets a new child, detached when the call is done.
   */
  next(reusable = true): AbortSignal {
    if (!reusable) {
      const foreign = linkedSignal(this.parent);
      this.foreign = foreign;
      return foreign.signal;
    }
    const current = this.current;
    if (current && !current.signal.aborted && getEventListeners(current.signal, 'abort').length === 0) return current.signal;
    current?.dispose();
    this.current = spareLinkedSignal(this.parent);
    return this.current.signal;
  }

  /** The call is over: a child its SDK left a listener on is detached at once, so the turn's abort never reaches a finished call. */
  done(): void {
    this.foreign?.dispose();
    this.foreign = undefined;
    const current = this.current;
    if (current && getEventListeners(current.signal, 'abort').length > 0) this.dispose();
  }

  /** The turn is over: its calls are finished, so a child nothing listens on any more serves another turn. */
  dispose(): void {
    this.foreign?.dispose();
    this.foreign = undefined;
    this.current?.release();
    this.current = undefined;
  }
}
