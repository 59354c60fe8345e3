import { LegionError } from '@legion-collective/core';

/**
 * Dotted config keys: `limits.maxDepth`, `providers.openai.baseURL`, and
 * bracketed parts for names with dots in them: `pricing["gpt-4.1"].input`.
 */
export function parseKey(key: string): string[] {
  const parts: string[] = [];
  const pattern = /\["([^"\]]+)"\]|([^.[\]]+)|(\.)/y;
  let position = 0;
  let afterDot = true;
  let valid = key.length > 0;
  while (valid && position < key.length) {
    pattern.lastIndex = position;
    const match = pattern.exec(key);
    if (!match) valid = false;
    else if (match[3] !== undefined) valid = !afterDot && (afterDot = true);
    else if (match[2] !== undefined && !afterDot) valid = false;
    else {
      parts.push(match[1] ?? match[2]!);
      afterDot = false;
    }
    position = pattern.lastIndex;
  }
  if (!valid || afterDot) {
    throw new LegionError(
      'config_key_invalid',
      `"${key}" is not a config key: write it as dotted names (limits.maxDepth), with ["…"] around a name that holds dots (pricing["gpt-4.1"].input).`,
    );
  }
  return parts;
}

export function formatKey(parts: readonly string[]): string {
  return parts.map((part, index) => (/^[A-Za-z0-9_*:-]+$/.test(part) ? `${index === 0 ? '' : '.'}${part}` : `["${part}"]`)).join('');
}

/** Every leaf of a JSON value by its key parts; arrays are leaves (set whole). */
export function leaves(value: unknown, prefix: string[] = []): Array<[string[], unknown]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return prefix.length === 0 ? [] : [[prefix, value]];
  const entries = Object.entries(value);
  if (entries.length === 0 && prefix.length > 0) return [[prefix, value]];
  return entries.flatMap(([key, item]) => leaves(item, [...prefix, key]));
}

export function getAt(value: unknown, parts: readonly string[]): unknown {
  let current = value;
  for (const part of parts) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A copy of `value` with `parts` set, creating objects on the way; a non-object in the way is an error. */
export function setAt(value: Record<string, unknown>, parts: readonly string[], leaf: unknown): Record<string, unknown> {
  const [head, ...rest] = parts;
  if (head === undefined) return value;
  if (rest.length === 0) return { ...value, [head]: leaf };
  const child = value[head];
  if (child !== undefined && (child === null || typeof child !== 'object' || Array.isArray(child))) {
    throw new LegionError('config_key_invalid', `"${head}" holds ${JSON.stringify(child)}, not an object, so it has no "${rest[0]}".`);
  }
  return { ...value, [head]: setAt((child as Record<string, unknown> | undefined) ?? {}, rest, leaf) };
}

/** A command-line value: JSON when it parses as JSON (5, true, ["a"], {"x":1}, "quoted"), the text itself otherwise. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
