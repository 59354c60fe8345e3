import type { z } from 'zod';
import { describeZodError, ConfigError } from '../../kernel/index.js';

/** Reads a stored JSON text through a schema; `undefined` with the reason when it is broken. */
export function parseRecord<T>(text: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `is not valid JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const { field, problem } = describeZodError(parsed.error, raw);
    return { ok: false, problem: field ? `field "${field}": ${problem}` : problem };
  }
  return { ok: true, value: parsed.data };
}

/** Like `parseRecord`, but a broken record throws the `ConfigError` a broken file would. */
export function readRecord<T>(text: string, schema: z.ZodType<T>, where: string, what: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError({
      file: where,
      field: '',
      problem: `is not valid JSON (${(error as Error).message})`,
      fix: `store a valid ${what}`,
      cause: error,
    });
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const { field, problem, fix } = describeZodError(parsed.error, raw);
    throw new ConfigError({ file: where, field, problem, fix: `${fix} in this ${what}`, cause: parsed.error });
  }
  return parsed.data;
}
