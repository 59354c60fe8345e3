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
