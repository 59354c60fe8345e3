import { redirectSafeFetch } from '../../../model/index.js';
import { MAX_CAPTURED_BYTES } from './bounded-output.js';

export interface HttpCall {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | undefined;
  signal: AbortSignal;
  timeoutMs: number;
}

export type HttpOutcome =
  | { kind: 'response'; status: number; statusText: string; body: string; truncatedBytes: number }
  | { kind: 'failure'; problem: string; stopped?: 'timeout' | 'aborted' | undefined };

/**
 * Sends one request and reads at most MAX_CAPTURED_BYTES of the answer (the
 * rest is cancelled, not downloaded), so an endless or huge response cannot
 * hold the tool past its purpose.
 *
 * Redirects are followed by redirect-safe-fetch.ts, so one to another origin
 * carries none of the tool's own headers (Node's fetch keeps all but
 * Authorization and Cookie: an `X-Api-Key` from the tool file would follow
 * the redirect).
 */
export async function sendHttp(call: HttpCall): Promise<HttpOutcome> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = AbortSignal.any([call.signal, timeout]);
  const stoppedBy = (): 'timeout' | 'aborted' | undefined => (call.signal.aborted ? 'aborted' : timeout.aborted ? 'timeout' : undefined);
  let response: Response;
  try {
    response = await redirectSafeFetch(call.url, { method: call.method, headers: call.headers, body: call.body, signal });
  } catch (error) {
    return { kind: 'failure', problem: describeFetchError(error), stopped: stoppedBy() };
  }
  try {
    const { text, truncatedBytes } = await readLimited(response, MAX_CAPTURED_BYTES);
    return { kind: 'response', status: response.status, statusText: response.statusText, body: text, truncatedBytes };
  } catch (error) {
    return { kind: 'failure', problem: `reading the response failed: ${describeFetchError(error)}`, stopped: stoppedBy() };
  }
}

async function readLimited(response: Response, limit: number): Promise<{ text: string; truncatedBytes: number }> {
  if (!response.body) return { text: '', truncatedBytes: 0 };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncatedBytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = limit - bytes;
    if (value.length > room) {
      chunks.push(value.subarray(0, room));
      bytes += room;
      truncatedBytes = value.length - room;
      // Stop downloading: what was cut is reported as "at least N bytes".
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    bytes += value.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncatedBytes };
}

/** fetch hides the reason (`ECONNREFUSED`, a DNS failure, "redirect count exceeded") in `cause`. */
function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  if (cause?.code)
    return cause.message?.includes(cause.code) ? cause.message : `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  if (error.message === 'fetch failed' && cause?.message) return `fetch failed: ${cause.message}`;
  return error.message;
}
