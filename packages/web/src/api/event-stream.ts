import type { StateEvent, WireEvent } from './wire.js';

export interface EventStreamHandlers {
  legion(event: WireEvent): void;
  state(event: StateEvent): void;
  session(event: { sessionId: string; created?: boolean }): void;
  /** The server could not replay what was missed (restarted, or too far behind): reload through REST. */
  reset(reason: string): void;
  connection(status: 'open' | 'reconnecting'): void;
  /** After each delivered event: where to resume from. */
  position(lastEventId: string): void;
}

export interface EventStream {
  /**
   * Takes the text deltas of this conversation only (null: none): the stream is opened again from
   * its last event, so nothing else is missed or repeated. Resolves once the stream is open again
   * (or failed to): the text before is to be read through REST after that, never before — a stream
   * opened as a first connection starts where the journal is then, and a text read earlier would
   * leave a gap between.
   */
  watch(conversationId: string | null): Promise<void>;
  close(): void;
}

const HIDDEN_TAB_RELEASE_MS = 3_000;

/** `<epoch>-<seq>`: the server process and its event number. */
function parseId(id: string): { epoch: string; seq: number } | null {
  const dash = id.lastIndexOf('-');
  if (dash <= 0) return null;
  const seq = Number(id.slice(dash + 1));
  return Number.isSafeInteger(seq) ? { epoch: id.slice(0, dash), seq } : null;
}

/**
 * Follows `/api/events`. The browser's own reconnect sends `Last-Event-ID`, and the server replays
 * what was missed; a stream the browser gave up on (HTTP error, server gone) is opened again here
 * with `?lastEventId=`. An event whose id is not after the last one delivered is dropped, so a
 * replay that overlaps what was shown never shows a delta twice.
 */
export function openEventStream(handlers: EventStreamHandlers, resumeFrom: string | null, watching: string | null = null): EventStream {
  let deltas = watching ?? 'none';
  let last = resumeFrom !== null ? parseId(resumeFrom) : null;
  let lastId = resumeFrom;
  let source: EventSource | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryMs = 250;
  let closed = false;
  /** Told when the current source opens or fails: what `watch` waits for. */
  let settled: (() => void) | undefined;

  const fresh = (id: string): boolean => {
    if (id === '') return true;
    const parsed = parseId(id);
    if (parsed === null) return true;
    if (last !== null && parsed.epoch === last.epoch && parsed.seq <= last.seq) return false;
    last = parsed;
    lastId = id;
    return true;
  };
  const deliver = (message: MessageEvent<string>, apply: (data: unknown) => void): void => {
    if (!fresh(message.lastEventId)) return;
    apply(JSON.parse(message.data));
    if (lastId !== null) handlers.position(lastId);
  };

  const open = (): void => {
    if (closed) return;
    const url = `/api/events?deltas=${encodeURIComponent(deltas)}${lastId === null ? '' : `&lastEventId=${encodeURIComponent(lastId)}`}`;
    const current = new EventSource(url, { withCredentials: true });
    source = current;
    current.onopen = () => {
      retryMs = 250;
      handlers.connection('open');
      settled?.();
      settled = undefined;
    };
    current.addEventListener('legion', (message) => deliver(message, (data) => handlers.legion(data as WireEvent)));
    current.addEventListener('state', (message) => deliver(message, (data) => handlers.state(data as StateEvent)));
    current.addEventListener('session', (message) =>
      deliver(message, (data) => handlers.session(data as { sessionId: string; created?: boolean })),
    );
    current.addEventListener('reset', (message) => {
      // What came before the reset is unknown here: resume from this stream's own position.
      last = message.lastEventId !== '' ? parseId(message.lastEventId) : null;
      lastId = message.lastEventId !== '' ? message.lastEventId : null;
      const data = JSON.parse(message.data) as { reason?: string };
      handlers.reset(data.reason ?? 'reset');
    });
    current.onerror = () => {
      settled?.();
      settled = undefined;
      handlers.connection('reconnecting');
      if (current.readyState !== EventSource.CLOSED || closed || paused) return;
      retryTimer = setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 5_000);
    };
  };
  open();

  // A browser opens at most six HTTP/1.1 connections to a host, and every tab's stream holds one:
  // a seventh tab of the app could not even load. A tab hidden for a while lets its stream go and,
  // shown again, resumes it from its last event (the server replays what it missed).
  let hiddenTimer: ReturnType<typeof setTimeout> | undefined;
  let paused = false;
  const onVisibility = (): void => {
    clearTimeout(hiddenTimer);
    if (document.visibilityState === 'hidden') {
      hiddenTimer = setTimeout(() => {
        paused = true;
        clearTimeout(retryTimer);
        source?.close();
      }, HIDDEN_TAB_RELEASE_MS);
    } else if (paused) {
      paused = false;
      open();
    }
  };
  document.addEventListener('visibilitychange', onVisibility);

  return {
    watch(conversationId) {
      const next = conversationId ?? 'none';
      const isOpen = source !== null && source.readyState === EventSource.OPEN;
      if (next === deltas) return isOpen || closed || paused ? Promise.resolve() : new Promise((resolve) => (settled = resolve));
      deltas = next;
      if (closed || paused) return Promise.resolve();
      clearTimeout(retryTimer);
      source?.close();
      const reopened = new Promise<void>((resolve) => (settled = resolve));
      open();
      return reopened;
    },
    close() {
      closed = true;
      clearTimeout(retryTimer);
      clearTimeout(hiddenTimer);
      document.removeEventListener('visibilitychange', onVisibility);
      source?.close();
    },
  };
}
