import { createHash } from 'node:crypto';
import {
  chooseSession,
  errorMessage,
  SessionDriver,
  textOf,
  type AnswerOutcome,
  type Participant,
  type Session,
  type TurnResult,
  type UsageTotals,
} from '@legion-collective/core';
import { conversationId, parseConversationId } from '@legion-collective/core/internal';
import { TaskState, type Task } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import { pauseReply, decisionOf } from './pause-reply.js';
import type { A2aServeContext } from './serve-context.js';
import { answerEvent, legionFactsOf, statusEvent, textOfMessage, type LegionTaskFacts, type TaskIds } from './task-events.js';
import type { FileTaskStore } from './task-store.js';

/** The surface's name, recorded with what an A2A client decides or answers. */
const MEDIUM = 'a2a';

/** A task's work while it runs in this process: stopping it stops the whole delegation tree (the one turn lifecycle). */
interface RunningTask {
  stop: AbortController;
  done: Promise<void>;
}

/** The outcome of one piece of a task's work, to be told as its status. */
type Outcome = TurnResult | { status: 'told'; state: TaskState; text: string; waiting?: LegionTaskFacts['waiting'] };

/**
 * One exposed agent as an A2A agent executor: a task is the work of one message (the agent's turn
 * and every turn it delegates), driven through the session driver every surface uses, as the
 * `mcpServe.caller` user. A context is a named conversation with the agent, in the session its first
 * task worked in: follow-ups continue it. A paused turn is an input-required task; the client's next
 * message in it answers (a question, or approvals it may decide) and resumes the work.
 */
export class LegionExecutor implements AgentExecutor {
  private readonly running = new Map<string, RunningTask>();

  constructor(
    private readonly serve: A2aServeContext,
    private readonly agent: Participant,
    private readonly store: FileTaskStore,
  ) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const ids: TaskIds = { taskId: request.taskId, contextId: request.contextId };
    const stop = new AbortController();
    let finished!: () => void;
    this.running.set(ids.taskId, { stop, done: new Promise<void>((resolve) => (finished = resolve)) });
    try {
      await this.work(request, bus, ids, stop.signal);
    } finally {
      this.running.delete(ids.taskId);
      finished();
    }
  };

  /**
   * Stops a running task's tree and waits until it has unwound (its end written). A task waiting on
   * input has a paused tree instead: what it waits on is settled (its approvals rejected as
   * cancelled, its questions withdrawn), so nothing of it runs later, whoever answers.
   */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const running = this.running.get(taskId);
    if (running) {
      running.stop.abort(new Error('the A2A client cancelled the task'));
      await running.done;
      return;
    }
    const task = await this.store.load(taskId, this.serve.callContext());
    if (!task) return;
    const facts = legionFactsOf(task.metadata);
    let text = 'Cancelled by the A2A client.';
    if (facts?.waiting) {
      const session = await this.serve.legion.sessions.get(facts.sessionId);
      await session.settleEndedTree(facts.conversationId, { status: 'cancelled', code: 'cancelled' });
      text = `Cancelled by the A2A client: what the task waited on is settled (approvals rejected, questions withdrawn) in session ${facts.sessionId}.`;
    }
    bus.publish(statusEvent({ taskId, contextId: task.contextId }, TaskState.TASK_STATE_CANCELED, { text }));
  };

  /** Stops every running task (the server is stopping) and waits for each to unwind. */
  async shutdown(): Promise<void> {
    for (const running of this.running.values()) running.stop.abort(new Error('legion a2a serve is shutting down'));
    await Promise.all([...this.running.values()].map((running) => running.done));
  }

  private async work(request: RequestContext, bus: ExecutionEventBus, ids: TaskIds, signal: AbortSignal): Promise<void> {
    const previous = request.task;
    const text = textOfMessage(request.userMessage);
    let facts: LegionTaskFacts;
    let session: Session;
    try {
      ({ facts, session } = await this.place(ids, previous));
    } catch (error) {
      bus.publish(AgentEvent.task(taskOf(ids, previous, request, undefined, TaskState.TASK_STATE_FAILED)));
      bus.publish(statusEvent(ids, TaskState.TASK_STATE_FAILED, { text: errorMessage(error) }));
      return;
    }
    const legion = { sessionId: facts.sessionId, conversationId: facts.conversationId, agent: facts.agent };
    bus.publish(AgentEvent.task(taskOf(ids, previous, request, legion, TaskState.TASK_STATE_SUBMITTED)));
    if (text.trim().length === 0) {
      bus.publish(
        statusEvent(ids, TaskState.TASK_STATE_REJECTED, {
          text: 'The message has no text: send what you want the agent to do as a text part.',
          metadata: { legion },
        }),
      );
      return;
    }
    bus.publish(statusEvent(ids, TaskState.TASK_STATE_WORKING, { metadata: { legion } }));

    const { calls, caller } = this.serve;
    const conversations = new Set([facts.conversationId]);
    const waiting = previous?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED ? legionFactsOf(previous.metadata)?.waiting : undefined;
    if (waiting) for (const id of await this.waitingConversations(session, waiting)) conversations.add(id);
    const { call, end } = calls.start(session.id, [...conversations], {
      progress: (line) => bus.publish(statusEvent(ids, TaskState.TASK_STATE_WORKING, { text: line })),
    });
    const unsubscribe = this.streamAnswer(bus, ids, facts);
    // A question to a user waits while a surface of another process (a REPL, the web UI) could answer it: the client is told why the task waits.
    const offQuestions = this.serve.legion.events.on('question:asked', (event) => {
      if (event.sessionId !== session.id || !call.conversations.has(event.conversationId)) return;
      call.progress(`${event.from} asks ${event.user}: "${event.text}" (${event.questionId})`);
    });
    try {
      const stop = AbortSignal.any([signal, calls.stopping]);
      const driver = await SessionDriver.open(this.serve.legion, { session, as: caller.id, medium: MEDIUM });
      const outcome = waiting
        ? await this.answer(driver, session, facts.conversationId, waiting, text, stop)
        : await driver.send(text, { to: this.agent.id, conversation: nameOf(facts), signal: stop, ifBusy: 'wait' }).done;
      const cancelled = signal.aborted || calls.stopping.aborted;
      this.tell(bus, ids, legion, outcome, {
        session,
        usage: call.usage.total,
        cancelled,
        stopped: cancelled ? cancelledText(signal, calls.stopping) : undefined,
      });
    } catch (error) {
      const cancelled = signal.aborted || calls.stopping.aborted;
      bus.publish(
        statusEvent(ids, cancelled ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED, {
          text: cancelled ? cancelledText(signal, calls.stopping) : errorMessage(error),
          metadata: { legion },
        }),
      );
    } finally {
      offQuestions();
      unsubscribe();
      end();
    }
  }

  /** The session and conversation of a task: its own, else its context's (from an earlier task), else the latest session's. */
  private async place(ids: TaskIds, previous: Task | undefined): Promise<{ facts: LegionTaskFacts; session: Session }> {
    const { legion } = this.serve;
    const known = legionFactsOf(previous?.metadata) ?? (await this.contextFacts(ids.contextId));
    if (known) return { facts: known, session: await legion.sessions.get(known.sessionId) };
    const session = await chooseSession(legion.sessions);
    const name = conversationNameOf(ids.contextId);
    return {
      facts: {
        sessionId: session.id,
        conversationId: conversationId({ initiator: this.serve.caller.id, responder: this.agent.id, name }),
        agent: this.agent.id,
      },
      session,
    };
  }

  /** The Legion facts of an earlier task of this context, if any: every task of a context works in the same conversation. */
  private async contextFacts(contextId: string): Promise<LegionTaskFacts | undefined> {
    const listed = await this.store.list(
      { tenant: '', contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined },
      this.serve.callContext(),
    );
    for (const task of listed.tasks) {
      const facts = legionFactsOf(task.metadata);
      if (facts) return { sessionId: facts.sessionId, conversationId: facts.conversationId, agent: facts.agent };
    }
    return undefined;
  }

  /** The conversations a task waiting on input resumes: where each awaited request or question waits, and every one waiting on it. */
  private async waitingConversations(session: Session, waiting: NonNullable<LegionTaskFacts['waiting']>): Promise<string[]> {
    const found: string[] = [];
    const approvals = await session.approvals.state();
    for (const id of [...waiting.approvals, ...waiting.elsewhere]) {
      const request = approvals.request(id);
      if (!request) continue;
      found.push(request.conversationId, ...request.frames.map((frame) => frame.conversationId));
    }
    const questions = await session.questions.state();
    for (const id of [...waiting.questions, ...waiting.elsewhere]) {
      const question = questions.question(id);
      if (question) found.push(question.conversationId, ...(question.frames ?? []).map((frame) => frame.conversationId));
    }
    return found;
  }

  /** The client's reply to an input-required task: the answer to its question, or its decision on its approvals, and the work resumed. */
  private async answer(
    driver: SessionDriver,
    session: Session,
    conversation: string,
    waiting: NonNullable<LegionTaskFacts['waiting']>,
    text: string,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const { caller } = this.serve;
    const question = waiting.questions[0];
    if (question !== undefined) {
      const outcome = await session.answerQuestion(question, text, { answeredBy: caller.id, medium: MEDIUM });
      if (outcome.status === 'error') return { status: 'told', state: TaskState.TASK_STATE_FAILED, text: outcome.error };
      return resumedOutcome(outcome.resumed ?? [], caller.id, 'The answer was recorded; the turn that asked goes on in another process.');
    }
    if (waiting.approvals.length > 0) {
      const decision = decisionOf(text);
      if (!decision) {
        return {
          status: 'told',
          state: TaskState.TASK_STATE_INPUT_REQUIRED,
          text: `"${text.slice(0, 80)}" is not a decision: reply "approve" to allow ${waiting.approvals.join(', ')} once, or "reject" (or "reject: why").`,
          waiting,
        };
      }
      const answers = waiting.approvals.map((id) => ({ id, ...decision }));
      const outcome: AnswerOutcome = await driver.answer(answers, { signal }).done;
      if (outcome.status === 'error') return { status: 'told', state: TaskState.TASK_STATE_FAILED, text: outcome.error };
      return resumedOutcome(outcome.resumed, caller.id, 'Recorded; the turns it held go on in another process.');
    }
    // Only the human could answer: tell how it stands now.
    const approvals = await session.approvals.state();
    const questions = await session.questions.state();
    const open = waiting.elsewhere.filter((id) =>
      questions.question(id)
        ? questions.outcome(id) === undefined
        : approvals.request(id) !== undefined && approvals.decision(id) === undefined,
    );
    if (open.length > 0) {
      return {
        status: 'told',
        state: TaskState.TASK_STATE_INPUT_REQUIRED,
        text: `Still waiting for the human to decide ${open.join(', ')} in the workspace (legion approvals, legion questions, the REPL or the web UI).`,
        waiting,
      };
    }
    // Settled there: the turn went on in the process that settled it, and its reply (once written) ends the conversation's log.
    const [last] = await session.conversation(parseConversationId(conversation)).recent(1);
    const reply = last?.role === 'assistant' ? textOf(last) : '';
    if (reply.length > 0) return { status: 'success', reply, conversationId: conversation };
    return {
      status: 'told',
      state: TaskState.TASK_STATE_COMPLETED,
      text: `${waiting.elsewhere.join(', ')} ${waiting.elsewhere.length === 1 ? 'was' : 'were'} settled in the workspace, and the work goes on there: its reply will be in conversation ${conversation} of session ${session.id} (\`legion log --session ${session.id} ${conversation}\`). Send a new message in this context to continue.`,
    };
  }

  /** The agent's text in the task's own conversation, streamed into the answer artifact as it is written. */
  private streamAnswer(bus: ExecutionEventBus, ids: TaskIds, facts: LegionTaskFacts): () => void {
    let streamed = false;
    return this.serve.legion.events.on('text:delta', (event) => {
      if (event.sessionId !== facts.sessionId || event.conversationId !== facts.conversationId || event.participantId !== facts.agent)
        return;
      bus.publish(answerEvent(ids, event.text, { append: streamed, lastChunk: false }));
      streamed = true;
    });
  }

  /** The final status of a piece of work: the reply as the answer artifact, the error, the cancel, or what the task waits on. */
  private tell(
    bus: ExecutionEventBus,
    ids: TaskIds,
    legion: LegionTaskFacts,
    outcome: Outcome,
    options: { session: Session; usage: UsageTotals; cancelled: boolean; stopped?: string | undefined },
  ): void {
    const { session, usage, cancelled } = options;
    // The tokens and cost of the whole delegation tree's work for this message, as `legion mcp serve` reports them.
    const facts = { legion, usage };
    if (outcome.status === 'told') {
      // Still input-required: what it waits on stays with the task, for the next message.
      const legionNow = outcome.waiting ? { ...legion, waiting: outcome.waiting } : legion;
      bus.publish(statusEvent(ids, outcome.state, { text: outcome.text, metadata: { ...facts, legion: legionNow } }));
      return;
    }
    if (outcome.status === 'success') {
      bus.publish(answerEvent(ids, outcome.reply, { append: false, lastChunk: true }));
      bus.publish(statusEvent(ids, TaskState.TASK_STATE_COMPLETED, { text: outcome.reply, metadata: facts }));
      return;
    }
    if (outcome.status === 'error') {
      bus.publish(
        statusEvent(ids, cancelled ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED, {
          text: cancelled ? (options.stopped ?? `Cancelled: ${outcome.error}`) : outcome.error,
          metadata: { ...facts, code: outcome.code },
        }),
      );
      return;
    }
    const reply = pauseReply(outcome, this.serve.caller, session.id);
    bus.publish(
      statusEvent(ids, TaskState.TASK_STATE_INPUT_REQUIRED, {
        text: reply.text,
        metadata: { ...facts, legion: { ...legion, waiting: reply.waiting } },
      }),
    );
  }
}

/** The resumed turn the task waits on (the caller's own conversation), else the last; or what to say when none resumed here. */
function resumedOutcome(resumed: readonly TurnResult[], callerId: string, none: string): Outcome {
  const main = resumed.find((result) => result.conversationId.startsWith(`${callerId}__`)) ?? resumed.at(-1);
  return main ?? { status: 'told', state: TaskState.TASK_STATE_COMPLETED, text: none };
}

/** The task event that opens a piece of work: the stored task (a follow-up in it) or a new one with the client's message. */
function taskOf(
  ids: TaskIds,
  previous: Task | undefined,
  request: RequestContext,
  legion: LegionTaskFacts | undefined,
  state: TaskState,
): Task {
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state, message: undefined, timestamp: new Date().toISOString() },
    artifacts: previous?.artifacts ?? [],
    history: previous?.history ?? [request.userMessage],
    metadata: { ...previous?.metadata, ...(legion ? { legion } : {}) },
  };
}

/**
 * The conversation name a context maps to: the context id itself when it is a valid name (a UUID,
 * as the SDK makes them; then `legion log` finds it by the id), else a digest of it.
 */
export function conversationNameOf(contextId: string): string {
  if (/^[A-Za-z0-9](?:[A-Za-z0-9.-]|_(?!_))*$/.test(contextId) && contextId.length <= 64) return contextId;
  return `a2a-${createHash('sha256').update(contextId).digest('hex').slice(0, 24)}`;
}

/** The conversation name inside a task's conversation id (`caller__agent__name`). */
function nameOf(facts: LegionTaskFacts): string | undefined {
  return parseConversationId(facts.conversationId).name;
}

function cancelledText(signal: AbortSignal, stopping: AbortSignal): string {
  const reason = (signal.aborted ? signal.reason : stopping.reason) as unknown;
  return `Cancelled: ${reason instanceof Error ? reason.message : 'the work was stopped'}; the whole delegation tree stopped.`;
}
