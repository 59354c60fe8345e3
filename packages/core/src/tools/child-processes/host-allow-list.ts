import { isIP } from 'node:net';
import { canonicalHost } from '../../team/index.js';

/**
 * The entry of `allow` that lets a sandboxed command reach `host`, or undefined: an exact name or
 * address, or `*.suffix` for the names under `suffix` (not `suffix` itself, as in Anthropic's
 * sandbox runtime: list both to allow both). An IP address matches only itself, listed as an
 * address: no wildcard reaches one, and `localhost` listed does not let `127.0.0.1` in.
 */
export function allowingEntry(host: string, allow: readonly string[]): string | undefined {
  const wanted = canonicalHost(host);
  if (wanted === '') return undefined;
  const address = isIP(wanted) !== 0;
  return allow.find((entry) => {
    const pattern = canonicalHost(entry);
    if (pattern.startsWith('*.')) return !address && wanted.endsWith(pattern.slice(1));
    return pattern === wanted;
  });
}

/** The loopback names and addresses, which NO_PROXY sends past the proxy to the sandbox's own loopback unless the list names them. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'] as const;

/**
 * NO_PROXY for a command with this allow-list: the sandbox's own loopback (a server the same
 * command started) is reached directly; a loopback name the list names means the host's, through the proxy.
 */
export function directHosts(allow: readonly string[]): string {
  return LOOPBACK_HOSTS.filter((host) => allowingEntry(host, allow) === undefined).join(',');
}
