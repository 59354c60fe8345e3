import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { UsageTotals } from '@legion-collective/core';

/**
 * The work's usage as ACP's `usage_update`: `used`/`size` are the entry agent's context (its last
 * request's tokens against its window), `cost` the whole delegation tree's, in USD, only when every
 * call of the tree had a known price (a sum that left calls out would understate it). ACP has no
 * field for tokens, so the tree's tokens and calls are Legion's own words, in `_meta.legion`.
 */
export function usageUpdate(total: UsageTotals, context: { used: number; size: number }): SessionUpdate {
  return {
    sessionUpdate: 'usage_update',
    used: context.used,
    size: context.size,
    ...(total.unpricedCalls === 0 ? { cost: { amount: total.costUsd, currency: 'USD' } } : {}),
    _meta: {
      legion: {
        calls: total.calls,
        inputTokens: total.inputTokens,
        outputTokens: total.outputTokens,
        cacheReadTokens: total.cacheReadTokens,
        cacheWriteTokens: total.cacheWriteTokens,
        costUsd: total.costUsd,
        unpricedCalls: total.unpricedCalls,
      },
    },
  };
}
