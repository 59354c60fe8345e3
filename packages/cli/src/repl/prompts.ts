import { matchesKey } from '@mariozechner/pi-tui';
import {
  APPROVAL_CHOICES,
  AnsweredElsewhereError,
  answerOfChoice,
  approvalChoice,
  type ApprovalAnswer,
  type ApprovalChoice,
  type RulePatternOutcome,
  type ApprovalView,
  type UserQuestion,
  type UserSurface,
} from '@legion-collective/core';
import { styleFor } from '../render/style.js';
import { inert, inertLine } from '../render/terminal-text.js';
import { approvalCard } from './approval-card.js';
import type { FileChange } from '@legion-collective/core/internal';
import { ApprovalMenu } from './approval-menu.js';
import type { Screen } from './screen.js';
import type { WaitingCard } from './team-lines.js';

const style = styleFor(process.stdout);

/** The medium the REPL's answers are recorded with. */
export const TERMINAL_MEDIUM = 'terminal';

/**
 * Why a card of another session left the queue: the REPL switched sessions (/resume, /new). What
 * it asked still waits in that session, answerable there or from the command line.
 */
export class SessionLeftError extends Error {
  constructor(readonly sessionId: string) {
    super(`the REPL left session ${sessionId}`);
    this.name = 'SessionLeftError';
  }
}

interface QuestionItem {
  kind: 'question';
  question: UserQuestion;
  resolve(answer: string): void;
  signal: AbortSignal;
  /**
   * The input was empty at some moment this card was up: what is submitted now was typed for it.
   * Text typed before the card came was meant as a message, and is sent as one.
   */
  armed?: boolean;
}

interface ApprovalItem {
  kind: 'approval';
  request: ApprovalView;
  menu: ApprovalMenu;
  answer(answer: ApprovalAnswer): void;
  signal: AbortSignal;
  /** After "Reject": the next line typed is the reason (an empty one gives none). */
  awaitingReason?: boolean;
}

type Item = QuestionItem | ApprovalItem;

/**
 * Questions and approvals from any agent (delegates included, parallel ones
 * too) wait in one queue and are shown one card at a time above the input,
 * numbered ("1 of 3"). Nothing typed for the input answers a card by accident:
 * an approval is answered only from its menu (a digit or ↑/↓, then Enter, while
 * the input is empty), a question only by a line typed while its card was up.
 * An offer withdrawn (the turn was cancelled, another surface answered) leaves
 * the queue.
 */
export class Prompts {
  private readonly queue: Item[] = [];
  /** Cards answered since the queue was last empty: with the one on top, the "2" of "2 of 3" (one withdrawn only shrinks the "3"). */
  private settled = 0;
  private inputHoldsText = false;

  constructor(
    private readonly screen: Screen,
    /** What a pending file_write or file_edit would do to its file (core's `fileChange`, as the browser shows it). */
    private readonly fileChangeOf: (request: ApprovalView) => FileChange | undefined,
    private readonly chains: ReadonlyMap<string, readonly string[]>,
    private readonly onChange: () => void,
    /** The pattern an "approve always" rule for a request would have, or why none can be made (core's `approvalRules.patternFor`). */
    private readonly rulePattern: (request: ApprovalView) => RulePatternOutcome,
  ) {}

  surface(): UserSurface {
    return {
      medium: TERMINAL_MEDIUM,
      ask: (question, { signal }) =>
        new Promise<string>((resolve, reject) => {
          const item: QuestionItem = { kind: 'question', question, resolve, signal };
          this.enqueue(item, reject);
        }),
      approve: (requests, { signal }) =>
        new Promise<ApprovalAnswer[]>((resolve, reject) => {
          const answers: ApprovalAnswer[] = [];
          requests.forEach((request, index) => {
            let unavailable: { error: string | undefined } | undefined;
            const item: ApprovalItem = {
              kind: 'approval',
              request,
              // Read once, when first drawn: whether an "always" rule can approve this call does not change while it waits.
              menu: new ApprovalMenu(() => {
                if (!unavailable) {
                  const rule = this.rulePattern(request);
                  unavailable = { error: rule.ok ? undefined : rule.error };
                }
                return unavailable.error;
              }),
              signal,
              answer: (answer) => {
                answers.push(answer);
                if (answers.length === requests.length) resolve(answers);
              },
            };
            this.enqueue(item, index === 0 ? reject : () => undefined);
          });
        }),
    };
  }

  get active(): Item | undefined {
    return this.queue[0];
  }

  get pending(): number {
    return this.queue.length;
  }

  /** What waits for the user, the card on top first, for the status line (names made inert). */
  waiting(): WaitingCard[] {
    return this.queue.map((item) =>
      item.kind === 'approval'
        ? { kind: 'approval', requester: inertLine(item.request.requester), tool: inertLine(item.request.tool) }
        : { kind: 'question', from: inertLine(item.question.from) },
    );
  }

  /** What the input holds changed: a card takes keys (an approval) or a line (a question) only from an empty input. */
  inputChanged(text: string): void {
    const holds = text !== '';
    if (holds === this.inputHoldsText) return;
    this.inputHoldsText = holds;
    if (this.active?.kind === 'approval') this.render();
  }

  /**
   * A line the user submitted while a card is up: the answer to a question (typed while its card
   * was up), a rejection's reason, or an approval's number. Anything else is not the card's: false.
   */
  submit(text: string): boolean {
    const item = this.active;
    if (!item) return false;
    if (item.kind === 'question') {
      if (!item.armed) {
        this.screen.print(
          style.dim(
            `  "${inertLine(oneLine(text))}" goes as a message, not as the answer: it was typed before ${inertLine(item.question.from)}'s question came`,
          ),
        );
        // That line is taken: what is typed from now on is written with the question in view.
        item.armed = true;
        this.render();
        return false;
      }
      // The card goes; the question stays in the scrollback, so the answer below it reads in context.
      const { question } = item;
      const via = question.chain.length > 1 ? `, via ${question.chain.join(' → ')}` : '';
      // Rendered as a reply is (markdown on a colour terminal), but not kept as one: /raw and Ctrl-T stay on the replies.
      this.screen.printReply(
        `${style.bold(inertLine(question.from))} asked ${style.dim(`(${inertLine(question.conversation.conversationId)}${inertLine(via)})`)}: `,
        question.text,
        '',
        { remember: false },
      );
      this.screen.print(`${style.dim('you → ')}${style.bold(inertLine(question.from))}: ${inert(text)}`);
      this.done(item);
      item.resolve(text);
      return true;
    }
    if (item.awaitingReason) {
      this.reject(item, text);
      return true;
    }
    // A pasted number and Enter is an explicit choice too; any other line is a message.
    const words = /^\s*\d\s*$/.test(text) ? APPROVAL_CHOICES.find((choice) => String(choice.number) === text.trim()) : undefined;
    if (!words) return false;
    this.choose(item, words.choice);
    return true;
  }

  /** A key pressed while the input is empty: the approval card on top takes its menu's keys (and Enter for an empty reason). */
  key(data: string): boolean {
    // Typing into an empty input with a question up: the line is written for it. (The input empties
    // on Enter too, before the line is submitted: that is no sign, a key pressed on the empty input is.)
    if (this.active?.kind === 'question' && !this.active.armed) {
      this.active.armed = true;
      this.render();
    }
    const item = this.active;
    if (item?.kind !== 'approval' || this.inputHoldsText) return false;
    if (item.awaitingReason) {
      if (!matchesKey(data, 'enter')) return false;
      this.reject(item, '');
      return true;
    }
    const outcome = item.menu.key(data);
    if (outcome.kind === 'ignored') return false;
    if (outcome.kind === 'chosen') this.choose(item, outcome.choice);
    else this.render();
    return true;
  }

  private reject(item: ApprovalItem, reason: string): void {
    this.answered(item);
    item.answer(answerOfChoice({ id: item.request.id, choice: 'reject', ...(reason.trim() ? { reason: reason.trim() } : {}) }));
  }

  private choose(item: ApprovalItem, choice: ApprovalChoice): void {
    const id = item.request.id;
    if (choice === 'reject') {
      item.awaitingReason = true;
      this.render();
      return;
    }
    if (choice === 'always') {
      const rule = this.rulePattern(item.request);
      if (!rule.ok) {
        // The card stays up, unanswered.
        this.screen.print(
          style.yellow(
            `  No "always" rule can approve this call: ${rule.error}. Choose ${approvalChoice('once').number} (${approvalChoice('once').label.toLowerCase()}) or ${approvalChoice('session').number} (${approvalChoice('session').label.toLowerCase()}).`,
          ),
        );
        return;
      }
      this.answered(item);
      this.screen.print(
        style.dim(
          `  saved rule: ${inertLine(item.request.requester)} may run ${inertLine(item.request.tool)}${rule.pattern !== undefined ? ` matching ${inertLine(rule.pattern)}` : ''} without asking (/approvals rules lists and removes rules)`,
        ),
      );
    } else this.answered(item);
    item.answer(answerOfChoice({ id, choice }));
  }

  /** The card on top was up while the input was empty: a line typed from now on is meant for it. */
  private arm(): void {
    const item = this.active;
    if (item?.kind === 'question' && !this.inputHoldsText) item.armed = true;
  }

  /** Cards left by a cancel go: the turn's cancel settles their requests (core), so nothing of it runs later. */
  private enqueue(item: Item, reject: (reason: unknown) => void): void {
    if (item.signal.aborted) {
      reject(item.signal.reason);
      return;
    }
    this.queue.push(item);
    item.signal.addEventListener(
      'abort',
      () => {
        const index = this.queue.indexOf(item);
        if (index === -1) return;
        this.queue.splice(index, 1);
        const reason: unknown = item.signal.reason;
        const what = item.kind === 'question' ? `${inertLine(item.question.from)}'s question` : `approval ${item.request.id}`;
        if (reason instanceof AnsweredElsewhereError) this.screen.print(style.dim(`  ${what} was answered in ${reason.medium}`));
        else if (reason instanceof SessionLeftError) this.screen.print(style.dim(`  ${this.leftNote(item, reason.sessionId)}`));
        else if (item.kind === 'approval')
          this.screen.print(
            style.yellow(
              `  approval ${item.request.id} (${inertLine(item.request.requester)} → ${inertLine(item.request.tool)}) was cancelled with the turn: nothing of it will run`,
            ),
          );
        else this.screen.print(style.dim(`  ${what} was withdrawn`));
        reject(reason);
        this.render();
      },
      { once: true },
    );
    this.render();
  }

  /** What a card of a session the REPL left becomes: a line saying where it still waits and how to answer it. */
  private leftNote(item: Item, sessionId: string): string {
    if (item.kind === 'question') {
      return `${inertLine(item.question.from)}'s question "${inertLine(oneLine(item.question.text))}" still waits in session ${sessionId}:\n    /resume ${sessionId}, or: legion answer ${item.question.id} "…"`;
    }
    const { request } = item;
    return `approval ${request.id} (${inertLine(request.requester)} → ${inertLine(request.tool)}) stays pending in session ${sessionId}:\n    /resume ${sessionId}, or: legion approve ${request.id} --session ${sessionId}`;
  }

  /** The card goes; what was decided on (tool, arguments, diff, chain) stays in the scrollback above the decision. */
  private answered(item: ApprovalItem): void {
    this.screen.print(approvalCard(item.request, this.chains.get(item.request.id), this.fileChangeOf(item.request), this.position()));
    this.done(item);
  }

  private done(item: Item): void {
    const index = this.queue.indexOf(item);
    if (index !== -1) {
      this.queue.splice(index, 1);
      this.settled += 1;
    }
    if (item.kind === 'approval') this.screen.setCard('');
    this.render();
  }

  /** The card on top's place among those waiting since the queue was last empty: "2 of 3". */
  private position(): { index: number; of: number } {
    return { index: this.settled + 1, of: this.settled + this.queue.length };
  }

  render(): void {
    if (this.queue.length === 0) this.settled = 0;
    this.arm();
    const { text, tail } = this.cardText();
    this.screen.setCard(text, tail);
    this.onChange();
  }

  /** The card on top, and how many lines of its end stay on screen when it must be clipped (how to answer it). */
  private cardText(): { text: string | ((width: number) => string); tail: number | ((width: number) => number) } {
    const item = this.active;
    if (!item) return { text: '', tail: 0 };
    const position = this.position();
    if (item.kind === 'approval') {
      const card = approvalCard(item.request, this.chains.get(item.request.id), this.fileChangeOf(item.request), position);
      if (item.awaitingReason) {
        const prompt = `  ${style.cyan('reason for rejecting (shown to the agent; optional), then Enter:')}`;
        return {
          text: `${card}\n  ${style.bold(style.cyan(`❯ ${approvalChoice('reject').number}. ${approvalChoice('reject').label}`))}\n${prompt}`,
          tail: 3,
        };
      }
      const menu = (width: number): string[] => item.menu.lines(this.inputHoldsText, width);
      return { text: (width) => [card, ...menu(width)].join('\n'), tail: (width) => menu(width).length + 1 };
    }
    const { question } = item;
    const count = position.of > 1 ? style.dim(` (${position.index} of ${position.of})`) : '';
    const chain = question.chain.length > 1 ? `  ${style.dim(`chain: ${question.chain.map(inertLine).join(' → ')} → you`)}\n` : '';
    const how = item.armed
      ? style.cyan('type your answer and press Enter')
      : style.yellow('the input held text when this question came: Enter sends that as a message; then type the answer');
    const head = `${style.magenta('question')}${count} from ${style.bold(inertLine(question.from))} ${style.dim(`in ${inertLine(question.conversation.conversationId)}`)}\n${chain}`;
    // The question is the agent's markdown: rendered for the card's width (two columns in), as a reply is.
    const markdown = this.screen.markdown;
    const body = (width: number): string[] =>
      markdown ? markdown(question.text, Math.max(1, width - 2)) : inert(question.text).split('\n');
    return {
      text: (width) =>
        `${head}${body(width)
          .map((line) => `  ${line}`)
          .join('\n')}\n  ${how}`,
      tail: 2,
    };
  }
}

/** A question's first line, shortened: a note names it, the card showed it whole. */
function oneLine(text: string): string {
  const first = text.split('\n')[0] ?? '';
  return first.length > 40 || text.includes('\n') ? `${first.slice(0, 40)}…` : first;
}
