import { z } from 'zod';
import { UsageSchema, type Usage } from '../../kernel/index.js';
import type { UsageTotals } from './usage-totals.js';

/** One model call, as the session's usage ledger records it. */
export const UsageRecordSchema = z.lazy(() =>
  z.object({
    version: z.literal(1),
    at: z.string(),
    participantId: z.string(),
    conversationId: z.string(),
    /** Who was waiting on this call, outermost first: their totals include it. */
    chain: z.array(z.string()),
    provider: z.string(),
    model: z.string(),
    usage: UsageSchema,
    costUsd: z.number().nullable(),
    /** The delegation tree (one message's work) whose agent loop made this call; a resumed tree is recounted from these. */
    tree: z.string().optional(),
    /** The `communicate` call whose delegated turn made this call (none for the turn that answers the message itself). */
    delegation: z.string().optional(),
    /**
     * The call ended (cancelled, or broken off) after the model had started answering but before the
     * provider reported its usage: the counts are Legion's estimate of what was paid for.
     */
    estimated: z.literal(true).optional(),
  }),
);
export type UsageRecord = z.infer<typeof UsageRecordSchema>;

export type { UsageTotals };

export interface UsageSummary {
  total: UsageTotals;
  /** `own`: the participant's own model calls; `withDelegates`: plus everything done on its behalf down the delegation tree. */
  byParticipant: Record<string, { own: UsageTotals; withDelegates: UsageTotals }>;
  byConversation: Record<string, UsageTotals>;
}

export function emptyTotals(): UsageTotals {
  return { calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, unpricedCalls: 0 };
}

/** Adds one call to running totals. */
export function addUsage(totals: UsageTotals, usage: Usage, costUsd: number | null): void {
  totals.calls += 1;
  totals.inputTokens += usage.inputTokens;
  totals.outputTokens += usage.outputTokens;
  totals.cacheReadTokens += usage.cacheReadTokens ?? 0;
  totals.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
  if (costUsd === null) totals.unpricedCalls += 1;
  else totals.costUsd += costUsd;
}

/** A summary of no calls yet. */
export function emptySummary(): UsageSummary {
  return { total: emptyTotals(), byParticipant: {}, byConversation: {} };
}

/** Adds one call to a summary: the total, its conversation, its participant's own, and every participant it was done for. */
export function addRecord(summary: UsageSummary, record: UsageRecord): void {
  addUsage(summary.total, record.usage, record.costUsd);
  addUsage((summary.byConversation[record.conversationId] ??= emptyTotals()), record.usage, record.costUsd);
  const participant = (id: string) => (summary.byParticipant[id] ??= { own: emptyTotals(), withDelegates: emptyTotals() });
  addUsage(participant(record.participantId).own, record.usage, record.costUsd);
  const counted = new Set<string>();
  for (const id of [...record.chain, record.participantId]) {
    if (counted.has(id)) continue;
    counted.add(id);
    addUsage(participant(id).withDelegates, record.usage, record.costUsd);
  }
}

/** Rolls records up per participant (own and with delegates), per conversation, and in total. */
export function summarizeUsage(records: Iterable<UsageRecord>): UsageSummary {
  const summary = emptySummary();
  for (const record of records) addRecord(summary, record);
  return summary;
}
