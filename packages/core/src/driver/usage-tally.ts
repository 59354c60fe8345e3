import type { LegionEvent } from '../kernel/index.js';
import { addRecord, emptySummary, type UsageRecord, type UsageSummary } from '../store/index.js';

type UsageReport = Extract<LegionEvent, { type: 'usage:report' }>;

/** A `usage:report` event as the ledger's record (no time: a tally counts, it does not store). */
export function usageRecordOf(event: UsageReport): UsageRecord {
  const { participantId, conversationId, chain, provider, model, usage, costUsd } = event;
  return { version: 1, at: '', participantId, conversationId, chain: [...chain], provider, model, usage, costUsd };
}

/**
 * Tokens and cost of a piece of work as it happens: in total, per participant (its own calls and
 * everything done for it down its delegation subtree) and per conversation. What every surface
 * showed a turn's cost with; the session's whole ledger is `session.usage()`.
 */
export class UsageTally {
  readonly summary: UsageSummary = emptySummary();

  add(record: UsageRecord): void {
    addRecord(this.summary, record);
  }

  addEvent(event: UsageReport): void {
    this.add(usageRecordOf(event));
  }

  get total(): UsageSummary['total'] {
    return this.summary.total;
  }
}
