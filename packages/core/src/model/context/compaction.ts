import type { ContextSettings } from '../../team/index.js';
import type { Message, Usage } from '../../kernel/index.js';
import { textOf } from '../../kernel/index.js';
import type { LLMProvider, ModelRequest } from '../providers/llm-provider.js';
import type { CompactOutcome, TurnConversation } from '../../session/index.js';
import type { CarriedMessage, CompactionEntry, CompactionReason } from '../../store/index.js';
import { compactionCut, isTurnStart } from './compaction-cut.js';
import { summarize, type SummaryParties, type SummarizerCallWrapper } from './compaction-summary.js';
import { loadTokenMeasure } from './context-tokens.js';

export interface CompactOptions {
  conversation: TurnConversation;
  settings: ContextSettings;
  /** The model that writes the summary: `settings.summarizer`'s, or the agent's own. */
  summarizer: LLMProvider;
  parties: SummaryParties;
  reason: CompactionReason;
  /** The agent's system prompt and tools, counted in the tokens before and after. */
  fixed: Pick<ModelRequest, 'system' | 'tools'>;
  signal?: AbortSignal | undefined;
  onUsage?: ((usage: Usage) => Promise<void>) | undefined;
  wrapCall?: SummarizerCallWrapper | undefined;
}

/**
 * Summarizes the older part of the conversation's context and appends a compaction
 * entry: at a turn start (never inside a turn, never between a tool call and its
 * result), keeping the protected recent part. The full history stays in the log.
 * Runs under the conversation's lease (a turn's, or `Conversation.compactNow`'s).
 */
export async function compactConversation(options: CompactOptions): Promise<CompactOutcome> {
  const { conversation, settings, parties } = options;
  const history = await conversation.history();
  const previous = await conversation.compaction();
  const measure = await loadTokenMeasure();
  const cut = compactionCut(history, measure.message, settings.protectRecentTokens, options.reason !== 'auto');
  if (cut === undefined) {
    return {
      status: 'nothing',
      why:
        history.length === 0
          ? 'the conversation has no messages to compact'
          : 'everything in the context is its newest turn (or the protected recent part)',
    };
  }
  const summarized = history.slice(0, cut);
  const kept = history.slice(cut);
  const carriedTokens = (entry: CompactionEntry | undefined): number =>
    entry ? measure.text(entry.summary) + entry.carried.reduce((sum, message) => sum + measure.text(message.text), 0) : 0;
  const tokensBefore = measure.request({ ...options.fixed, messages: history }) + carriedTokens(previous);
  const summary = await summarize({
    provider: options.summarizer,
    parties,
    previousSummary: previous?.summary,
    messages: summarized,
    inputBudget: settings.window - settings.outputReserve,
    maxTokens: Math.min(settings.outputReserve, 4_096),
    measure,
    signal: options.signal,
    onUsage: options.onUsage,
    wrapCall: options.wrapCall,
  });
  const first = summarized[0]!;
  const last = summarized.at(-1)!;
  const entry: CompactionEntry = {
    kind: 'compaction',
    at: new Date().toISOString(),
    summary,
    throughMessageId: last.id,
    keptMessages: kept.length,
    compacted: { firstMessageId: first.id, lastMessageId: last.id, count: summarized.length },
    summarizer: { provider: options.summarizer.name, model: options.summarizer.model },
    reason: options.reason,
    carried: carriedMessages(previous?.carried ?? [], summarized, kept, settings.keepRecentMessages),
  };
  entry.tokensBefore = tokensBefore;
  entry.tokensAfter = measure.request({ ...options.fixed, messages: kept }) + carriedTokens(entry);
  return { status: 'compacted', entry: await conversation.compact(entry) };
}

/** The last `keep` messages the agent was sent (initiator's, not tool results), those not kept in the context anyway. */
function carriedMessages(
  before: readonly CarriedMessage[],
  summarized: readonly Message[],
  kept: readonly Message[],
  keep: number,
): CarriedMessage[] {
  if (keep === 0) return [];
  const sent = (messages: readonly Message[]): CarriedMessage[] =>
    messages.filter(isTurnStart).map((message) => ({ messageId: message.id, at: message.at, text: textOf(message) }));
  const keptIds = new Set(kept.map((message) => message.id));
  return [...before, ...sent(summarized), ...sent(kept)].slice(-keep).filter((message) => !keptIds.has(message.messageId));
}
