import type { Limits } from '../../team/index.js';
import { SessionBudgetExceededError } from '../../kernel/index.js';
import type { ToolSession } from '../../session/index.js';
import type { UsageTotals } from '../../store/index.js';

/** Every token a provider processed for the session: what `limits.maxSessionTokens` counts. */
export function sessionTokens(totals: UsageTotals): number {
  return totals.inputTokens + totals.outputTokens + totals.cacheReadTokens + totals.cacheWriteTokens;
}

/**
 * Checked before each model call: the error that stops it when the session has
 * reached `limits.maxSessionCostUsd` or `limits.maxSessionTokens`. Without
 * either limit it reads nothing. Calls to models without a known price count
 * for their tokens but add nothing to the cost (no price is guessed); the error
 * says how many there were.
 */
export async function sessionBudgetError(
  session: ToolSession,
  participantId: string,
  limits: Limits,
): Promise<SessionBudgetExceededError | undefined> {
  const { maxSessionCostUsd, maxSessionTokens } = limits;
  if (maxSessionCostUsd === undefined && maxSessionTokens === undefined) return undefined;
  const totals = await session.usageTotals();
  if (maxSessionCostUsd !== undefined && totals.costUsd >= maxSessionCostUsd) {
    return new SessionBudgetExceededError(
      session.id,
      participantId,
      { field: 'maxSessionCostUsd', value: maxSessionCostUsd, spent: totals.costUsd },
      totals.unpricedCalls,
    );
  }
  const tokens = sessionTokens(totals);
  if (maxSessionTokens !== undefined && tokens >= maxSessionTokens) {
    return new SessionBudgetExceededError(
      session.id,
      participantId,
      { field: 'maxSessionTokens', value: maxSessionTokens, spent: tokens },
      totals.unpricedCalls,
    );
  }
  return undefined;
}
