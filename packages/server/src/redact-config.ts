import { secretsInConfig } from '@legion-collective/core/management';

const REDACTED = '[redacted]';
/** Maps whose every value may be a secret whatever its name: a server's environment, its HTTP headers. */
const OPAQUE_MAPS = new Set(['env', 'headers']);

/**
 * The config as the browser may see it: every value core counts as a secret (`secretsInConfig`:
 * keys, tokens, passwords), every value of an MCP server's `env` and `headers`, and any string
 * equal to a secret of the environment are replaced by `[redacted]`; their paths are listed.
 */
export function redactConfig(config: unknown, env: NodeJS.ProcessEnv): { config: Record<string, unknown>; redacted: string[] } {
  const copy = JSON.parse(JSON.stringify(config ?? {})) as Record<string, unknown>;
  const secretValues = new Set(
    Object.entries(env)
      .filter(([name, value]) => value !== undefined && value.length >= 8 && /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i.test(name))
      .map(([, value]) => value!),
  );
  const redacted = new Set(secretsInConfig(copy));
  const visit = (value: unknown, path: string, opaque: boolean): void => {
    if (value === null || typeof value !== 'object') return;
    for (const [key, item] of Object.entries(value)) {
      const itemPath = path ? `${path}.${key}` : key;
      if (typeof item === 'string' && (opaque || secretValues.has(item))) redacted.add(itemPath);
      else visit(item, itemPath, OPAQUE_MAPS.has(key));
    }
  };
  visit(copy, '', false);
  for (const path of redacted) setPath(copy, path, REDACTED);
  return { config: copy, redacted: [...redacted].sort() };
}

/** Sets `a.b[2].c` in place. */
function setPath(target: Record<string, unknown>, path: string, value: string): void {
  const keys = path.split(/\.|\[(\d+)\]/).filter((key) => key !== undefined && key !== '');
  let node: unknown = target;
  for (const key of keys.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string, unknown>)[key];
  }
  const last = keys.at(-1);
  if (last !== undefined && node !== null && typeof node === 'object') (node as Record<string, unknown>)[last] = value;
}
