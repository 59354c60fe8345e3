/** A backend's change hint for one session (`SessionBackend.watch`, bound to the session). */
export type WatchSession = (onChange: () => void) => () => void;

/** How often a waiter reads when no change notification comes (some file systems send none). */
const POLL_MS = 250;

/**
 * Waits until `read` finds what it looks for in a session's records (written
 * by this process or any other): it reads at once, on every change hint of the
 * backend, and on a poll, one read at a time. Rejects with the signal's reason
 * when it aborts; a read that throws is tried again on the next hint.
 */
export function waitForRecord<T>(
  read: () => Promise<T | undefined>,
  options: { watch?: WatchSession | undefined; signal: AbortSignal; pollMs?: number | undefined },
): Promise<T> {
  const { signal } = options;
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let done = false;
    let reading = false;
    let again = false;
    const finish = (): void => {
      done = true;
      clearInterval(timer);
      unwatch?.();
      signal.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      if (done) return;
      finish();
      reject(signal.reason);
    };
    const check = (): void => {
      if (done) return;
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      read().then(
        (found) => {
          reading = false;
          if (done) return;
          if (found !== undefined) {
            finish();
            resolve(found);
          } else if (again) {
            again = false;
            check();
          }
        },
        () => {
          reading = false;
        },
      );
    };
    // Kept referenced: a turn waiting for an answer only another process may give is work in progress,
    // and the process must not exit under it (nothing else may keep it alive: a surface waiting on a signal).
    const timer = setInterval(check, options.pollMs ?? POLL_MS);
    const unwatch = options.watch?.(check);
    signal.addEventListener('abort', onAbort, { once: true });
    check();
  });
}
