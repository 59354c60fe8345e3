import { join } from 'node:path';
import { CombinedAutocompleteProvider, matchesKey } from '@mariozechner/pi-tui';
import {
  errorMessage,
  Legion,
  LegionError,
  LEGION_DIR,
  SessionDriver,
  type ApprovalChoice,
  type DrivenWork,
  type Session,
  type TurnResult,
} from '@legion-collective/core';
import { fileChange } from '@legion-collective/core/internal';
import { styleFor } from '../render/style.js';
import { inert, inertLine } from '../render/terminal-text.js';
import { endingLine } from '../render/message-lines.js';
import { Activity } from './activity.js';
import { DOUBLE_PRESS_MS, type EarlyInput } from './early-input.js';
import { WorkspaceFileCompletion } from './file-completion.js';
import { withFileReferences } from './file-references.js';
import { enterOnReference } from './reference-enter.js';
import { clip } from './format.js';
import { HistorySearch } from './history-search.js';
import { InputHistory } from './input-history.js';
import { Prompts, TERMINAL_MEDIUM } from './prompts.js';
import { offerRemoteAsks } from './remote-offers.js';
import type { Screen } from './screen.js';
import { runShellEscape } from './shell-escape.js';
import { runSlashCommand, slashCommands, type ReplControl } from './slash-commands.js';
import { openLegion } from '../workspace.js';

const style = styleFor(process.stdout);

export interface ReplOptions {
  root: string;
  newSession?: boolean | undefined;
  session?: string | undefined;
  to?: string | undefined;
  /** The terminal, already showing the input. */
  screen: Screen;
  /** What was typed before the session was open: lines to send, or a request to leave. */
  early: EarlyInput;
}

/** `legion` / `legion chat`: the interactive session. Resolves with the exit code when the user leaves. */
export async function startRepl(options: ReplOptions): Promise<number> {
  const legion = await openLegion({ root: options.root });
  try {
    const repl = await Repl.open(legion, options);
    return await repl.run(options.early);
  } finally {
    await legion.close();
  }
}

class Repl implements ReplControl {
  private readonly activity: Activity;
  private readonly prompts: Prompts;
  private readonly history: InputHistory;
  private readonly search: HistorySearch;
  private readonly queue: string[] = [];
  /** The running top-level turn: its id (a cancelled turn's late result is ignored) and its controller. */
  private turn: { id: number; controller: AbortController } | undefined;
  private turns = 0;
  private picker: ((line: string) => Promise<void>) | undefined;
  /** A `!command` running: Ctrl-C stops it. */
  private shellRun: AbortController | undefined;
  private lastCtrlC = 0;
  /** Whether the user moved in the completion list since typing (reference-enter.ts). */
  private listChosen = false;
  private finished!: (code: number) => void;
  private readonly detach: Array<() => void> = [];
  private readonly remote: ReturnType<typeof offerRemoteAsks>;
  readonly target: { to: string; conversation?: string | undefined };

  private constructor(
    private readonly screen: Screen,
    readonly legion: Legion,
    /** The session, sending, following, usage and answers: the REPL renders and takes keys. */
    private readonly driver: SessionDriver,
    to: string,
  ) {
    const { you } = driver;
    this.target = { to };
    this.activity = new Activity(this.screen, you);
    this.detach.push(this.activity.attach(legion.events));
    this.prompts = new Prompts(
      this.screen,
      (request) =>
        fileChange({
          workspaceRoot: legion.paths.root,
          auth: legion.auth,
          requester: legion.collective.get(request.requester),
          tool: request.tool,
          input: request.input,
          worktree: request.worktree,
        }),
      this.activity.chains,
      () => this.activity.setWaiting(this.prompts.waiting()),
      (request) => legion.approvalRules.patternFor(request),
    );
    // Not announced to the workspace (followsWorkspace): the REPL shows only its own session's questions, so a
    // run in another session must not wait for it. A run that pauses is still answered here once it shows.
    this.detach.push(legion.attachUser(this.prompts.surface()));
    // What another process (legion serve, a legion run) asks the user joins the same queue of cards.
    this.remote = offerRemoteAsks(legion, this.prompts, {
      driver,
      print: (text) => this.print(text),
      resume: (work) => this.resumeFromCard(work),
    });
    this.detach.push(this.remote.stop);
    this.history = new InputHistory(join(legion.paths.root, LEGION_DIR, 'run', 'repl-history.jsonl'));
    for (const entry of this.history.entries) this.screen.editor.addToHistory(entry);
    this.search = new HistorySearch(
      this.history,
      (line) => this.screen.setHint(line),
      (text) => this.screen.editor.setText(text),
    );
  }

  static async open(legion: Legion, options: ReplOptions): Promise<Repl> {
    if (options.newSession && options.session) throw new LegionError('usage', 'Use either --session or --new, not both.');
    const driver = await SessionDriver.open(legion, {
      medium: TERMINAL_MEDIUM,
      session: { session: options.session, newSession: options.newSession },
    });
    if (options.to && !legion.collective.get(options.to))
      throw new LegionError('usage', `No participant "${options.to}". Participants: ${legion.collective.ids().join(', ')}`);
    // Listening before the entry agent is looked up: a fallback is announced as a warning, and shown.
    const repl = new Repl(options.screen, legion, driver, 'pending');
    repl.target.to = options.to ?? legion.entryAgentId();
    await repl.follow();
    return repl;
  }

  run(early: EarlyInput): Promise<number> {
    const done = new Promise<number>((resolve) => (this.finished = resolve));
    early.end();
    if (early.quit) {
      this.quit();
      return done;
    }
    this.lastCtrlC = early.lastCtrlC;
    const { editor } = this.screen;
    this.screen.setAutocomplete(
      new WorkspaceFileCompletion(
        new CombinedAutocompleteProvider(
          slashCommands(() => this),
          this.legion.paths.root,
          null,
        ),
        this.legion.paths.root,
      ),
    );
    editor.onChange = (text) => this.prompts.inputChanged(text);
    editor.onSubmit = (text) => void this.submit(text).catch((error: unknown) => this.print(style.red(`error: ${errorMessage(error)}`)));
    this.screen.tui.addInputListener((data) => (this.key(data) ? { consume: true } : undefined));
    for (const warning of this.legion.warnings) this.print(style.yellow(`warning: ${warning}`));
    void this.banner(true).then((text) => this.print(text));
    // /resume completes session ids from a list read once (some 70 ms at 3,000 sessions): read
    // now, once the screen is up, rather than at the first Tab.
    setTimeout(() => void this.legion.sessions.find('', { limit: 0 }).catch(() => undefined), 200).unref();
    this.screen.setStatus('');
    for (const text of early.lines) void this.submit(text);
    return done;
  }

  // ReplControl, for the slash commands.
  get session(): Session {
    return this.driver.session;
  }

  get you(): string {
    return this.driver.you;
  }

  print(text: string): void {
    this.screen.print(text);
  }

  clearScreen(): void {
    this.screen.clear();
  }

  get replies(): readonly string[] {
    return this.screen.replies;
  }

  copyToClipboard(text: string): void {
    this.screen.copyToClipboard(text);
  }

  setTarget(to: string, conversation?: string): void {
    this.target.to = to;
    this.target.conversation = conversation;
    this.print(style.dim(`  now talking to ${style.bold(to)}${conversation ? ` in conversation "${conversation}"` : ''}`));
  }

  async switchSession(session: Session): Promise<void> {
    if (this.turn) {
      this.print(style.yellow('  Work is running in this session: wait for it or cancel it (Esc) first.'));
      return;
    }
    await this.driver.switchTo(session);
    // After the follower moved: what is answered from here on leaves its card.
    await this.remote.offerWaiting();
    this.print(await this.banner(false));
  }

  /** Follows the current session: other processes' questions and approval requests arrive as events (then cards). */
  private async follow(): Promise<void> {
    await this.driver.follow();
    // After the follower starts: what is answered from here on leaves its card.
    await this.remote.offerWaiting();
  }

  pick(title: string, items: Array<{ label: string; value: string }>, chosen: (value: string) => Promise<void>): void {
    if (items.length === 0) {
      this.print('  Nothing to choose from.');
      return;
    }
    this.screen.setHint([title, ...items.map((item, index) => `  ${index + 1}. ${item.label}`)].join('\n'));
    this.picker = async (line) => {
      this.picker = undefined;
      this.screen.setHint('');
      const item = items[Number.parseInt(line, 10) - 1];
      if (item && /^\d+$/.test(line.trim())) await chosen(item.value);
      else this.print(style.dim('  (nothing chosen)'));
    };
  }

  choose(title: string, items: Array<{ label: string; value: string; description?: string }>, selected = 0): Promise<string | undefined> {
    if (items.length === 0) {
      this.print('  Nothing to choose from.');
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => this.screen.choose(title, items, (item) => resolve(item?.value), selected));
  }

  async answerApprovals(ids: string[], choice: ApprovalChoice, options: { reason?: string } = {}): Promise<void> {
    if (this.turn) {
      this.print(style.yellow('  Work is running: answer when it ends, or cancel it (Esc) first.'));
      return;
    }
    const answers = ids.map((id) => ({ id, choice, ...(options.reason ? { reason: options.reason } : {}) }));
    await this.runTurn((signal) =>
      resultsOf(this.driver.answer(answers, { signal }), (outcome) => {
        if (outcome.status === 'answered') return outcome.resumed;
        this.print(style.red(`  ${inert(outcome.error)}`));
        return [];
      }),
    );
  }

  /**
   * A turn that answering a card resumed in this process (its asking process is gone): shown and
   * cancellable like one typed here, and said once, through `report`. Beside a turn already running,
   * it runs under that turn's cancel.
   */
  async resumeFromCard(work: (signal: AbortSignal) => Promise<TurnResult[]>): Promise<void> {
    if (!this.turn) return this.runTurn((signal) => this.driver.track(() => work(signal)));
    for (const result of await work(this.turn.controller.signal)) this.report(result);
  }

  quit(): void {
    this.turn?.controller.abort(new Error('the REPL was closed'));
    this.turn = undefined;
    for (const detach of this.detach) detach();
    this.driver.close();
    this.screen.stop();
    this.finished(0);
  }

  /** Keys the REPL takes before the input does. */
  private key(data: string): boolean {
    // A list to choose from has the keys (↑/↓, Enter, Esc); Ctrl-C closes it as Esc does.
    if (this.screen.isChoosing) {
      if (!matchesKey(data, 'ctrl+c')) return false;
      this.screen.cancelChoice();
      return true;
    }
    if (this.search.active) {
      this.search.handle(data);
      return true;
    }
    const empty = this.screen.editor.getText() === '';
    // The approval card's menu, only from an empty input: a key typed into text is the text's.
    if (empty && !this.picker && this.prompts.key(data)) return true;
    const ctrlC = matchesKey(data, 'ctrl+c');
    if (ctrlC || (matchesKey(data, 'escape') && this.turn)) {
      if (this.shellRun) {
        this.shellRun.abort();
        return true;
      }
      // Ctrl-C on typed text clears it, as a shell does, and the running turn goes on: a card the
      // text holds up says "Ctrl-C clears it", and cancelling a whole team's work is Esc's (or an
      // empty input's Ctrl-C), never a side effect of tidying the input.
      if (ctrlC && !empty) {
        this.screen.editor.setText('');
        return true;
      }
      if (this.turn) {
        this.cancel();
        return true;
      }
      const now = Date.now();
      if (now - this.lastCtrlC < DOUBLE_PRESS_MS) this.quit();
      else {
        this.lastCtrlC = now;
        this.screen.setHint('Press Ctrl-C again to quit (or Ctrl-D).');
        setTimeout(() => this.screen.setHint(''), DOUBLE_PRESS_MS).unref();
      }
      return true;
    }
    // ↑/↓ in the completion list choose an entry other than the first; any other key but Enter starts afresh.
    if (matchesKey(data, 'up') || matchesKey(data, 'down')) this.listChosen ||= this.screen.editor.isShowingAutocomplete();
    else if (!matchesKey(data, 'enter')) this.listChosen = false;
    // A command argument typed in full is sent by Enter, not replaced by the first suggestion (Tab takes one).
    const text = this.screen.editor.getText();
    if (matchesKey(data, 'enter') && this.screen.editor.isShowingAutocomplete() && /^\/\S+\s+\S/.test(text) && !/\s$/.test(text)) {
      this.screen.editor.setText('');
      void this.submit(text.trim()).catch((error: unknown) => this.print(style.red(`error: ${errorMessage(error)}`)));
      return true;
    }
    // A message ending in `@path`: Enter does the same whether the file list showed first or not (reference-enter.ts).
    if (matchesKey(data, 'enter') && !text.startsWith('/') && this.cursorAtEnd()) {
      const outcome = enterOnReference(text, this.legion.paths.root);
      if (outcome?.action === 'send') {
        const message = this.screen.editor.getExpandedText().trim();
        this.screen.editor.setText('');
        void this.submit(message).catch((error: unknown) => this.print(style.red(`error: ${errorMessage(error)}`)));
        return true;
      }
      // The first completion, whether or not the list (which puts it first too) is drawn yet; one chosen in it with ↑/↓ is the editor's to take.
      if (outcome?.action === 'complete' && !this.listChosen) {
        this.screen.setInput(outcome.text);
        return true;
      }
    }
    if (matchesKey(data, 'ctrl+d') && empty) {
      this.quit();
      return true;
    }
    if (matchesKey(data, 'ctrl+o')) {
      // A card too tall for the terminal comes first: its hidden lines are what the user is asked about.
      if (!this.screen.printClippedCard()) this.expandNext();
      return true;
    }
    if (matchesKey(data, 'ctrl+r')) {
      this.search.start();
      return true;
    }
    if (matchesKey(data, 'ctrl+t')) {
      this.showRawNext();
      return true;
    }
    return false;
  }

  private cursorAtEnd(): boolean {
    const lines = this.screen.editor.getLines();
    const cursor = this.screen.editor.getCursor();
    return cursor.line === lines.length - 1 && cursor.col === (lines.at(-1) ?? '').length;
  }

  private async submit(text: string): Promise<void> {
    if (!text) return;
    this.screen.editor.addToHistory(text);
    this.history.add(text);
    if (this.picker) return this.picker(text);
    // Commands and shell lines work while a card waits (to look something up before answering).
    if (text.startsWith('/')) {
      this.print(style.dim(`› ${text}`));
      return runSlashCommand(this, text);
    }
    if (text.startsWith('!')) return this.shell(text.slice(1).trim());
    if (this.prompts.active && this.prompts.submit(text)) return;
    if (this.turn) {
      this.queue.push(text);
      this.screen.setQueued(this.queue.map((line) => clip(line, 100)));
      return;
    }
    await this.send(text);
  }

  private async send(text: string): Promise<void> {
    const { to, conversation } = this.target;
    this.print(`${style.bold(style.green('you'))} → ${style.bold(to)}${conversation ? style.dim(` (${conversation})`) : ''}: ${text}`);
    const message = withFileReferences(text, this.legion.paths.root);
    await this.runTurn((signal) => resultsOf(this.driver.send(message, { to, conversation, signal }), (result) => [result]));
  }

  /** Runs one top-level piece of work with the status line, then sends what was typed meanwhile. */
  private async runTurn(start: (signal: AbortSignal) => DrivenWork<TurnResult[]>): Promise<void> {
    const turn = { id: ++this.turns, controller: new AbortController() };
    let results: TurnResult[] = [];
    let failure: unknown;
    let work: DrivenWork<TurnResult[]> | undefined;
    try {
      work = start(turn.controller.signal);
    } catch (error) {
      failure = error;
    }
    this.turn = turn;
    if (work) {
      this.activity.beginTurn(work.usage);
      try {
        results = await work.done;
      } catch (error) {
        failure = error;
      }
    }
    // Cancelled: the prompt came back already. Its line comes now, once the turn has unwound: the
    // call it cut off is counted then (estimated), and the line shows what it cost.
    if (this.turn !== turn) {
      // Another turn began meanwhile: the figures on the line are that turn's now.
      this.print(style.yellow(this.turn ? '  cancelled' : `  cancelled (${this.activity.endTurn()})`));
      // Read once the turn has unwound: the approvals it waited on are settled (cancelled with it) by then.
      const pending = await this.driver.pendingApprovals();
      if (pending.length > 0)
        this.print(
          style.yellow(
            `  ${pending.length} approval(s) still pending (saved): /approvals shows them, /approve ID or /reject ID reason answers.`,
          ),
        );
      return;
    }
    this.turn = undefined;
    for (const result of results) this.report(result);
    if (failure !== undefined) this.print(style.red(`error: ${inert(errorMessage(failure))}`));
    if (work) this.print(style.dim(`  (${this.activity.endTurn()})`));
    const next = this.queue.shift();
    this.screen.setQueued(this.queue);
    if (next !== undefined) await this.send(next);
  }

  private report(result: TurnResult): void {
    if (result.status === 'success') {
      if (!this.activity.streamed.has(result.conversationId))
        this.screen.printReply(`${style.bold(style.cyan(inertLine(parseResponder(result.conversationId))))}: `, inert(result.reply));
      if (result.truncated) this.print(style.yellow("  (the reply was cut off at the model's output limit)"));
    } else if (result.status === 'paused') {
      const pause = this.driver.explainPause(result.requests);
      this.print(
        style.yellow(
          `  ${inert(pause.headline)}: /approvals shows them, a card or /approve ID answers (or ${inert(pause.approveCommand)} in another terminal).`,
        ),
      );
    } else {
      this.print(style.red(`  ${inertLine(parseResponder(result.conversationId))} could not answer: ${inert(result.error)}`));
    }
  }

  /** Esc / Ctrl-C: the turn and its delegates stop; the prompt is back at once, queued text returns to the input. */
  private cancel(): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = undefined;
    turn.controller.abort(new LegionError('cancelled', 'Cancelled by the user.'));
    this.activity.stopTurn();
    if (this.queue.length > 0) {
      const restored = this.queue.splice(0).join('\n');
      this.screen.editor.setText(restored);
      this.screen.setQueued([]);
      this.print(style.dim('  your queued messages are back in the input'));
    }
  }

  private async shell(command: string): Promise<void> {
    if (!command) return;
    this.print(style.dim(`! ${command}`));
    this.shellRun = new AbortController();
    const { output, code } = await runShellEscape(command, this.legion.paths.root, this.shellRun.signal).finally(
      () => (this.shellRun = undefined),
    );
    if (output) this.print(output.replace(/\n$/, ''));
    if (code !== 0) this.print(style.dim(`  (exit ${code ?? 'signal'})`));
  }

  /** Which reply Ctrl-T shows next, counted back from the last (1); a new reply starts again from it. */
  private rawBack = { replies: 0, next: 1 };

  /** Ctrl-T: the last reply as the model wrote it (its markdown, raw), then the one before it at each press. */
  private showRawNext(): void {
    const { replies } = this.screen;
    if (this.rawBack.replies !== replies.length) this.rawBack = { replies: replies.length, next: 1 };
    const reply = replies[replies.length - this.rawBack.next];
    if (reply === undefined) {
      this.print(style.dim(replies.length === 0 ? '  No reply yet.' : '  No reply before that one is kept.'));
      return;
    }
    this.print(style.dim(`  reply ${this.rawBack.next} back, as written:`));
    this.print(reply);
    this.rawBack.next++;
  }

  /** Ctrl-O: the last folded result or message whole, then the one before it at each press. */
  private expandNext(): void {
    const next = this.activity.expandNext();
    if (next) this.screen.print(next.text, next.margin);
    else this.print(style.dim(this.activity.last ? '  Nothing more to expand.' : '  No tool call yet.'));
  }

  private async banner(first: boolean): Promise<string> {
    const conversations = (await this.session.listConversations()).length;
    const lines = [
      `${style.bold('legion')} · session ${this.session.id}${conversations > 0 ? ` (${conversations} conversation${conversations === 1 ? '' : 's'})` : ' (new)'} · talking to ${style.bold(this.target.to)}${first ? style.dim(' · /help for commands, Ctrl-D to quit') : ''}`,
    ];
    for (const { conversation, message } of await this.session.recentMessages(6)) {
      const author = message.role === 'assistant' ? conversation.responder : conversation.initiator;
      const text = message.content
        .filter((block) => block.type === 'text')
        .map((block) => (block.type === 'text' ? block.text : ''))
        .join(' ');
      // The message that ends a failed or cancelled turn is written for its model: people read its status.
      if (message.ending)
        lines.push(
          `${style.dim(`  ${inertLine(author)} (${inertLine(conversation.conversationId)}):`)} ${endingLine(message.ending, style, 100)}`,
        );
      else if (text) lines.push(style.dim(`  ${inertLine(author)} (${inertLine(conversation.conversationId)}): ${clip(text, 100)}`));
    }
    const pending = (await this.driver.pendingApprovals()).length;
    if (pending > 0) lines.push(style.yellow(`  ${pending} approval(s) waiting: /approvals`));
    return lines.join('\n');
  }
}

/** The work's end as the REPL reports it: the turns' results. */
function resultsOf<T>(work: DrivenWork<T>, results: (outcome: T) => TurnResult[]): DrivenWork<TurnResult[]> {
  return { usage: work.usage, conversations: work.conversations, done: work.done.then(results) };
}

function parseResponder(conversationId: string): string {
  return conversationId.split('__')[1] ?? conversationId;
}
