import type { ContextSettings, ResolvedConfig } from '../../team/index.js';
import { PriceBook, costOf } from '../../team/index.js';
import { measureContext } from '../../model/index.js';
import type { Usage } from '../../kernel/index.js';
import type { CallProgress, LLMProvider, ModelRequest } from '../../model/index.js';
import { waitingParticipants, delegationOf, treeOf } from '../../session/index.js';
import type { TurnContext } from '../../session/index.js';
import type { DelegationFrame, UsageRecord } from '../../store/index.js';

/** The turn a model call belongs to, as far as its usage record needs it. */
export type UsageTurn = Pick<TurnContext, 'conversation' | 'frames' | 'session' | 'events'>;

/**
 * The usage ledger's side of the agent loop: what each model call cost, priced from the
 * config or the list prices, recorded in the session and reported as `usage:report`.
 */
export class UsageRecorder {
  /** List prices load on the first call to a model that needs one; config prices and local models never load them. */
  private readonly prices: PriceBook;

  constructor(pricing: () => ResolvedConfig['pricing']) {
    this.prices = new PriceBook(pricing);
  }

  /** Starts loading the list price of this provider's model, if it needs one (see `loop-fast-paths.ts`, `prefetchPriceWhileAnswering`). */
  prefetch(provider: LLMProvider): void {
    this.prices.prefetch({ provider: provider.name, model: provider.model, baseURL: provider.baseURL });
  }

  /**
   * Records a model call's usage; its cost (null: no known price). A call of the agent loop names the
   * delegation tree it counted against (`tree`), so a tree resumed elsewhere is recounted from the ledger.
   */
  async record(
    turn: UsageTurn,
    participantId: string,
    provider: LLMProvider,
    usage: Usage,
    tree?: readonly DelegationFrame[],
    estimated = false,
  ): Promise<number | null> {
    const { name: providerName, model } = provider;
    const quote = this.prices.quote({ provider: providerName, model, baseURL: provider.baseURL });
    const cost = costOf(usage, (quote instanceof Promise ? await quote : quote).price);
    const record: UsageRecord = {
      version: 1,
      at: new Date().toISOString(),
      participantId,
      conversationId: turn.conversation.ref.conversationId,
      chain: waitingParticipants(turn.frames),
      provider: providerName,
      model,
      usage,
      costUsd: cost ?? null,
      tree: tree && treeOf(tree),
      delegation: tree && delegationOf(tree),
      ...(estimated ? { estimated: true as const } : {}),
    };
    await turn.session.recordUsage(record);
    turn.events.emit(
      'usage:report',
      Object.assign({}, turn.conversation.ref, {
        participantId,
        chain: record.chain,
        usage,
        provider: providerName,
        model,
        costUsd: record.costUsd,
      }),
    );
    return record.costUsd;
  }

  /**
   * A call that ended (cancelled, or broken off) after the model started answering was paid for, but
   * the provider never reported its usage: it is counted as Legion estimates it (the request as the
   * context budget measures it, the answer so far at ~4 characters a token) and marked `estimated`,
   * so a cancelled turn does not report "0 tokens · $0".
   */
  async recordUnreported(
    turn: UsageTurn,
    participantId: string,
    context: ContextSettings,
    provider: LLMProvider,
    request: ModelRequest,
    progress: CallProgress,
  ): Promise<void> {
    try {
      const measured = await measureContext(request, context, { exact: true, sentFor: turn.conversation });
      await this.record(
        turn,
        participantId,
        provider,
        { inputTokens: measured.total, outputTokens: Math.ceil(progress.outputChars / 4) },
        turn.frames,
        true,
      );
    } catch {
      // The turn's own error is what its caller must hear; a ledger that cannot take the estimate now loses only the estimate.
    }
  }
}
