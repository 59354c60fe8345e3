import { networkInterfaces } from 'node:os';

/**
 * The checks every Legion server on 127.0.0.1 makes before anything else (`legion serve` and
 * `legion mcp serve`): which `Host` values reach it and whether an `Origin` is its own. A page on
 * another site that re-points its DNS name at 127.0.0.1 arrives with its own name in `Host`; a
 * page that calls the server from another origin says so in `Origin`. No HTTP library here: the
 * MCP server loads this without the web server.
 */

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** `Host` values that reach this server: the loopback names, the `--host` given, and (listening on every address) this machine's. */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (WILDCARDS.has(host)) {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) names.add(address.family === 'IPv6' ? `[${address.address}]` : address.address);
    }
  } else names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  return new Set([...names].map((name) => `${name}:${port}`.toLowerCase()));
}

/** `http://127.0.0.1:4000` → `127.0.0.1:4000`; anything unparseable, or not http(s), matches nothing. */
export function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}

export { sameToken } from './access-token.js';
