import type { LegionErrorCode } from '@legion-collective/core/vocabulary';
import { z } from 'zod';

/**
 * Every error the API answers with: a stable `code` a client can branch on, and a message that
 * names the problem and the fix (shown to the user as it is). Each is a code of core's catalogue
 * (`LEGION_ERROR_CODES`, seen on `api`), which says what it means and its status.
 */
export const ErrorCodeSchema = z.enum([
  'bad_request',
  'unauthorized',
  'forbidden_origin',
  'wrong_host',
  'unsupported_media_type',
  'payload_too_large',
  'not_found',
  'conversation_busy',
  'already_answered',
  'not_an_agent',
  'claim_not_found',
  'internal',
] as const satisfies readonly LegionErrorCode[]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export const ErrorBodySchema = z.object({
  error: z.object({ code: ErrorCodeSchema, message: z.string() }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The answer of a question or approval that was recorded (a second answer gets 409 `already_answered`). */
export const AnsweredResponseSchema = z.object({ status: z.literal('answered') });
export type AnsweredResponse = z.infer<typeof AnsweredResponseSchema>;
