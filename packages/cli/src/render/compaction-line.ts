import { groupedNumber } from '@legion-collective/core';
import type { CompactOutcome } from '@legion-collective/core';

/** What `legion compact` and `/compact` say a compaction did. */
export function compactionLine(conversationId: string, outcome: CompactOutcome): string {
  if (outcome.status === 'nothing') return `Nothing to compact in ${conversationId}: ${outcome.why}.`;
  const { entry } = outcome;
  const count = entry.compacted?.count ?? 0;
  const by = entry.summarizer ? ` by ${entry.summarizer.provider}/${entry.summarizer.model}` : '';
  const tokens =
    entry.tokensBefore !== undefined && entry.tokensAfter !== undefined
      ? `; context ${groupedNumber(entry.tokensBefore)} → ${groupedNumber(entry.tokensAfter)} tokens`
      : '';
  return `Compacted ${conversationId}: ${count} message${count === 1 ? '' : 's'} summarized${by}${tokens}. The full history stays in the log (legion log).`;
}
