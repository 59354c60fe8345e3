import { getEventListeners } from 'node:events';

/**
 * AbortControllers whose operation is over, kept to be used again. On Node 20 an
 * AbortSignal outlives young-generation GCs even when dropped at once: about 400
 * bytes each, plus the young objects it points to, land in the old generation and
 * stay there until a full GC (measured in bench/memory-runs.mjs, where a turn made
 * three). Reusing the few a turn needs keeps a long-lived process's old
 * generation from filling with them between full GCs.
 */
const spare: AbortController[] = [];

/** Enough for the turns of a few conversations at once; a burst beyond it makes new ones. */
const SPARE_LIMIT = 16;

/** A controller that was never aborted and that nothing listens on: a spare one, else a new one. */
export function takeController(): AbortController {
  return spare.pop() ?? new AbortController();
}

/**
 * Hands back a controller whose operation is over and whose signal nobody else
 * keeps. Only one that never aborted and has no `abort` listener left is kept: it
 * cannot be told from a new one. Anything else (aborted, or a listener someone
 * left behind that a later abort would call) is dropped.
 */
export function giveBackController(controller: AbortController): void {
  if (spare.length >= SPARE_LIMIT || controller.signal.aborted) return;
  if (getEventListeners(controller.signal, 'abort').length > 0) return;
  spare.push(controller);
}
