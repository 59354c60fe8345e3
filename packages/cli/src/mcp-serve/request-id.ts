/**
 * The `id` of a JSON-RPC request from the start of its text, when it is there: the value of the
 * key `id` of the top-level object (a nested `"id"`, inside `params`, is not it), a string or an
 * integer. Undefined when the start holds no such key, or ends before its value does. Used to
 * answer a message too large to read, so its sender's request fails at once instead of waiting.
 */
export function leadingRequestId(text: string): string | number | undefined {
  let index = skipSpace(text, 0);
  if (text[index] !== '{') return undefined;
  let depth = 0;
  /** At depth 1, right after `{` or `,`: the next string is a key. */
  let atKey = false;
  for (; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      const end = stringEnd(text, index);
      if (end === undefined) return undefined;
      if (depth === 1 && atKey) {
        const key = parseString(text.slice(index, end + 1));
        const colon = skipSpace(text, end + 1);
        if (text[colon] !== ':') return undefined;
        if (key === 'id') return idValue(text, skipSpace(text, colon + 1));
        index = colon;
        atKey = false;
        continue;
      }
      index = end;
      continue;
    }
    if (char === '{' || char === '[') {
      depth++;
      atKey = depth === 1;
    } else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return undefined;
    } else if (char === ',') atKey = depth === 1;
  }
  return undefined;
}

function skipSpace(text: string, from: number): number {
  let index = from;
  while (index < text.length && ' \t\r\n'.includes(text[index]!)) index++;
  return index;
}

/** The index of the quote that closes the string opening at `start`, or undefined when the text ends first. */
function stringEnd(text: string, start: number): number | undefined {
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index;
  }
  return undefined;
}

function idValue(text: string, start: number): string | number | undefined {
  if (text[start] === '"') {
    const end = stringEnd(text, start);
    if (end === undefined) return undefined;
    return parseString(text.slice(start, end + 1));
  }
  const number = /^-?\d+(?=\s*[,}])/.exec(text.slice(start, start + 32))?.[0];
  return number === undefined ? undefined : Number(number);
}

/** A JSON string literal's value; undefined when it is not a valid one (a bad escape). */
function parseString(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
