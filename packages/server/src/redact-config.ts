import { secretsInConfig } from '@legion-collective/core/management';

const REDACTED = '[redacted]';
/** Maps whose every value may be a secret whatever its name: a server's environment, its HTTP headers. */
const OPAQUE_MAPS = new Set(['env', 'headers']);

/**
 * The config as the browser may see it: every value core counts as a secret (`secretsInConfig`:
 * keys, tokens, passwords), every value of an MCP server's `env` and `headers` (a remote agent's `headers` too), and any string
 * equal to a secret of the environment are replaced by `[redacted]`; their paths are listed.
 */
export function redactConfig(config: unknown, env: NodeJS.ProcessEnv): { config: Record<string, unknown>; redacted: string[] } {
  const copy = JSON.parse(JSON.stringify(config ?? {})) as Record<string, unknown>;
  const secretValues = new Set(
    Object.entries(env)
      .filter(([name, value]) => value !== undefined && value.length >= 8 && /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i.test(name))
      .map(([, value]) => value!),
  );
  const secrets = new Set(secretsInConfig(copy));
  const redacted = new Set<string>();
  // Replaced where they are found, not by parsing the dotted paths again: a key may hold dots
  // (remoteAgents are keyed by origin, "https://agents.example.com").
  const visit = (value: unknown, path: string, opaque: boolean): void => {
    if (value === null || typeof value !== 'object') return;
    for (const [key, item] of Object.entries(value)) {
      const itemPath = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (typeof item === 'string' && (opaque || secretValues.has(item) || secrets.has(itemPath))) {
        (value as Record<string, unknown>)[key] = REDACTED;
        redacted.add(itemPath);
      } else visit(item, itemPath, OPAQUE_MAPS.has(key));
    }
  };
  visit(copy, '', false);
  return { config: copy, redacted: [...redacted].sort() };
}
