import type { z } from 'zod';

export interface ZodProblem {
  /** Dotted path of the offending field (`responses[0].trigger`), or `(root)`. */
  field: string;
  /** What is wrong, phrased to follow the field name: `expected a string, got the number 5`. */
  problem: string;
  /** What to do about it: `set "name" to a string`. */
  fix: string;
}

type Issue = z.core.$ZodIssue;
type PathPart = PropertyKey;

/**
 * The first issue of a zod error as a dotted field path, a readable problem and
 * a fix. Pass the parsed `input` (the whole value given to `safeParse`) so that
 * the problem can say what was found there, even without `reportInput`, and can
 * tell a missing field from a wrong one.
 */
export function describeZodError(error: z.ZodError, ...input: [] | [unknown]): ZodProblem {
  const issue = error.issues[0];
  if (!issue) return { field: '(root)', problem: 'is invalid', fix: 'correct the value' };
  const received = receivedValue(issue, input);
  const got = received.kind === 'value' ? `, got ${describeValue(received.value)}` : '';
  const path = issue.path as PathPart[];
  const field = formatPath(path) || '(root)';
  switch (issue.code) {
    case 'invalid_type': {
      const expected = describeType(issue.expected);
      if (received.kind === 'missing') {
        return { field, problem: `is missing; expected ${expected}`, fix: `add "${field}" with ${expected}` };
      }
      return {
        field,
        problem: `expected ${expected}${got}`,
        fix: field === '(root)' ? `make the whole value ${expected}` : `set "${field}" to ${expected}`,
      };
    }
    case 'invalid_value': {
      const expected = oneOf(issue.values);
      return { field, problem: `expected ${expected}${got}`, fix: `set "${field}" to ${expected}` };
    }
    case 'invalid_union': {
      const options = unionOptions(issue);
      if (!options) break;
      const missing = received.kind === 'missing';
      return {
        field,
        problem: missing ? `is missing; expected ${options}` : `expected ${options}${got}`,
        fix: missing ? `add "${field}" with ${options}` : `set "${field}" to ${options}`,
      };
    }
    case 'unrecognized_keys': {
      const keys = issue.keys;
      const unknownField = formatPath([...path, keys[0] ?? '']);
      if (keys.length <= 1) {
        return { field: unknownField, problem: 'is not a known field', fix: `remove "${unknownField}" or correct its spelling` };
      }
      const quoted = keys.map((key) => JSON.stringify(formatPath([...path, key])));
      const others = quoted.slice(1);
      return {
        field: unknownField,
        problem: `is not a known field (nor ${others.length === 1 ? 'is' : 'are'} ${others.join(', ')})`,
        fix: `remove ${quoted.join(', ')} or correct their spelling`,
      };
    }
    case 'too_small':
    case 'too_big': {
      const bound = describeBound(issue);
      if (!bound) break;
      return { field, problem: `expected ${bound}${got}`, fix: `set "${field}" to ${bound}` };
    }
    case 'invalid_format': {
      const expected = issue.format === 'url' ? 'a URL such as "https://example.com/v1"' : `a valid ${issue.format}`;
      return { field, problem: `expected ${expected}${got}`, fix: `set "${field}" to ${expected}` };
    }
    default:
      break;
  }
  // Custom refinements already say what they expect ("expected an id of …").
  const message = issue.message;
  return { field, problem: `${message}${got}`, fix: `correct "${field}" (${message.replace(/^expected /, 'it must be ')})` };
}

type Received = { kind: 'value'; value: unknown } | { kind: 'missing' } | { kind: 'unknown' };

function receivedValue(issue: Issue, input: [] | [unknown]): Received {
  if (input.length === 1) return lookup(input[0], issue.path as PathPart[]);
  if (!('input' in issue)) return { kind: 'unknown' };
  // With `reportInput`, a missing field reports `input: undefined` (JSON has no undefined).
  const value = (issue as { input?: unknown }).input;
  if (issue.code === 'invalid_union' && 'discriminator' in issue) {
    // A discriminated union reports the whole object; the discriminator is what was wrong.
    const key = (issue as { discriminator?: string }).discriminator;
    if (key !== undefined && value !== null && typeof value === 'object') {
      return key in value ? { kind: 'value', value: (value as Record<string, unknown>)[key] } : { kind: 'missing' };
    }
  }
  return value === undefined ? { kind: 'missing' } : { kind: 'value', value };
}

function lookup(root: unknown, path: readonly PathPart[]): Received {
  let current = root;
  for (const part of path) {
    if (current === null || typeof current !== 'object' || typeof part === 'symbol' || !(part in current)) return { kind: 'missing' };
    current = (current as Record<string | number, unknown>)[part];
  }
  return current === undefined ? { kind: 'missing' } : { kind: 'value', value: current };
}

function formatPath(path: readonly PathPart[]): string {
  return path
    .map((part) => (typeof part === 'number' ? `[${part}]` : String(part)))
    .join('.')
    .replace(/\.\[/g, '[');
}

function describeType(expected: string): string {
  switch (expected) {
    case 'int':
      return 'an integer';
    case 'array':
    case 'object':
      return `an ${expected}`;
    case 'undefined':
      return 'nothing (remove the field)';
    default:
      return `a ${expected}`;
  }
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((value) => (typeof value === 'bigint' ? String(value) : JSON.stringify(value)));
  return shown.length === 1 ? (shown[0] ?? '') : `one of ${shown.join(', ')}`;
}

/** The alternatives of a union: the discriminator's values, else each branch's own expectation. */
function unionOptions(issue: Extract<Issue, { code: 'invalid_union' }>): string | undefined {
  const discriminatorValues = (issue as { options?: unknown[] }).options;
  if (Array.isArray(discriminatorValues) && discriminatorValues.length > 0) return oneOf(discriminatorValues);
  const alternatives: string[] = [];
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first || first.path.length > 0) return undefined;
    if (first.code === 'invalid_value') alternatives.push(...first.values.map((value) => JSON.stringify(value)));
    else if (first.code === 'invalid_type') alternatives.push(describeType(first.expected));
    else return undefined;
  }
  if (alternatives.length === 0) return undefined;
  if (alternatives.length === 1) return alternatives[0];
  return `${alternatives.slice(0, -1).join(', ')} or ${alternatives[alternatives.length - 1]}`;
}

function describeBound(issue: Extract<Issue, { code: 'too_small' | 'too_big' }>): string | undefined {
  const small = issue.code === 'too_small';
  const limit = Number(small ? (issue as { minimum: number | bigint }).minimum : (issue as { maximum: number | bigint }).maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'string':
      if (small && limit === 1) return 'a non-empty string';
      return `a string of ${small ? 'at least' : 'at most'} ${limit} character${limit === 1 ? '' : 's'}`;
    case 'array':
    case 'set':
      if (small && limit === 1) return 'a non-empty list';
      return `a list of ${small ? 'at least' : 'at most'} ${limit} item${limit === 1 ? '' : 's'}`;
    case 'number':
    case 'int':
    case 'bigint':
      if (small && limit === 0 && !inclusive) return 'a number greater than 0';
      return `a number ${small ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<'} ${limit}`;
    default:
      return undefined;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `the ${typeof value} ${String(value)}`;
}
