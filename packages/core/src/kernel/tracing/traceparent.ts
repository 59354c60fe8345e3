/**
 * The W3C `traceparent` header's form (`00-<trace id>-<span id>-<flags>`) of a span context: what a
 * delegation frame keeps, so a turn resumed in another process (or read back after a restart) joins
 * the trace it was started in. Written by hand rather than through a propagator because only the
 * API package is a dependency, and these two functions are the whole format.
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE_ID = /^0{32}$/;
const INVALID_SPAN_ID = /^0{16}$/;
/** The one flag version 00 defines. */
const SAMPLED = 0x01;

export interface TraceparentContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

export function formatTraceparent(context: TraceparentContext): string | undefined {
  const value = `00-${context.traceId}-${context.spanId}-${(context.traceFlags & SAMPLED).toString(16).padStart(2, '0')}`;
  return parseTraceparent(value) ? value : undefined;
}

/** The span context a `traceparent` names; undefined for anything else (an old or damaged record starts a new trace). */
export function parseTraceparent(value: string | undefined): (TraceparentContext & { isRemote: true }) | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  if (!match || INVALID_TRACE_ID.test(match[1]!) || INVALID_SPAN_ID.test(match[2]!)) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16) & SAMPLED, isRemote: true };
}
