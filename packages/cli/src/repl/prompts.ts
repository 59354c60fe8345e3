import {
  AnsweredElsewhereError,
  answerOfChoice,
  approvalChoice,
  choiceOfKey,
  type ApprovalAnswer,
  type RulePatternOutcome,
  type ApprovalView,
  type UserQuestion,
  type UserSurface,
} from '@legion-collective/core';
import { styleFor } from '../render/style.js';
import { inert, inertLine } from '../render/terminal-text.js';
import { approvalCard } from './approval-card.js';
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
}

interface ApprovalItem {
  kind: 'approval';
  request: ApprovalView;
  position: { index: number; of: number };
  answer(answer: ApprovalAnswer): void;
  signal: AbortSignal;
  /** After [n]: the next line typed is the reason. */
  awaitingReason?: boolean;
}

type Item = QuestionItem | ApprovalItem;

/**
 * Questions and approvals from any agent (delegates included, parallel ones
 * too) wait in one queue and are shown one card at a time above the input;
 * what the user types answers the card on top. An offer withdrawn (the turn
 * was cancelled, another surface answered) leaves the queue.
 */
export class Prompts {
  private readonly queue: Item[] = [];

  constructor(
    private readonly screen: Screen,
    private readonly workspaceRoot: string,
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
            const item: ApprovalItem = {
              kind: 'approval',
              request,
              position: { index: index + 1, of: requests.length },
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

  /** A line the user submitted while a card is up: the answer to a question, or a rejection's reason. */
  submit(text: string): boolean {
    const item = this.active;
    if (!item) return false;
    if (item.kind === 'question') {
      // The card goes; the question stays in the scrollback, so the answer below it reads in context.
      const { question } = item;
      const via = question.chain.length > 1 ? `, via ${question.chain.join(' → ')}` : '';
      this.screen.print(
        `${style.bold(inertLine(question.from))} asked ${style.dim(`(${inertLine(question.conversation.conversationId)}${inertLine(via)})`)}: ${inert(question.text)}`,
      );
      this.screen.print(`${style.dim('you → ')}${style.bold(inertLine(question.from))}: ${inert(text)}`);
      this.done(item);
      item.resolve(text);
      return true;
    }
    if (item.awaitingReason) {
      this.answered(item);
      item.answer(answerOfChoice({ id: item.request.id, choice: 'reject', ...(text.trim() ? { reason: text.trim() } : {}) }));
      return true;
    }
    return this.key(text.trim().toLowerCase());
  }

  /** A one-key answer to the approval card on top (when the input is empty), in core's one vocabulary of choices. */
  key(key: string): boolean {
    const item = this.active;
    if (item?.kind !== 'approval' || item.awaitingReason) return false;
    const id = item.request.id;
    const choice = choiceOfKey(key);
    // Only the one-letter keys: a word typed into the input is a message or a reason, not a choice.
    if (choice === undefined || key.length !== 1) return false;
    if (choice === 'reject') {
      item.awaitingReason = true;
      this.render();
      return true;
    }
    if (choice === 'always') {
      const rule = this.rulePattern(item.request);
      if (!rule.ok) {
        // The card stays up, unanswered.
        this.screen.print(
          style.yellow(
            `  No "always" rule can approve this call: ${rule.error}. Answer with [${approvalChoice('once').key}] once or [${approvalChoice('session').key}] for this session.`,
          ),
        );
        return true;
      }
      this.answered(item);
      this.screen.print(
        style.dim(
          `  saved rule: ${inertLine(item.request.requester)} may run ${inertLine(item.request.tool)}${rule.pattern !== undefined ? ` matching ${inertLine(rule.pattern)}` : ''} without asking (/approvals rules lists and removes rules)`,
        ),
      );
    } else this.answered(item);
    item.answer(answerOfChoice({ id, choice }));
    return true;
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
    this.screen.print(approvalCard(item.request, this.chains.get(item.request.id), this.workspaceRoot, item.position, { keys: false }));
    this.done(item);
  }

  private done(item: Item): void {
    const index = this.queue.indexOf(item);
    if (index !== -1) this.queue.splice(index, 1);
    if (item.kind === 'approval') this.screen.setCard('');
    this.render();
  }

  render(): void {
    const more = this.queue.length - 1;
    const card = this.cardText();
    this.screen.setCard(more > 0 ? `${style.dim(`(${more} more waiting after this one)`)}\n${card}` : card);
    this.onChange();
  }

  private cardText(): string {
    const item = this.active;
    if (!item) return '';
    if (item.kind === 'approval') {
      const card = approvalCard(item.request, this.chains.get(item.request.id), this.workspaceRoot, item.position);
      return item.awaitingReason ? `${card}\n  ${style.cyan('reason for rejecting (shown to the agent), then Enter:')}` : card;
    }
    const { question } = item;
    const chain = question.chain.length > 1 ? `  ${style.dim(`chain: ${question.chain.map(inertLine).join(' → ')} → you`)}\n` : '';
    return `${style.magenta('question')} from ${style.bold(inertLine(question.from))} ${style.dim(`in ${inertLine(question.conversation.conversationId)}`)}\n${chain}  ${inert(question.text).split('\n').join('\n  ')}\n  ${style.cyan('type your answer and press Enter')}`;
  }
}

/** A question's first line, shortened: a note names it, the card showed it whole. */
function oneLine(text: string): string {
  const first = text.split('\n')[0] ?? '';
  return first.length > 40 || text.includes('\n') ? `${first.slice(0, 40)}…` : first;
}
