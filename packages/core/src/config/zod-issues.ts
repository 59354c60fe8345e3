import type { z } from 'zod';

/** The first issue of a zod error as a dotted field path and a readable problem. */
export function describeZodError(error: z.ZodError): { field: string; problem: string } {
  const issue = error.issues[0];
  if (!issue) return { field: '', problem: 'is invalid' };
  const field = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : String(part))).join('.').replace(/\.\[/g, '[');
  let problem = issue.message;
  if (issue.code === 'invalid_type') {
    problem = `expected ${issue.expected}`;
    const received = (issue as { input?: unknown }).input;
    problem += received === undefined ? ' but it is missing' : `, got ${describeValue(received)}`;
  } else if (issue.code === 'invalid_value') {
    const values = (issue as { values?: unknown[] }).values ?? [];
    problem = `expected one of ${values.map((value) => JSON.stringify(value)).join(', ')}`;
  } else if (issue.code === 'invalid_union') {
    const discriminator = (issue as { note?: string }).note;
    problem = discriminator ? `${issue.message} (${discriminator})` : issue.message;
  } else if (issue.code === 'unrecognized_keys') {
    problem = `has unknown field(s) ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}`;
  }
  return { field: field || '(root)', problem };
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
