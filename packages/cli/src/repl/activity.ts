import { UsageTally, type LegionEvent, type EventBus, type ToolUseBlock, groupedNumber } from '@legion-collective/core';
import { ConversationDepths, indentation } from '../render/delegation-depth.js';
import { styleFor } from '../render/style.js';
import { describeCall, describeCallWhole, type FinishedCall } from './call-lines.js';
import { clip, formatCost, formatDuration, formatTokens, keyArgument } from './format.js';
import type { Screen } from './screen.js';
import { inert, inertLine } from '../render/terminal-text.js';
import { describeClaimConflict } from '../render/claim-lines.js';
import { foldLines, textOf, waitingSummary, whoDoesWhat, type WaitingCard } from './team-lines.js';

const style = styleFor(process.stdout);

/** Something shown folded, which Ctrl-O prints whole. */
interface Fold {
  /** The whole of it, as Ctrl-O prints it. */
  whole(): string;
  margin: string;
}

/**
 * Turns the engine's events into what the terminal shows: streamed text as it
 * arrives, each delegation's message when it starts, one line per finished
 * tool call or delegation, a delegate's work indented under its delegation by
 * depth with each participant in its own colour, what other processes append
 * to the conversation, and the status line (what waits for the user first,
 * else who is working on what, elapsed, tokens and cost of the turn).
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
  /** The cards waiting for the user (approvals, questions), first shown first: they lead the status line. */
  private waiting: readonly WaitingCard[] = [];
  /** How deep each conversation runs in its delegation tree: its lines are indented by it. */
  private readonly depths = new ConversationDepths();
  /** What was shown folded, newest last; Ctrl-O prints them whole, newest first, one a press. */
  private readonly folds: Fold[] = [];
  /** How many of `folds`, from the newest, Ctrl-O has printed since the last fold was added. */
  private expanded = 0;

  constructor(
    private readonly screen: Screen,
    private readonly you: string,
  ) {}

  attach(events: EventBus): () => void {
    return events.onAny((event) => this.on(event));
  }

  /** Failures already said in this turn (participant and reason): their further retries go on the status line only. */
  private readonly retriesSaid = new Set<string>();
  /** The model call being retried now, for the status line, until shortly after its wait. */
  private retrying: { text: string; until: number } | undefined;

  /** A top-level turn starts: the status line counts from here, with the usage the driver tallies for it. */
  beginTurn(usage: UsageTally): void {
    this.turnStartedAt = Date.now();
    this.stoppedAt = undefined;
    this.usage = usage;
    this.streamed.clear();
    this.answering.clear();
    this.retriesSaid.clear();
    this.retrying = undefined;
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

  /** The cards now waiting for the user: the status line says so first, whether or not a turn runs here. */
  setWaiting(cards: readonly WaitingCard[]): void {
    this.waiting = cards;
    this.render();
  }

  /**
   * The next folded thing, whole (a result, a delegation's message), newest first: Ctrl-O prints
   * the last one, and each press after it the one before. Undefined when there is none left.
   */
  expandNext(): { text: string; margin: string } | undefined {
    const fold = this.folds.at(-1 - this.expanded);
    if (!fold) return undefined;
    this.expanded++;
    return { text: fold.whole(), margin: fold.margin };
  }

  private addFold(fold: Fold): void {
    this.folds.push(fold);
    // Kept to the recent ones: older folds are in the logs (/history, legion sessions show).
    if (this.folds.length > 200) this.folds.shift();
    this.expanded = 0;
  }

  /** The turn ended (or its cancel is through): finish what streamed and say what it cost. */
  endTurn(): string {
    this.stopShowing();
    const elapsed = this.turnStartedAt === undefined ? 0 : (this.stoppedAt ?? Date.now()) - this.turnStartedAt;
    this.turnStartedAt = undefined;
    this.stoppedAt = undefined;
    this.render();
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

  /** The margin of a conversation's own lines (its stream, its delegation's message); its tool calls go one deeper. */
  private margin(conversationId: string, deeper = 0): string {
    return indentation(this.depths.of(conversationId) + deeper);
  }

  private name(id: string): string {
    return id === this.you ? style.bold(style.green('you')) : style.participant(id, inertLine(id));
  }

  /** A named conversation's name after its responder (`developer (a)`): parallel delegations to one agent told apart. */
  private called(name: string | undefined): string {
    return name === undefined ? '' : style.dim(` (${inertLine(name)})`);
  }

  private on(event: LegionEvent): void {
    this.depths.observe(event);
    switch (event.type) {
      case 'message:sent':
        this.showMessage(event);
        return;
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
            ? `${style.bold(this.name(event.participantId))}: `
            : `${this.name(event.participantId)}${this.called(event.name)} ${style.dim('→')} ${this.name(event.initiator)}: `;
          stream = this.screen.openStream(header, this.margin(event.conversationId));
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
        const call = { participantId: event.participantId, toolUse: event.toolUse, result: event.result, durationMs: event.durationMs };
        this.last = call;
        // A call's line sits one level in from its participant's text.
        const margin = this.margin(event.conversationId, 1);
        this.screen.print(describeCall(call), margin);
        this.addFold({ whole: () => describeCallWhole(call), margin });
        break;
      }
      case 'approval:requested':
        this.chains.set(event.requestId, event.chain);
        // The card is asked before the call runs (its tool:call comes after the answer): what the model
        // wrote before the call is finished now, so it stays above the card, which is printed when answered.
        if (!event.remote) this.finishStream(event.conversationId);
        return;
      case 'question:asked':
        // The same for a question: the asker's text before it goes above the question.
        if (!event.remote) this.finishStreamsOf(event.from);
        return;
      case 'approval:decided':
        this.screen.print(
          style.dim(
            // Settled by the end of the turn that asked: nobody rejected it.
            event.cancelled
              ? `⊘ cancelled ${event.requester} → ${event.tool} (${event.requestId}): the turn that asked ended before anyone decided`
              : `${event.decision === 'approved' ? '✓ approved' : '✗ rejected'} ${event.requester} → ${event.tool} (${event.requestId}) by ${event.decidedBy}${event.medium ? ` on ${event.medium}` : ''}${event.reason ? `: ${event.reason}` : ''}${event.always ? ', for the session' : ''}`,
          ),
          this.margin(event.conversationId, 1),
        );
        return;
      case 'provider:retry': {
        const said = `${inertLine(event.participantId)}'s model (${inertLine(event.provider)}) failed: ${inertLine(event.reason)}`;
        // Each failure is said once in the scrollback; the retries after it, with the same reason, count on the status line.
        const key = `${event.participantId}\n${event.reason}`;
        if (!this.retriesSaid.has(key)) {
          this.retriesSaid.add(key);
          this.screen.print(
            style.yellow(`${said}; retry ${event.attempt} of ${event.of} in ${formatDuration(event.waitMs)}`),
            this.margin(event.conversationId, 1),
          );
        }
        this.retrying = { text: `${said}; retry ${event.attempt} of ${event.of}`, until: Date.now() + event.waitMs + 2_000 };
        this.render();
        return;
      }
      case 'context:compacted':
        // `/compact` says what it did itself; this is for the compactions that happen on their own.
        if (event.reason === 'manual') return;
        this.screen.print(
          style.dim(
            `  ${inertLine(event.participantId)}'s context was compacted (${event.reason === 'overflow' ? 'the provider said it was too long' : 'it neared the window'}): ${event.messageIds.count} messages summarized, ${groupedNumber(event.tokensBefore)} → ${groupedNumber(event.tokensAfter)} tokens`,
          ),
        );
        return;
      case 'window:guessed':
        this.screen.print(style.yellow(`note: ${inert(event.text)}`), this.margin(event.conversationId, 1));
        return;
      case 'claim:conflict':
        this.screen.print(style.yellow(describeClaimConflict(event)), this.margin(event.conversationId, 1));
        return;
      case 'storage:warning':
        this.screen.print(style.yellow(`warning: ${inertLine(event.path)}: ${inert(event.problem)}`));
        return;
      case 'worktree:ready': {
        // The human is the one who applies it: said where it stands out, with the command to run.
        const files = `${event.files.length} file${event.files.length === 1 ? '' : 's'}`;
        this.screen.print(
          style.yellow(
            `${inertLine(event.participantId)}'s change is ready for review (${files}): legion worktrees apply ${inertLine(event.worktreeId)}`,
          ),
          this.margin(event.conversationId, 1),
        );
        return;
      }
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
        // What the failing participant streamed goes above its error, not below it; the error sits at its depth.
        const margin = event.participantId === undefined ? '' : this.finishStreamsOf(event.participantId);
        this.screen.print(style.red(`error (${inertLine(event.scope)}): ${inert(event.message)}`), margin);
        return;
      default:
        return;
    }
    this.render();
  }

  /** Finishes what a participant streams (in each conversation it works in); returns the margin of its lines. */
  private finishStreamsOf(participant: string): string {
    let margin = '';
    for (const [conversationId, participantId] of this.working)
      if (participantId === participant) {
        this.finishStream(conversationId);
        margin = this.margin(conversationId);
      }
    return margin;
  }

  private finishStream(conversationId: string): void {
    const stream = this.streams.get(conversationId);
    if (!stream) return;
    stream.finish();
    this.streams.delete(conversationId);
  }

  /**
   * The status line, short, what matters first: what waits for the user (a card, a question),
   * else who is working on what; then elapsed, tokens and cost of the turn.
   */
  render(): void {
    const waiting = waitingSummary(this.waiting);
    // Cancelled and unwinding: the status line keeps saying so.
    if (this.stoppedAt !== undefined) return;
    if (this.turnStartedAt === undefined) {
      // A card from another process can wait with no turn running here.
      this.screen.setStatus(waiting ? style.yellow(`⋯ ${waiting}`) : '');
      return;
    }
    const figures = [
      formatDuration(Date.now() - this.turnStartedAt),
      formatTokens(this.usage.total),
      formatCost(this.usage.total.costUsd, this.usage.total.unpricedCalls),
    ];
    if (waiting) {
      this.screen.setStatus(`${style.yellow(`⋯ ${waiting}`)}${style.dim(` · ${figures.join(' · ')}`)}`);
      return;
    }
    const parts = [
      `working: ${
        whoDoesWhat(
          this.you,
          this.working,
          [...this.running.values()].filter((call) => !this.queued.has(call.toolUse.id)),
        ).join(', ') || 'starting'
      }`,
      ...(this.queued.size > 0 ? [`${this.queued.size} delegation${this.queued.size === 1 ? '' : 's'} waiting for a slot`] : []),
      ...(this.retrying !== undefined && Date.now() < this.retrying.until ? [this.retrying.text] : []),
      ...figures,
    ];
    this.screen.setStatus(style.dim(`⋯ ${parts.join(' · ')} · Esc cancels`));
  }

  /**
   * A message appended to a conversation. Said here: a delegation's message as the delegation
   * starts (who asked whom and what, folded past a few lines), and what another process or
   * surface appended (`legion run` in another shell, the browser), as it is appended. What this
   * process's user typed and its agents' replies are shown already (typed, streamed).
   */
  private showMessage(event: Extract<LegionEvent, { type: 'message:sent' }>): void {
    const { message } = event;
    if (message.ending) return;
    const text = textOf(message);
    // Another process's conversation this one saw no turn of: a delegation's is one level down at least.
    const margin =
      event.remote && !this.depths.has(event.conversationId)
        ? indentation(event.initiator === this.you ? 0 : 1)
        : this.margin(event.conversationId);
    const fromInitiator = event.author === event.initiator;
    if (!event.remote) {
      // A delegation: an agent wrote to another participant (a question to the user is its card instead).
      if (message.role !== 'user' || !fromInitiator || event.initiator === this.you || event.responder === this.you || !text) return;
      this.printFolded(
        `${this.name(event.initiator)} ${style.dim('→')} ${this.name(event.responder)}${this.called(event.name)}: `,
        text,
        margin,
      );
      return;
    }
    const elsewhere = style.dim(' (sent elsewhere)');
    if (message.role === 'user' && fromInitiator && text) {
      // The user's own message sent elsewhere is read whole, like one typed here; an agent's is folded.
      if (event.initiator === this.you)
        this.screen.print(`${this.name(this.you)} → ${style.bold(inertLine(event.responder))}${elsewhere}: ${inert(text)}`, margin);
      else
        this.printFolded(
          `${this.name(event.initiator)} ${style.dim('→')} ${this.name(event.responder)}${this.called(event.name)}${elsewhere}: `,
          text,
          margin,
        );
      return;
    }
    if (message.role !== 'assistant') return;
    if (text) {
      // A reply to the user is rendered as one here would be (markdown on a terminal), and kept for /raw and /copy.
      if (event.initiator === this.you) this.screen.printReply(`${style.bold(this.name(event.responder))}${elsewhere}: `, text, margin);
      else
        this.printFolded(
          `${this.name(event.responder)}${this.called(event.name)} ${style.dim('→')} ${this.name(event.initiator)}${elsewhere}: `,
          text,
          margin,
        );
    }
    // A delegation is said by the message it sends, just below.
    for (const block of message.content)
      if (block.type === 'tool_use' && block.name !== 'communicate')
        this.screen.print(style.dim(`⚙ ${inertLine(event.responder)}  ${inertLine(block.name)}  ${keyArgument(block)}`), `${margin}  `);
  }

  /** `header` and the text's first lines; past them a line says how many more, which Ctrl-O prints. */
  private printFolded(header: string, text: string, margin: string): void {
    const { shown, hidden } = foldLines(inert(text));
    const more = hidden > 0 ? `\n${style.dim(`… ${hidden} more line${hidden === 1 ? '' : 's'} (Ctrl-O shows it whole)`)}` : '';
    this.screen.print(`${header}${shown.join('\n')}${more}`, margin);
    if (hidden > 0) this.addFold({ whole: () => `${header}${inert(text)}`, margin });
  }
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
