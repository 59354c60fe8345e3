import { isIP } from 'node:net';
import { z } from 'zod';

/** One DNS label: letters, digits, hyphens inside, and the underscore some service names use. */
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_NAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);

/**
 * A host as the proxy compares it: lower case, without a trailing dot or an IPv6 literal's
 * brackets, an IP address in its canonical form (the URL parser's: `127.1` and `0x7f.0.0.1` are
 * `127.0.0.1`), so that no spelling of an address slips past a list that does not name it.
 */
export function canonicalHost(host: string): string {
  const bare = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (isIP(bare) === 6) return new URL(`http://[${bare}]`).hostname.slice(1, -1);
  try {
    const parsed = new URL(`http://${bare}`).hostname;
    return isIP(parsed) === 4 ? parsed : bare;
  } catch {
    return bare;
  }
}

/** Whether `pattern` is a host name, `*.` and a host name (its subdomains), or an IP address. */
export function isHostPattern(pattern: string): boolean {
  const host = pattern.toLowerCase();
  if (isIP(host.replace(/^\[(.*)\]$/, '$1')) !== 0) return true;
  const name = host.startsWith('*.') ? host.slice(2) : host;
  // A wildcard over addresses (`*.0.1`) would read as one and match none: refused rather than silently useless.
  return HOST_NAME.test(name.replace(/\.$/, '')) && !(host.startsWith('*.') && /^[\d.]+$/.test(name));
}

export const HostPatternSchema = z
  .string()
  .refine(isHostPattern, { message: 'a host name ("registry.npmjs.org"), "*." and a host name ("*.github.com") or an IP address' });

/**
 * The network of sandboxed commands (the `sandboxNetwork` config key): `off` (none at all, the
 * host's 127.0.0.1 included), `on` (the host's, whole), or `{ "allow": [hosts] }`: still no network
 * of their own, HTTP and HTTPS through Legion's proxy to the hosts listed only (any port).
 */
export const SandboxNetworkSchema = z.union([z.enum(['off', 'on']), z.object({ allow: z.array(HostPatternSchema).min(1) }).strict()]);
export type SandboxNetwork = z.infer<typeof SandboxNetworkSchema>;
