import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z } from 'zod';
import type { ErrorBody, ErrorCode } from './wire/errors.js';

/** A request the API refuses, with the status, the code a client branches on and a message naming the problem and the fix. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }

  body(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

/** Parses input with a wire schema; a mismatch is a 400 naming each field and what was wrong with it. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown, what: string): z.infer<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : what}: ${issue.message}`);
  throw new ApiError(400, 'bad_request', `The ${what} is not valid: ${problems.join('; ')}. See /api/openapi.json for its schema.`);
}
