import type { Session } from '../engine/index.js';
import { conversationId } from '../session/index.js';
import { LegionError } from '../kernel/index.js';
import type { LegionEvent } from '../kernel/index.js';
import type { Legion } from '../Legion.js';
import type { AnswerOutcome, EditorFiles, TurnResult } from '../session/index.js';
import type { ApprovalAnswer, ApprovalView } from '../store/index.js';
import { answerOfChoice, type ApprovalChoiceAnswer, explainPause, type PauseExplanation } from '../hitl/index.js';
import { DelegationTree } from './delegation-tree.js';
import { chooseSession, type SessionChoice } from './session-choice.js';
import { UsageTally } from './usage-tally.js';

export interface SessionDriverOptions {
  /** Which session to work in (default: the workspace's latest), or the session itself. */
  session?: SessionChoice | Session | undefined;
  /** Who sends and decides (default: the collective's default user). */
  as?: string | undefined;
  /** The surface's name, recorded with what its user decides (`terminal`, `web`, `vscode`, `mcp`). */
  medium: string;
  /** The editor's files, when the surface is an editor that offers them (`legion acp`): the sessions this driver works in read and write through it. */
  editorFiles?: EditorFiles | undefined;
}

/** One piece of work the driver started (a message sent, approvals answered): its tree's usage live, and its end. */
export interface DrivenWork<T> {
  /** Tokens and cost of the work's delegation tree, counted as its model calls report (a cut-off call included, estimated). */
  readonly usage: UsageTally;
  /** The conversations of its delegation tree so far. */
  readonly conversations: ReadonlySet<string>;
  /** Settles once the work has unwound (after a cancel too): its usage is whole by then. */
  readonly done: Promise<T>;
}

export interface DriverSendOptions {
  /** Default: the collective's entry agent. */
  to?: string | undefined;
  conversation?: string | undefined;
  signal?: AbortSignal | undefined;
  /** `wait` (default) queues behind a running turn; `fail` refuses at once. */
  ifBusy?: 'wait' | 'fail' | undefined;
}

/**
 * What every surface drives (the REPL, `legion run`, `legion serve`, `legion mcp serve`, the VS
 * Code chat): the session it works in, sending, following what happens there (in this process and
 * others), the usage of each piece of work, why a turn paused, and answers in the one vocabulary of
 * approval choices. A surface renders what it is told and passes on what its user types.
 */
export class SessionDriver {
  private current: Session;
  private follower: (() => void) | undefined;
  private detachEditor: (() => void) | undefined;

  private constructor(
    readonly legion: Legion,
    session: Session,
    /** Who sends and decides. */
    readonly you: string,
    readonly medium: string,
    private readonly editorFiles: EditorFiles | undefined,
  ) {
    this.current = session;
    this.attachEditor();
  }

  /** The editor's files go with the driver to the session it works in. */
  private attachEditor(): void {
    this.detachEditor?.();
    this.detachEditor = this.editorFiles ? this.current.useEditorFiles(this.editorFiles) : undefined;
  }

  static async open(legion: Legion, options: SessionDriverOptions): Promise<SessionDriver> {
    const you = options.as ?? legion.collective.defaultUser()?.id;
    if (!you)
      throw new LegionError(
        'no_user',
        'The collective has no user participant to talk as: add one to .legion/collective/participants/ (legion init adds "user").',
      );
    if (!legion.collective.get(you))
      throw new LegionError('usage', `No participant "${you}" to talk as. Participants: ${legion.collective.ids().join(', ')}`);
    const session = isSession(options.session) ? options.session : await chooseSession(legion.sessions, options.session);
    return new SessionDriver(legion, session, you, options.medium, options.editorFiles);
  }

  get session(): Session {
    return this.current;
  }

  /** Works in another session from now on; a follower of the old one follows the new one. */
  async switchTo(choice: SessionChoice | Session): Promise<Session> {
    this.current = isSession(choice) ? choice : await chooseSession(this.legion.sessions, choice);
    this.attachEditor();
    if (this.follower) await this.follow();
    return this.current;
  }

  /** Shows what other processes do in the current session as events (`legion.follow`), until `close` or a switch moves it. */
  async follow(): Promise<void> {
    this.follower?.();
    this.follower = await this.legion.follow(this.current);
  }

  /** Every event of the current session (whichever session is current when it comes); returns the unsubscribe. */
  onEvent(listener: (event: LegionEvent) => void): () => void {
    return this.legion.events.onAny((event) => {
      if ('sessionId' in event && event.sessionId === this.current.id) listener(event);
    });
  }

  /**
   * Sends a message as this driver's user; its tree's usage is counted from the first event. The
   * config files are looked at first (`legion.reloadConfig`): an edit made since the last message,
   * in this process or another, applies from this one.
   */
  send(message: string, options: DriverSendOptions = {}): DrivenWork<TurnResult> {
    this.legion.reloadConfig();
    const session = this.current;
    const to = options.to ?? this.legion.entryAgentId();
    if (!this.legion.collective.get(to))
      throw new LegionError('usage', `No participant "${to}". Participants: ${this.legion.collective.ids().join(', ')}`);
    const id = conversationId({ initiator: this.you, responder: to, name: options.conversation });
    return this.track(
      () =>
        session.send({ from: this.you, to, message, conversation: options.conversation, signal: options.signal, ifBusy: options.ifBusy }),
      { session, conversations: [id] },
    );
  }

  /**
   * Decides approval requests as this driver's user, in the vocabulary's choices or as core's
   * answers, and resumes the turns they held (`resume: false` only records). Their trees' usage is
   * counted.
   */
  answer(
    answers: ReadonlyArray<ApprovalChoiceAnswer | ApprovalAnswer>,
    options: { signal?: AbortSignal | undefined; resume?: boolean | undefined } = {},
  ): DrivenWork<AnswerOutcome> {
    const session = this.current;
    const decisions = answers.map((answer) => ('choice' in answer ? answerOfChoice(answer) : answer));
    const tree = new DelegationTree(session.id, []);
    const work = this.track(
      async () => {
        // The conversations the answered requests wait in, and those waiting on them: their resumed turns are this work.
        const state = await session.approvals.state();
        for (const decision of decisions) {
          const request = state.request(decision.id);
          if (!request) continue;
          tree.conversations.add(request.conversationId);
          for (const frame of request.frames) tree.conversations.add(frame.conversationId);
        }
        return session.answerApprovals(decisions, this.you, { medium: this.medium, signal: options.signal, resume: options.resume });
      },
      { session, conversations: tree },
    );
    return work;
  }

  /** Why a turn paused, and how it goes on (the surface adds how to answer where it is). */
  explainPause(requests: readonly ApprovalView[]): PauseExplanation {
    return explainPause(requests, this.current.id);
  }

  /** The approvals still waiting in the current session. */
  async pendingApprovals(): Promise<ApprovalView[]> {
    return this.current.approvals.list({ status: 'pending' });
  }

  /** Stops following, and detaches the editor's files from the session. */
  close(): void {
    this.follower?.();
    this.follower = undefined;
    this.detachEditor?.();
    this.detachEditor = undefined;
  }

  /**
   * Runs work in a session (default the current one), counting the usage of its tree's events until
   * it has unwound: the tree of the conversations given, else every conversation of the session
   * (work whose conversations are not known beforehand, such as turns an answer given elsewhere resumed).
   */
  track<T>(
    run: () => Promise<T>,
    options: { session?: Session | undefined; conversations?: Iterable<string> | DelegationTree | undefined } = {},
  ): DrivenWork<T> {
    const session = options.session ?? this.current;
    const { conversations } = options;
    const tree = conversations instanceof DelegationTree ? conversations : new DelegationTree(session.id, conversations ?? 'whole');
    const usage = new UsageTally();
    const off = this.legion.events.onAny((event) => {
      if (tree.takes(event) && event.type === 'usage:report') usage.addEvent(event);
    });
    const done = (async () => {
      try {
        return await run();
      } finally {
        off();
      }
    })();
    return { usage, conversations: tree.conversations, done };
  }
}

function isSession(value: SessionChoice | Session | undefined): value is Session {
  return typeof value === 'object' && 'send' in value && typeof value.send === 'function';
}
