import { FetchHeaders } from './fetch-headers.js';

/** Set by undici when it loads (Node's own, on first use of fetch, Headers, FormData, Request or Response). */
const UNDICI_LOADED = Symbol.for('undici.globalDispatcher.1');

type UndiciGlobal = 'FormData' | 'Request' | 'Response';

/**
 * Stands for one of undici's globals without loading undici until it is used. `new`, calls and
 * static members go to the real global; `instanceof` is false without asking the global while
 * undici is not loaded, which is exact: no instance of it can exist before then. The provider SDKs
 * test every request body with `body instanceof FormData`, which would otherwise load undici.
 */
function whenLoaded<Name extends UndiciGlobal>(name: Name): (typeof globalThis)[Name] {
  const real = (): (typeof globalThis)[Name] => globalThis[name];
  const hasInstance = (value: unknown): boolean => UNDICI_LOADED in globalThis && value instanceof real();
  // A function target, so that the proxy can be called and constructed.
  const target = function undiciGlobal(): void {};
  const proxy: unknown = new Proxy(target, {
    construct: (_target, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
    apply: (_target, thisArgument, args) => Reflect.apply(real() as unknown as (...values: unknown[]) => unknown, thisArgument, args),
    get: (_target, property) => (property === Symbol.hasInstance ? hasInstance : Reflect.get(real(), property)),
    has: (_target, property) => Reflect.has(real(), property),
  });
  return proxy as (typeof globalThis)[Name];
}

/**
 * The fetch globals the CLI's bundle gives the provider SDKs' modules in place of Node's
 * (packages/cli/scripts/build.mjs, "sdk-fetch-globals"), so that a request through
 * `nodeHttpFetch` never loads undici.
 */
export const undiciFreeGlobals = {
  Headers: FetchHeaders,
  FormData: whenLoaded('FormData'),
  Request: whenLoaded('Request'),
  Response: whenLoaded('Response'),
};
