import { isSpanContextValid, TraceFlags, type SpanContext } from '@opentelemetry/api';

/**
 * The W3C `traceparent` header's form (`00-<trace id>-<span id>-<flags>`) of a span context: what a
 * delegation frame keeps, so a turn resumed in another process (or read back after a restart) joins
 * the trace it was started in. Written by hand rather than through a propagator because only the
 * API package is a dependency, and these two functions are the whole format.
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function formatTraceparent(context: SpanContext): string | undefined {
  if (!isSpanContextValid(context)) return undefined;
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The remote span context a `traceparent` names; undefined for anything else (an old or damaged record starts a new trace). */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  if (!match) return undefined;
  const context: SpanContext = { traceId: match[1]!, spanId: match[2]!, traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED, isRemote: true };
  return isSpanContextValid(context) ? context : undefined;
}
