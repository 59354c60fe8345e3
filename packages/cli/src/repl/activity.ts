import { UsageTally, type LegionEvent, type EventBus, type ToolResultBlock, type ToolUseBlock } from '@legion-collective/core';
import { styleFor } from '../render/style.js';
import { clip, formatCost, formatDuration, formatTokens, keyArgument, outcomeOf } from './format.js';
import type { Screen } from './screen.js';
import { inert, inertLine } from '../render/terminal-text.js';

const style = styleFor(process.stdout);

/** A finished tool call, kept so the user can expand the last one. */
export interface FinishedCall {
  participantId: string;
  toolUse: ToolUseBlock;
  result: ToolResultBlock;
  durationMs: number;
}

/**
 * Turns the engine's events into what the terminal shows: streamed text as it
 * arrives, one line per finished tool call or delegation, and the status line
 * (who is working, elapsed, tokens and cost of this turn with its delegates).
 */
export class Activity {
  private readonly streams = new Map<string, ReturnType<Screen['openStream']>>();
  /** Conversations whose current reply arrived as deltas, so the final reply is not printed twice. */
  readonly streamed = new Set<string>();
  /** Who answers the user in the running turn: their failure is the turn's result, which the REPL reports itself. */
  private readonly answering = new Set<string>();
  /** Working participants by conversation id (parallel delegates each have their own). */
  private readonly working = new Map<string, string>();
  private readonly running = new Map<string, { participantId: string; toolUse: ToolUseBlock }>();
  /** `communicate` calls waiting for a slot (limits.maxParallelDelegates), by tool_use id. */
  private readonly queued = new Set<string>();
  private turnStartedAt: number | undefined;
  /** When the turn was cancelled (`stopTurn`): its time ends there, its cost when it has unwound. */
  private stoppedAt: number | undefined;
  /** The running work's usage, counted by the session driver down its delegation tree. */
  private usage = new UsageTally();
  private ticker: NodeJS.Timeout | undefined;
  /** Request ids with the chain that led to them, from `approval:requested`. */
  readonly chains = new Map<string, readonly string[]>();
  last: FinishedCall | undefined;
  /** Set while an approval or question waits: shown on the status line. */
  waitingOn: string | undefined;

  constructor(
    private readonly screen: Screen,
    private readonly you: string,
  ) {}

  attach(events: EventBus): () => void {
    return events.onAny((event) => this.on(event));
  }

  /** A top-level turn starts: the status line counts from here, with the usage the driver tallies for it. */
  beginTurn(usage: UsageTally): void {
    this.turnStartedAt = Date.now();
    this.stoppedAt = undefined;
    this.usage = usage;
    this.streamed.clear();
    this.answering.clear();
    this.ticker = setInterval(() => this.render(), 1000);
    this.ticker.unref();
    this.render();
  }

  /**
   * The turn was cancelled: what streamed is finished and the status line says it is stopping,
   * but its model calls are still counted until `endTurn`: a call cut off is paid for, and its
   * usage (estimated) is reported as the turn unwinds, after the cancel.
   */
  stopTurn(): void {
    this.stopShowing();
    this.stoppedAt ??= Date.now();
    this.screen.setStatus(style.dim('⋯ cancelling'));
  }

  /** The turn ended (or its cancel is through): finish what streamed and say what it cost. */
  endTurn(): string {
    this.stopShowing();
    const elapsed = this.turnStartedAt === undefined ? 0 : (this.stoppedAt ?? Date.now()) - this.turnStartedAt;
    this.turnStartedAt = undefined;
    this.stoppedAt = undefined;
    this.screen.setStatus('');
    const totals = this.usage.total;
    return `${formatDuration(elapsed)} · ${formatTokens(totals)} · ${formatCost(totals.costUsd, totals.unpricedCalls)}`;
  }

  private stopShowing(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = undefined;
    for (const stream of this.streams.values()) stream.finish();
    this.streams.clear();
    this.working.clear();
    this.running.clear();
    this.queued.clear();
  }

  get busy(): boolean {
    return this.turnStartedAt !== undefined;
  }

  private on(event: LegionEvent): void {
    switch (event.type) {
      case 'turn:start':
        this.working.set(event.conversationId, event.participantId);
        // A new reply in this conversation: whether it streams is yet to be seen.
        this.streamed.delete(event.conversationId);
        if (event.initiator === this.you && this.turnStartedAt !== undefined) this.answering.add(event.participantId);
        break;
      case 'turn:end':
        this.finishStream(event.conversationId);
        this.working.delete(event.conversationId);
        break;
      case 'text:delta': {
        let stream = this.streams.get(event.conversationId);
        if (!stream) {
          const toYou = event.initiator === this.you;
          const header = toYou
            ? `${style.bold(style.cyan(inertLine(event.participantId)))}: `
            : `${style.dim(`${inertLine(event.participantId)} → ${inertLine(event.initiator)}`)}: `;
          stream = this.screen.openStream(header);
          this.streams.set(event.conversationId, stream);
        }
        this.streamed.add(event.conversationId);
        stream.append(event.text);
        break;
      }
      case 'tool:call':
        // Text before a tool call is finished: the call's line goes below it.
        this.finishStream(event.conversationId);
        this.running.set(event.toolUse.id, { participantId: event.participantId, toolUse: event.toolUse });
        break;
      case 'delegation:queued':
        this.queued.add(event.toolUseId);
        break;
      case 'delegation:dequeued':
        this.queued.delete(event.toolUseId);
        break;
      case 'tool:result': {
        this.running.delete(event.toolUse.id);
        this.queued.delete(event.toolUse.id);
        this.last = { participantId: event.participantId, toolUse: event.toolUse, result: event.result, durationMs: event.durationMs };
        this.screen.print(describeCall(this.last));
        break;
      }
      case 'approval:requested':
        this.chains.set(event.requestId, event.chain);
        return;
      case 'approval:decided':
        this.screen.print(
          style.dim(
            `  ${event.decision === 'approved' ? '✓ approved' : '✗ rejected'} ${event.requester} → ${event.tool} (${event.requestId}) by ${event.decidedBy}${event.medium ? ` on ${event.medium}` : ''}${event.reason ? `: ${event.reason}` : ''}${event.always ? ', for the session' : ''}`,
          ),
        );
        return;
      case 'provider:retry':
        this.screen.print(
          style.yellow(
            `  ${inertLine(event.participantId)}'s model (${inertLine(event.provider)}) failed: ${inertLine(event.reason)}; retry ${event.attempt} of ${event.of} in ${formatDuration(event.waitMs)}`,
          ),
        );
        return;
      case 'context:compacted':
        // `/compact` says what it did itself; this is for the compactions that happen on their own.
        if (event.reason === 'manual') return;
        this.screen.print(
          style.dim(
            `  ${inertLine(event.participantId)}'s context was compacted (${event.reason === 'overflow' ? 'the provider said it was too long' : 'it neared the window'}): ${event.messageIds.count} messages summarized, ${event.tokensBefore.toLocaleString('en-US')} → ${event.tokensAfter.toLocaleString('en-US')} tokens`,
          ),
        );
        return;
      case 'storage:warning':
        this.screen.print(style.yellow(`warning: ${event.path}: ${event.problem}`));
        return;
      case 'config:reloaded':
        this.screen.print(describeReload(event.changes, event.restartNeeded));
        return;
      case 'error:raised':
        // A cancelled turn was the user's own doing: the REPL has said "cancelled" once already.
        if (event.code === 'cancelled') return;
        // The turn the user started failed: the REPL says so once, with its result ("could not answer").
        if (
          event.participantId !== undefined &&
          event.scope === `turn of ${event.participantId}` &&
          this.answering.has(event.participantId)
        )
          return;
        // What the failing participant streamed goes above its error, not below it.
        for (const [conversationId, participantId] of this.working)
          if (participantId === event.participantId) this.finishStream(conversationId);
        this.screen.print(style.red(`error (${inertLine(event.scope)}): ${inert(event.message)}`));
        return;
      default:
        return;
    }
    this.render();
  }

  private finishStream(conversationId: string): void {
    const stream = this.streams.get(conversationId);
    if (!stream) return;
    stream.finish();
    this.streams.delete(conversationId);
  }

  /** The status line, while a turn runs. */
  render(): void {
    // Cancelled and unwinding: the status line keeps saying so.
    if (this.turnStartedAt === undefined || this.stoppedAt !== undefined) return;
    const agents = [...new Set(this.working.values())].filter((id) => id !== this.you);
    const tools = [...this.running.values()]
      .filter((call) => !this.queued.has(call.toolUse.id))
      .map((call) => `${inertLine(call.participantId)}: ${inertLine(call.toolUse.name)} ${keyArgument(call.toolUse, 30)}`.trim());
    const parts = [
      agents.length > 0 ? `working: ${agents.join(', ')}` : 'working',
      ...(tools.length > 0 ? [`running ${tools.join('; ')}`] : []),
      ...(this.queued.size > 0 ? [`${this.queued.size} delegation${this.queued.size === 1 ? '' : 's'} waiting for a slot`] : []),
      ...(this.waitingOn ? [this.waitingOn] : []),
      formatDuration(Date.now() - this.turnStartedAt),
      formatTokens(this.usage.total),
      formatCost(this.usage.total.costUsd, this.usage.total.unpricedCalls),
    ];
    this.screen.setStatus(style.dim(`⋯ ${parts.join(' · ')}  (Esc or Ctrl-C cancels)`));
  }
}

/** `✓ coordinator → developer  "Create src/a.ts"  2.1 s  replied` or `✓ developer  file_read  src/a.ts  4 ms  ok, 12 lines`. */
export function describeCall(call: FinishedCall): string {
  const outcome = outcomeOf(call.result);
  const mark = outcome.ok ? style.green('✓') : style.red('✗');
  const input = call.toolUse.input as Record<string, unknown> | null;
  const duration = style.dim(formatDuration(call.durationMs));
  if (call.toolUse.name === 'communicate' && input && typeof input.to === 'string') {
    const message = typeof input.message === 'string' ? clip(input.message, 50) : '';
    return `  ${mark} ${inertLine(call.participantId)} → ${style.bold(inertLine(input.to))}  ${style.dim(`"${message}"`)}  ${duration}  ${outcome.ok ? 'replied' : style.red(outcome.text)}`;
  }
  return `  ${mark} ${inertLine(call.participantId)}  ${style.bold(inertLine(call.toolUse.name))}  ${keyArgument(call.toolUse)}  ${duration}  ${outcome.ok ? style.dim(outcome.text) : style.red(outcome.text)}`;
}

/** What an edit of the config files changed, said before the message it applies to; what needs a restart, in yellow. */
export function describeReload(changes: readonly string[], restartNeeded: readonly string[]): string {
  const shown = changes.filter((key) => !restartNeeded.includes(key));
  const lines =
    shown.length > 0 ? [style.dim(`  config changed, applies from this message: ${inertLine(clip(shown.join(', '), 200))}`)] : [];
  if (restartNeeded.length > 0)
    lines.push(style.yellow(`  config changed, applies after a restart of legion: ${inertLine(clip(restartNeeded.join(', '), 200))}`));
  return lines.join('\n');
}
