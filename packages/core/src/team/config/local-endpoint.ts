import { isIP } from 'node:net';

/**
 * Providers that run on this machine: their models are free unless the config prices them, and a
 * model of theirs nobody knows gets a small guessed window. Its own module, light: the context
 * settings ask it at every turn, and the price book beside it loads a price dataset.
 */
const LOCAL_PROVIDERS: ReadonlySet<string> = new Set(['ollama', 'lmstudio', 'llamacpp', 'vllm', 'scripted', 'mock']);

/** Whether a model is served from this machine: a local provider, or an endpoint on a loopback address. */
export function isLocal(call: { provider: string; baseURL?: string | undefined }): boolean {
  if (LOCAL_PROVIDERS.has(call.provider)) return true;
  if (call.baseURL === undefined) return false;
  let host: string;
  try {
    host = new URL(call.baseURL).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '0:0:0:0:0:0:0:1' || /^::ffff:(127\.|7f)/i.test(host);
}
