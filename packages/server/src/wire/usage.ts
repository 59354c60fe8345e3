import { UsageTotalsSchema } from '@legion-collective/core/vocabulary';
import { z } from 'zod';

/** Model calls summed up. `costUsd` is null when none of the calls had a known price. */
export const TotalsSchema = UsageTotalsSchema.extend({ costUsd: UsageTotalsSchema.shape.costUsd.nullable() });
export type Totals = z.infer<typeof TotalsSchema>;

/** `GET /api/sessions/:id/usage`: `own` is a participant's own calls; `withDelegates` adds everything done on its behalf. */
export const SessionUsageResponseSchema = z.object({
  total: TotalsSchema,
  participants: z.array(z.object({ id: z.string(), own: TotalsSchema, withDelegates: TotalsSchema })),
  conversations: z.array(z.object({ id: z.string(), totals: TotalsSchema })),
});
export type SessionUsageResponse = z.infer<typeof SessionUsageResponseSchema>;
