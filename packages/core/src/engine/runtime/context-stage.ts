import type { ContextSettings, AgentParticipant } from '../../team/index.js';
import {
  renderCarryOver,
  withCarryOver,
  type CarryOver,
  compactConversation,
  fitToWindow,
  loadTokenMeasure,
  measureContext,
  type ContextUsage,
  reusesCallSignals,
} from '../../model/index.js';
import { errorMessage, LegionError } from '../../kernel/index.js';
import type { Message, Usage, TurnTrace } from '../../kernel/index.js';
import type { LLMProvider, ModelRequest, ModelResponse } from '../../model/index.js';
import { linkedSignal } from './linked-signal.js';
import { waitingParticipants } from '../../session/index.js';
import type { CompactOutcome, TurnContext } from '../../session/index.js';
import type { CompactionEntry, CompactionReason } from '../../store/index.js';
import { renderTodos, TodoFileSchema, ScratchbookFileSchema } from '../../tools/index.js';

export interface ContextStageOptions {
  turn: Pick<TurnContext, 'conversation' | 'frames' | 'session' | 'signal' | 'events' | 'trace'>;
  agent: AgentParticipant;
  settings: ContextSettings;
  /**
   * The window is known (the model table, the config, the agent's `context.window`),
   * not the guess for an unknown model: only then is a context compacted before it
   * is full, or a request cut or refused before it is sent. With a guessed window the
   * provider decides, and a too-long answer teaches the stage the real one.
   */
  windowKnown: boolean;
  /** The model that writes summaries (`settings.summarizer`'s, else the agent's). */
  summarizer: () => LLMProvider;
  onUsage: (usage: Usage, provider: LLMProvider) => Promise<void>;
}

/**
 * The context stages of one agent's model requests: compaction past
 * `summarizeAtTokens`, the state carried verbatim over every compaction, and the
 * hard cap at window − outputReserve. Far below every threshold it costs a byte
 * count and loads no tokenizer.
 */
export class ContextStage {
  /** The system prompt and tools of the requests this stage serves (set by `apply`), counted in a compaction's tokens before and after. */
  fixed: Pick<ModelRequest, 'system' | 'tools'> | undefined;

  private settings: ContextSettings;
  private windowKnown: boolean;

  constructor(private readonly options: ContextStageOptions) {
    this.settings = options.settings;
    this.windowKnown = options.windowKnown;
  }

  /**
   * The provider said the prompt was too long and named its real window (the model
   * table was wrong): from now on this stage keeps to it, with the same share reserved.
   */
  limitWindow(window: number | undefined): void {
    if (window === undefined || (this.windowKnown && window >= this.settings.window)) return;
    this.windowKnown = true;
    const outputReserve = Math.min(this.settings.outputReserve, Math.floor(window / 4));
    const usable = window - outputReserve;
    this.settings = {
      ...this.settings,
      window,
      outputReserve,
      summarizeAtTokens: Math.min(this.settings.summarizeAtTokens, usable),
      protectRecentTokens: Math.min(this.settings.protectRecentTokens, Math.floor(usable / 4)),
    };
  }

  /**
   * The request as it goes: compacted first if it passes `summarizeAtTokens`, then cut to the
   * window. Both decide by `measureContext`, the provider's reported usage for what was last sent
   * plus a count of the messages since. `relieve` is what the steps before this one did to the
   * history (pruning): a compaction made here rebuilds the request through it, so the request
   * that goes right after a compaction is pruned like any other.
   */
  async apply(request: ModelRequest, relieve?: (history: readonly Message[]) => Promise<readonly Message[]>): Promise<ModelRequest> {
    const { turn, agent } = this.options;
    const settings = this.settings;
    this.fixed = { system: request.system, tools: request.tools };
    let compaction = await turn.conversation.compaction();
    let block = compaction ? await this.carryOverText(compaction, request.messages) : undefined;
    if (!this.windowKnown) return withBlock(request, block, 0);
    const budget = settings.window - settings.outputReserve;
    let candidate = withBlock(request, block, 0);
    let usage = await this.measure(candidate);
    if (usage.bounded) return candidate;

    if (usage.total > settings.summarizeAtTokens) {
      const result = await this.compact('auto').catch((error: unknown) => {
        // A summarizer that fails leaves the context as it is: the hard cap below still keeps the request in the window.
        turn.events.emit('error:raised', {
          scope: `compaction of ${agent.id}'s context`,
          message: errorMessage(error),
          code: 'compaction_failed',
          participantId: agent.id,
          sessionId: turn.conversation.ref.sessionId,
        });
        return undefined;
      });
      if (result?.status === 'compacted') {
        compaction = result.entry;
        const history = await turn.conversation.history();
        request = { ...request, messages: [...(relieve ? await relieve(history) : history)] };
        block = await this.carryOverText(compaction, request.messages);
        candidate = withBlock(request, block, 0);
        usage = await this.measure(candidate);
      }
    }
    // Room for the note that says turns were left out.
    if (usage.total + DROPPED_NOTE_TOKENS <= budget) return candidate;
    const measure = await loadTokenMeasure();
    const extraTokens = (block ? measure.text(block) : 0) + DROPPED_NOTE_TOKENS;
    const fit = fitToWindow(request, {
      agentId: agent.id,
      window: settings.window,
      outputReserve: settings.outputReserve,
      extraTokens,
      measure,
      requestTokens: usage.total + DROPPED_NOTE_TOKENS,
    });
    return withBlock(fit.dropped > 0 ? { ...request, messages: fit.messages } : request, block, fit.dropped);
  }

  /**
   * The one token measure (`measureContext`) of a request as it would go, against what was last
   * sent in this conversation; counted only past the byte bound of the smaller of
   * `summarizeAtTokens` and the window's limit.
   */
  private measure(request: ModelRequest): Promise<ContextUsage> {
    const settings = this.settings;
    return measureContext(request, settings, {
      boundedBelow: Math.min(settings.summarizeAtTokens, settings.window - settings.outputReserve),
      sentFor: this.options.turn.conversation,
    });
  }

  /** Summarizes the older part of the context now (under the lease the caller holds) and says so in an event. */
  async compact(reason: CompactionReason): Promise<CompactOutcome> {
    const { turn, agent } = this.options;
    const settings = this.settings;
    const summarizer = this.options.summarizer();
    // The turn's signal is a spare that later serves other turns: a provider Legion does not own gets a child of it, detached once the summary is done (signal-ownership.ts).
    const own = reusesCallSignals(summarizer) ? undefined : linkedSignal(turn.signal);
    const result = await compactConversation({
      conversation: turn.conversation,
      settings,
      summarizer,
      parties: { agentId: agent.id, initiator: turn.conversation.ref.initiator, chain: waitingParticipants(turn.frames) },
      reason,
      fixed: this.fixed ?? { system: '', tools: [] },
      signal: own?.signal ?? turn.signal,
      onUsage: (usage) => this.options.onUsage(usage, summarizer),
      wrapCall: (request, run) => tracedSummary(turn.trace, summarizer, request, run),
    }).finally(() => own?.dispose());
    if (result.status === 'compacted') emitCompacted(turn, agent.id, result.entry);
    return result;
  }

  private async carryOverText(compaction: CompactionEntry, messages: ModelRequest['messages']): Promise<string> {
    return renderCarryOver(compaction, await this.gather(), new Set(messages.map((message) => message.id)));
  }

  /** The agent's state a summary must not be trusted with, read fresh for every request. */
  private async gather(): Promise<CarryOver> {
    const { turn, agent } = this.options;
    const state = turn.session.agentState;
    const todos = (await state.get('todos', agent.id, TodoFileSchema))?.items.filter((item) => item.status !== 'done') ?? [];
    const book = await state.get('scratchbook', agent.id, ScratchbookFileSchema);
    const pinned = book?.notes.filter((note) => note.pinned && note.status === 'open') ?? [];
    const conversationId = turn.conversation.ref.conversationId;
    const approvals = (await turn.session.approvals.state())
      .list({ status: 'pending' })
      .filter((view) => view.conversationId === conversationId || view.approver === agent.id)
      .map(
        (view) =>
          `${view.id}: ${view.requester} wants ${view.tool} ${JSON.stringify(view.input)} (${view.reason}); ${view.approver} decides`,
      );
    return {
      chain: [...waitingParticipants(turn.frames), agent.id],
      todos: todos.length > 0 ? renderTodos(todos) : undefined,
      pinnedNotes: pinned.length > 0 ? pinned.map((note) => `${note.id} [pinned] ${note.text}`).join('\n') : undefined,
      pendingApprovals: approvals,
    };
  }
}

/** Tokens kept for the note that says how many earlier messages the hard cap left out. */
const DROPPED_NOTE_TOKENS = 40;

/** The request with the carried-over state (and a note of what the hard cap left out) in front of its messages. */
function withBlock(request: ModelRequest, block: string | undefined, dropped: number): ModelRequest {
  const text = [dropped > 0 ? droppedNote(dropped) : undefined, block].filter((part) => part !== undefined).join('\n');
  return text === '' ? request : { ...request, messages: withCarryOver(request.messages, text, new Date().toISOString()) };
}

function droppedNote(dropped: number): string {
  return `[${dropped} earlier message${dropped === 1 ? '' : 's'} of this conversation left out: they did not fit the model's window.]`;
}

function emitCompacted(turn: ContextStageOptions['turn'], participantId: string, entry: CompactionEntry): void {
  if (!turn.events.hasListeners('context:compacted')) return;
  turn.events.emit(
    'context:compacted',
    Object.assign({}, turn.conversation.ref, {
      participantId,
      reason: entry.reason ?? 'auto',
      messageIds: {
        first: entry.compacted?.firstMessageId ?? '',
        last: entry.compacted?.lastMessageId ?? '',
        count: entry.compacted?.count ?? 0,
      },
      tokensBefore: entry.tokensBefore ?? 0,
      tokensAfter: entry.tokensAfter ?? 0,
      summarizer: entry.summarizer ?? { provider: '', model: '' },
    }),
  );
}

/** A summarizer call is a model call of the turn: a `chat` span under it, marked as compaction's. */
async function tracedSummary(
  trace: TurnTrace | undefined,
  summarizer: LLMProvider,
  request: ModelRequest,
  run: () => Promise<ModelResponse>,
): Promise<ModelResponse> {
  const chat = trace?.chat({
    provider: summarizer.name,
    model: summarizer.model,
    maxTokens: request.maxTokens,
    system: request.system,
    messages: request.messages,
  });
  if (!chat) return run();
  chat.span.setAttribute('legion.chat.purpose', 'compaction');
  try {
    const response = await chat.run(run);
    chat.answered(response, Date.now(), undefined);
    return response;
  } catch (error) {
    chat.failed(error instanceof LegionError ? error.code : 'model_failed', errorMessage(error));
    throw error;
  }
}
