import type { AgentContext, SessionUpdate, StopReason, ToolCallContent } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';
import {
  delegatedConversation,
  DelegationTree,
  errorMessage,
  SessionDriver,
  type Legion,
  type LegionEvent,
  type QuestionView,
  type TurnResult,
  type UsageTally,
} from '@legion-collective/core';
import { conversationId, fileChange, fileChangeInEditor } from '@legion-collective/core/internal';
import { DelegateText } from './delegate-text.js';
import { planUpdate, type PlanBoard } from './plan-board.js';
import { usageUpdate } from './usage-update.js';
import { diffContent, keptChangeContent, resultContent, toolCallView, type ToolCallView } from './tool-call-view.js';
import { inert, stderr } from '../render/terminal-text.js';

/** The turn a prompt runs: its tree of conversations, and what the editor has been told of it. */
interface RunningPrompt {
  readonly controller: AbortController;
  readonly tree: DelegationTree;
  /** Tool calls the editor knows (announced at their approval request, or when they ran). */
  readonly announced: Set<string>;
  /** Diff content shown for file tools, kept on the call when it completes. */
  readonly diffs: Map<string, ToolCallContent[]>;
  usage?: UsageTally | undefined;
  /** The entry agent's last request against its window, for `usage_update`. */
  context?: { used: number; size: number } | undefined;
  /** What delegates stream, shown on the calls that asked them. */
  readonly delegates: DelegateText;
}

/**
 * One ACP session: a Legion session, driven through core's `SessionDriver` as the workspace's user
 * on the `acp` medium. A prompt is a message to the entry agent; what its delegation tree does
 * (streamed text of the entry agent, every tool call down the tree, todos, usage) reaches the
 * editor as `session/update`s, in the order it happened.
 */
export class AcpSession {
  private running: RunningPrompt | undefined;
  /** Settles when the running prompt (if any) has unwound. */
  private unwound: Promise<unknown> = Promise.resolve();
  private readonly plans: PlanBoard = new Map();
  /** Updates go out one after another: the editor applies them in arrival order. */
  private sent: Promise<void> = Promise.resolve();
  /** Said once: the updates that could not be sent after it are dropped without a word. */
  private dropping = false;

  constructor(
    readonly driver: SessionDriver,
    private readonly client: AgentContext,
    private readonly legion: Legion,
  ) {}

  get id(): string {
    return this.driver.session.id;
  }

  /** The conversation prompts go into: the user's with the entry agent. */
  get mainConversation(): string {
    return conversationId({ initiator: this.driver.you, responder: this.legion.entryAgentId() });
  }

  /** Whether a prompt of this session runs now (its approvals are this editor's to ask). */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * Queues an update. An update that cannot be written (the editor closed the connection) is
   * dropped: the turn goes on to its end (or its cancel) and its log keeps what happened.
   */
  send(update: SessionUpdate): Promise<void> {
    this.sent = this.sent
      .then(() => this.client.notify('session/update', { sessionId: this.id, update }))
      .catch((error: unknown) => {
        if (!this.dropping) stderr.write(`legion acp: an update to the editor was not sent: ${inert(errorMessage(error))}\n`);
        this.dropping = true;
      });
    return this.sent;
  }

  /** Settles once every update queued so far was written (or dropped). */
  flushed(): Promise<void> {
    return this.sent;
  }

  /**
   * Runs one prompt to its end. A question an agent asked the user that still waits is answered
   * by the prompt (see `questionsText`); otherwise the prompt is a message to the entry agent.
   */
  async prompt(text: string): Promise<StopReason> {
    if (this.running) throw RequestError.invalidRequest(undefined, `Session ${this.id} is still answering a prompt; cancel it first.`);
    const pending = await this.pendingQuestions();
    const question = pending[0];
    const controller = new AbortController();
    const running: RunningPrompt = {
      controller,
      // Answering a question resumes turns anywhere down the tree that asked it: the whole session's events are this prompt's.
      tree: new DelegationTree(this.id, question ? 'whole' : [this.mainConversation]),
      announced: new Set(),
      diffs: new Map(),
      delegates: new DelegateText(
        (toolCallId, streamed) => void this.send({ sessionUpdate: 'tool_call_update', toolCallId, content: resultContent(streamed) }),
      ),
    };
    this.running = running;
    const work = question ? this.answerQuestion(question, text, running) : this.sendMessage(text, running);
    this.unwound = work.catch(() => undefined);
    try {
      return await this.ending(await work);
    } finally {
      running.delegates.dispose();
      this.running = undefined;
      await this.flushed();
    }
  }

  /** Settles once the running prompt's work has unwound (after a cancel too). */
  settled(): Promise<unknown> {
    return this.unwound;
  }

  /** `session/cancel`: stops the prompt's turn and, through the driver's signal, every turn down its tree. */
  cancel(): void {
    this.running?.controller.abort(new Error('cancelled in the editor'));
  }

  /** Each event of the running prompt's tree, as the editor's update. */
  handle(event: LegionEvent): void {
    if (event.type === 'session:updated') {
      // The thread's title in the editor follows the session's (given by the first message, or \`legion sessions rename\`).
      if (event.changed.includes('title'))
        void this.send({ sessionUpdate: 'session_info_update', title: event.title ?? null, updatedAt: event.lastActiveAt });
      return;
    }
    const running = this.running;
    if (!running || !running.tree.takes(event)) return;
    const entryAgent = this.legion.entryAgentId();
    if (event.type === 'text:delta') {
      if (event.conversationId === this.mainConversation && event.participantId === entryAgent)
        void this.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } });
      else running.delegates.text(event.conversationId, event.text);
      return;
    }
    if (event.type === 'tool:call') {
      const { toolUse } = event;
      const delegated = delegatedConversation(event);
      if (delegated !== undefined) running.delegates.delegated(delegated, toolUse.id);
      if (running.announced.has(toolUse.id)) {
        void this.send({ sessionUpdate: 'tool_call_update', toolCallId: toolUse.id, status: 'in_progress' });
        return;
      }
      running.announced.add(toolUse.id);
      const view = toolCallView(toolUse, { participant: event.participantId, entryAgent, root: this.legion.paths.root });
      // Read now, before the tool runs (events are delivered synchronously): the file as it was, and as the call makes it.
      const change = this.changeOf(event.participantId, toolUse.name, toolUse.input);
      const content = change ?? [];
      if (change) running.diffs.set(toolUse.id, change);
      void this.send({
        sessionUpdate: 'tool_call',
        toolCallId: toolUse.id,
        ...view,
        status: 'in_progress',
        rawInput: toolUse.input,
        content,
      });
      return;
    }
    if (event.type === 'tool:result') {
      const { toolUse, result } = event;
      running.delegates.end(toolUse.id);
      const failed = result.isError === true;
      const diff = running.diffs.get(toolUse.id);
      // A file edit keeps its diff once done (the editor shows what changed); a failed one shows why instead. A call
      // not announced with a diff (read after the fact) shows the change its result kept.
      const content =
        diff && !failed
          ? diff
          : result.fileChange !== undefined && !failed
            ? keptChangeContent(result.fileChange, result.content, this.legion.paths.root)
            : resultContent(result.content);
      void this.send({
        sessionUpdate: 'tool_call_update',
        toolCallId: toolUse.id,
        status: failed ? 'failed' : 'completed',
        content,
        rawOutput: result.content,
      });
      if (toolUse.name === 'todo_write' && !failed) {
        const plan = planUpdate(this.plans, event.participantId, toolUse.input, entryAgent);
        if (plan) void this.send(plan);
      }
      return;
    }
    if (event.type === 'context:usage') {
      if (event.conversationId === this.mainConversation)
        running.context = { used: event.usage.total, size: event.usage.limit > 0 ? event.usage.limit : event.usage.total };
      return;
    }
    if (event.type === 'usage:report') {
      // After the driver's tally has taken the report too (its listener may come after this one).
      queueMicrotask(() => this.sendUsage(running));
    }
  }

  /**
   * An approval of this prompt's tree as a tool call the editor already shows (so the permission
   * request points at it): pending, with exactly what would run.
   */
  announceApproval(
    toolUseId: string,
    participant: string,
    tool: string,
    input: unknown,
    change: ToolCallContent[] | undefined,
  ): ToolCallView {
    const view = toolCallView(
      { type: 'tool_use', id: toolUseId, name: tool, input },
      { participant, entryAgent: this.legion.entryAgentId(), root: this.legion.paths.root },
    );
    const running = this.running;
    if (!running || running.announced.has(toolUseId)) return view;
    running.announced.add(toolUseId);
    if (change) running.diffs.set(toolUseId, change);
    void this.send({
      sessionUpdate: 'tool_call',
      toolCallId: toolUseId,
      ...view,
      status: 'pending',
      rawInput: input,
      content: change ?? [],
    });
    return view;
  }

  /** The signal of the running prompt: a permission request of its turn is withdrawn when it is cancelled. */
  get promptSignal(): AbortSignal | undefined {
    return this.running?.controller.signal;
  }

  /** A pending file_write/file_edit's change as diff content (core's `fileChange`), for any other tool undefined. */
  changeOf(participant: string, tool: string, input: unknown): ToolCallContent[] | undefined {
    const change = fileChange({
      workspaceRoot: this.legion.paths.root,
      auth: this.legion.auth,
      requester: this.legion.collective.get(participant),
      tool,
      input,
    });
    return change ? diffContent(change, this.legion.paths.root) : undefined;
  }

  /**
   * The change a call waiting for approval would make, as diff content: to the editor's text of the
   * file (its unsaved buffer) when it offers its files, since that is what the tool changes; to the
   * requester's worktree for an isolated delegate; else to the disk. Other tools: undefined.
   */
  async approvalChange(
    participant: string,
    tool: string,
    input: unknown,
    worktree: string | undefined,
    signal: AbortSignal,
  ): Promise<ToolCallContent[] | undefined> {
    const change = await fileChangeInEditor(
      {
        workspaceRoot: this.legion.paths.root,
        auth: this.legion.auth,
        requester: this.legion.collective.get(participant),
        tool,
        input,
        worktree,
      },
      this.driver.session.editorFiles,
      signal,
    );
    return change ? diffContent(change, this.legion.paths.root) : undefined;
  }

  private async sendMessage(text: string, running: RunningPrompt): Promise<TurnResult> {
    const work = this.driver.send(text, { signal: running.controller.signal, ifBusy: 'fail' });
    running.usage = work.usage;
    return work.done;
  }

  /**
   * The prompt answers the question the turn paused on, as the user on this medium; the turns it
   * resumes are this prompt's (their usage counted by the driver, which tracks the whole session
   * for work whose conversations are not known beforehand).
   */
  private async answerQuestion(question: QuestionView, text: string, running: RunningPrompt): Promise<TurnResult> {
    const session = this.driver.session;
    const work = this.driver.track(async () =>
      session.answerQuestion(question.id, text, { medium: 'acp', answeredBy: this.driver.you, resume: true }),
    );
    running.usage = work.usage;
    const outcome = await work.done;
    if (outcome.status === 'error') throw RequestError.invalidParams(undefined, outcome.error);
    const resumed = outcome.resumed ?? [];
    const main = resumed.find((result) => result.conversationId === this.mainConversation) ?? resumed.at(-1);
    if (!main) {
      await this.send(agentText(`Your answer went to ${question.from}; its turn goes on in another process.`));
      return { status: 'success', reply: '', conversationId: this.mainConversation };
    }
    return main;
  }

  /** How the turn's recorded ending reaches the editor: a stop reason, or an error response for a failed turn. */
  private async ending(result: TurnResult): Promise<StopReason> {
    if (result.status === 'success') return result.truncated ? 'max_tokens' : 'end_turn';
    if (result.status === 'error') {
      if (result.code === 'cancelled') return 'cancelled';
      if (result.code === 'max_iterations') return 'max_turn_requests';
      // A failed turn must not look like an answer: the prompt fails, with the turn's own words and code.
      throw new RequestError(-32603, `${this.legion.entryAgentId()} could not answer: ${result.error}`, { code: result.code });
    }
    await this.send(agentText(pausedText(result.requests.length, result.questions ?? [], this.id)));
    return 'end_turn';
  }

  private async pendingQuestions(): Promise<QuestionView[]> {
    try {
      const state = await this.driver.session.questions.state();
      return state.list({ status: 'pending' }).filter((question) => question.user === this.driver.you);
    } catch (error) {
      stderr.write(`legion acp: could not read the questions of session ${this.id}: ${inert(errorMessage(error))}\n`);
      return [];
    }
  }

  private sendUsage(running: RunningPrompt): void {
    const total = running.usage?.total;
    if (total) void this.send(usageUpdate(total, running.context ?? { used: 0, size: 0 }));
  }
}

function agentText(text: string): SessionUpdate {
  return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } };
}

/**
 * Why the prompt ended without an answer yet. An agent's question to you is a message the next
 * prompt answers: ACP's permission request offers fixed options only, and Legion's questions are
 * free text, so the question is shown in the thread and the turn waits (durably: `legion answer`,
 * the REPL and the browser can answer it too).
 */
function pausedText(approvals: number, questions: readonly QuestionView[], sessionId: string): string {
  const lines: string[] = [];
  for (const question of questions) lines.push(`${question.from} asks you: ${question.text}\n\n(Your next message answers it.)`);
  if (approvals > 0)
    lines.push(
      `${approvals} tool call${approvals === 1 ? '' : 's'} of this turn wait${approvals === 1 ? 's' : ''} for approval (left open here, or not yours to give): \`legion approvals --session ${sessionId}\` shows them and who decides; the turn goes on once they are decided.`,
    );
  return `\n\n${lines.join('\n\n')}`;
}
