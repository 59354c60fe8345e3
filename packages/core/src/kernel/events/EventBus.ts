import type { LegionEvent, LegionEventName, LegionEvents } from './event-types.js';

type Handler<Name extends LegionEventName> = (event: { type: Name; seq: number } & LegionEvents[Name]) => void;
type AnyHandler = (event: LegionEvent) => void;

/**
 * Typed, synchronous publish/subscribe. A throwing subscriber cannot break the
 * run that emitted: its error is reported as `error:raised` and the rest still hear the event.
 *
 * Every delivered event gets the next `seq` (see `LegionEvent`). An event
 * emitted while another is being delivered (by a subscriber, or the
 * `error:raised` of a throwing one) waits until that delivery is done, so
 * every subscriber hears events in `seq` order.
 */
export class EventBus {
  private readonly handlers = new Map<LegionEventName, Set<Handler<LegionEventName>>>();
  private readonly anyHandlers = new Set<AnyHandler>();
  private redact: ((text: string) => string) | undefined;
  private seq = 0;
  private delivering = false;
  /** Events emitted during a delivery, in `seq` order. */
  private readonly queued: LegionEvent[] = [];

  /**
   * Applies `redact` to the free text of error and warning events: they quote
   * what a server answered or a command printed, and subscribers log them.
   */
  redactWith(redact: (text: string) => string): void {
    this.redact = redact;
  }

  on<Name extends LegionEventName>(type: Name, handler: Handler<Name>): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    set.add(handler as Handler<LegionEventName>);
    return () => set.delete(handler as Handler<LegionEventName>);
  }

  onAny(handler: AnyHandler): () => void {
    this.anyHandlers.add(handler);
    return () => this.anyHandlers.delete(handler);
  }

  /** Whether anyone listens: lets hot paths skip building an event nobody reads. */
  hasListeners(type: LegionEventName): boolean {
    return this.anyHandlers.size > 0 || (this.handlers.get(type)?.size ?? 0) > 0;
  }

  /** The `seq` of the last event delivered (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  emit<Name extends LegionEventName>(type: Name, payload: LegionEvents[Name]): void {
    if (!this.handlers.get(type)?.size && this.anyHandlers.size === 0) return;
    const event = redactText({ type, seq: ++this.seq, ...payload } as LegionEvent, this.redact);
    if (this.delivering) {
      this.queued.push(event);
      return;
    }
    this.delivering = true;
    try {
      this.dispatch(event);
      for (let next = this.queued.shift(); next; next = this.queued.shift()) this.dispatch(next);
    } finally {
      this.delivering = false;
    }
  }

  private dispatch(event: LegionEvent): void {
    const set = this.handlers.get(event.type);
    if (set) for (const handler of set) this.deliver(handler as AnyHandler, event);
    for (const handler of this.anyHandlers) this.deliver(handler, event);
  }

  private deliver(handler: AnyHandler, event: LegionEvent): void {
    try {
      handler(event);
    } catch (error) {
      if (event.type === 'error:raised') return;
      this.emit('error:raised', { scope: `subscriber of ${event.type}`, message: error instanceof Error ? error.message : String(error) });
    }
  }
}

// Object.assign, not `{ ...event, field }`: V8 (Node 20) keeps objects built by a spread plus more properties
// through young-generation GCs, and events are emitted on every step (bench/memory-runs.mjs).
function redactText(event: LegionEvent, redact: ((text: string) => string) | undefined): LegionEvent {
  if (!redact) return event;
  switch (event.type) {
    case 'error:raised':
      return Object.assign({}, event, { message: redact(event.message) });
    case 'storage:warning':
      return Object.assign({}, event, { problem: redact(event.problem) });
    case 'turn:end':
      return event.error === undefined ? event : Object.assign({}, event, { error: redact(event.error) });
    default:
      return event;
  }
}
