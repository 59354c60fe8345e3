import { z } from 'zod';

// The one definition of model calls summed up, as every surface shows them (`session.usage()`,
// the server's `/usage`, `legion run`'s report): built only where it is validated (the vocabulary
// entry), since the engine needs the type alone.

export const UsageTotalsSchema = z.object({
  calls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  /** Sum of priced calls, in USD. */
  costUsd: z.number(),
  /** Calls whose model has no known price (their cost is not in costUsd). */
  unpricedCalls: z.number(),
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;
