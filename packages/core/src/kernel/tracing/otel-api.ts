import { createRequire } from 'node:module';
import type * as OtelApi from '@opentelemetry/api';

export type { OtelApi };

/**
 * Where `@opentelemetry/api` 1.x keeps what an application registered (its tracer provider,
 * context manager, propagator): one object on the global, shared by every copy of the API.
 */
const API_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let loaded: typeof OtelApi | undefined;

/**
 * The OpenTelemetry API, once a tracer provider is registered; undefined before. The API is loaded
 * (synchronously, the first time) only then: without an SDK there is nothing to record, and every
 * `legion` command would otherwise parse it at start-up. Loaded with `require` from this package,
 * not imported: the CLI's bundle leaves it to Node, so the application's SDK and core share a copy.
 */
export function registeredApi(): typeof OtelApi | undefined {
  if (loaded) return loaded;
  const registered = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[API_GLOBAL];
  if (registered?.trace === undefined) return undefined;
  return (loaded = createRequire(import.meta.url)('@opentelemetry/api') as typeof OtelApi);
}
