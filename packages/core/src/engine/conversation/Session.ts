import type { Collective, Participant } from '../../team/index.js';
import { finishDirectWorktree, openDirectWorktree } from '../../tools/index.js';
import { TurnFileClaims } from './turn-file-claims.js';
import { LegionError, ParticipantNotFoundError, exactBytes } from '../../kernel/index.js';
import type { ConversationRef, Message, ToolUseBlock } from '../../kernel/index.js';
import type {
  AnswerOutcome,
  CompactOutcome,
  EditorFiles,
  QuestionAnswerOutcome,
  ResumeOutcome,
  SendRequest,
  ToolSession,
  TurnResult,
} from '../../session/index.js';
import { framesOfTurn, MessageWork, treeOf, conversationId, parseConversationId } from '../../session/index.js';
import type {
  ApprovalAnswer,
  ClaimConflictRecord,
  ApprovalView,
  DelegationFrame,
  LogCursor,
  SessionBackend,
  SessionMeta,
} from '../../store/index.js';
import {
  SessionApprovals,
  SessionQuestions,
  type QuestionView,
  SessionAgentState,
  SessionArtifacts,
  OpenHandles,
  addUsage,
  emptyTotals,
  summarizeUsage,
  type UsageRecord,
  type UsageSummary,
  type UsageTotals,
} from '../../store/index.js';
import {
  answerApprovals,
  answerQuestion,
  type AnswerQuestionOptions,
  type ApprovalRuleRecorder,
  emitApprovalRecord,
  emitQuestionRecord,
  resumeAnswered,
  resumeDecided,
} from '../../hitl/index.js';
import { turnIsLive } from './conversation-liveness.js';
import { unansweredToolUses } from './unanswered-tool-uses.js';
import { pausedOn, settleEndedTree } from './turn-waits.js';
import { titleFromMessage } from './session-title.js';
import { Conversation, type ConversationSendOptions, type ConversationServices } from './Conversation.js';

export interface SessionServices extends ConversationServices {
  collective: Collective;
  /** Messages larger than this are refused before anything is stored (default: 1 MiB). */
  maxMessageBytes?: number | undefined;
  /** Where everything of the session is kept: its record, conversations and their leases, approvals, usage, agents' state. */
  backend: SessionBackend;
  /** Makes the "approve always" rules answers ask for; without it, such answers are refused. */
  approvalRules?: ApprovalRuleRecorder | undefined;
  /** The workspace root, where a message sent straight to an isolated agent gets its worktree; none: such messages are refused. */
  workspaceRoot?: string | undefined;
}

/**
 * Conversations kept open (descriptor, loaded history) after their last turn.
 * Beyond this many, the least recently used idle ones are closed and reopened
 * from their logs when next used, so a long-lived process stays flat.
 */
const OPEN_CONVERSATIONS = 32;

/** A paused call's answer sits in the message right after it; this many recent messages cover it. */
const RECENT_FOR_APPROVALS = 20;

export interface SessionMessage {
  conversation: ConversationRef;
  message: Message;
}

/**
 * One persistent working session: many directional conversations, each its own
 * append-only log. Opening a session reads only its metadata; conversations
 * load when a turn needs them.
 */
export class Session implements ToolSession {
  private readonly conversations = new OpenHandles<Conversation>(OPEN_CONVERSATIONS);
  private approvalLog: SessionApprovals | undefined;
  private questionLog: SessionQuestions | undefined;
  private agentStates: SessionAgentState | undefined;
  private artifactStore: SessionArtifacts | undefined;
  private turnFileClaims: TurnFileClaims | undefined;
  private tally: { totals: UsageTotals; cursor: LogCursor | undefined; reading: Promise<void> } | undefined;
  /** The work of each delegation tree a turn of this process runs in, while one does (`withWork`). */
  private readonly trees = new Map<string, MessageWork>();
  private editors: EditorFiles[] = [];

  constructor(
    private meta: SessionMeta,
    private readonly services: SessionServices,
  ) {}

  get id(): string {
    return this.meta.id;
  }

  get info(): Readonly<SessionMeta> {
    return this.meta;
  }

  /** No turn of this process runs in it: it may be closed, and reopens what it needs when used again. */
  get idle(): boolean {
    for (const conversation of this.conversations.values()) if (!conversation.idle) return false;
    return true;
  }

  /**
   * Checks a message the way `send` does before anything is stored (both participants, not to
   * itself, within `limits.maxMessageBytes`) and throws the same `LegionError`; a surface that
   * answers before the turn has run (the HTTP API's 202) calls it first, so the refusal is its answer.
   */
  checkSend(request: Pick<SendRequest, 'from' | 'to' | 'message'>): void {
    const { collective } = this.services;
    const from = collective.require(request.from);
    const to = collective.get(request.to);
    if (!to || to.status === 'retired') throw new ParticipantNotFoundError(request.to, collective.ids());
    if (from.id === to.id) throw new LegionError('self_message', `${from.id} cannot send a message to itself.`, { participantId: from.id });
    const limit = this.services.maxMessageBytes ?? 1_048_576;
    const bytes = Buffer.byteLength(request.message, 'utf8');
    if (bytes > limit) {
      // Stored, it would be re-sent to a model in every later request of the conversation.
      throw new LegionError(
        'message_too_large',
        `The message from ${from.id} to ${to.id} is ${exactBytes(bytes)}; the limit is ${exactBytes(limit)}. Send a file path instead of the content, or raise limits.maxMessageBytes in .legion/config.json.`,
        { bytes, limit },
      );
    }
  }

  /** Sends a message and waits for the responder's reply; runtime failures come back as error results. */
  async send(request: SendRequest): Promise<TurnResult> {
    this.checkSend(request);
    const { collective } = this.services;
    const from = collective.require(request.from);
    const to = collective.require(request.to);
    const conversation = this.conversation({ initiator: from.id, responder: to.id, name: request.conversation });
    const frames = await this.isolateDirect(framesOfTurn(request.frames ?? [], from.id, conversation.id), to);
    // Only a message that starts a chain counts as activity: delegates' turns are part of it.
    if (frames.length === 1) await this.touch(request.message);
    const started = (request.frames ?? []).length === 0;
    const result = await this.withWork(frames, started, () =>
      conversation.send({
        from,
        to,
        text: request.message,
        frames,
        session: this,
        signal: request.signal,
        ifBusy: request.ifBusy ?? 'wait',
      }),
    );
    await this.finishDirect(frames, conversation.id, result);
    return result;
  }

  /**
   * A chain that starts with a message to an isolated agent (`"isolation": "worktree"`) runs in its
   * conversation's worktree, named on the chain's first frame: the turn's tools, and every delegate
   * below it, are rooted there (`turnWorkspaceRoot`), and the frame is recorded with its approval
   * requests, so a resume in any process works in the same tree. Delegations are isolated by
   * `communicate`, on their own frame; this is the route every surface's message takes.
   */
  private async isolateDirect(frames: readonly DelegationFrame[], to: Participant): Promise<readonly DelegationFrame[]> {
    const [first] = frames;
    if (frames.length !== 1 || !first || to.type !== 'agent' || to.isolation !== 'worktree') return frames;
    const opened = await openDirectWorktree({
      workspaceRoot: this.services.workspaceRoot,
      agentId: to.id,
      callerId: first.participantId,
      sessionId: this.id,
      conversationId: first.conversationId,
    });
    // Deny means deny: an isolated agent that cannot have its tree does not work in the main one.
    if (!opened.ok) throw new LegionError('worktree_refused', opened.error, { participantId: to.id });
    return [{ ...first, worktree: opened.id }];
  }

  /** A direct isolated turn ended (not paused: that one goes on later in the same tree): its change awaits review. */
  private async finishDirect(frames: readonly DelegationFrame[], conversationId: string, result: TurnResult | undefined): Promise<void> {
    const [first] = frames;
    const root = this.services.workspaceRoot;
    if (!result || result.status === 'paused' || frames.length !== 1 || first?.worktree === undefined || root === undefined) return;
    if (first.toolUseId !== undefined || first.conversationId !== conversationId) return;
    const key = parseConversationId(conversationId);
    await finishDirectWorktree({
      workspaceRoot: root,
      id: first.worktree,
      agentId: key.responder,
      callerId: key.initiator,
      conversation: { sessionId: this.id, conversationId, initiator: key.initiator, responder: key.responder },
      events: this.services.events,
    });
  }

  /**
   * What the delegation tree of these frames has started so far (`limits.maxModelCallsPerMessage`,
   * `limits.maxDelegationsPerMessage`). Every turn runs inside `withWork`, which keeps its tree's
   * count; a tree met outside one is counted from here on and forgotten when the session closes.
   */
  messageWork(frames: readonly DelegationFrame[]): MessageWork {
    const tree = treeOf(frames) ?? '';
    let work = this.trees.get(tree);
    if (!work) this.trees.set(tree, (work = new MessageWork()));
    return work;
  }

  /**
   * Runs a turn with its tree's count at hand. The outermost turn of a tree in this process holds
   * it: a new message starts from nothing; a tree resumed after a pause (here or in another process)
   * starts from what the usage ledger holds of it, read once. Nested turns share it.
   */
  private async withWork<T>(frames: readonly DelegationFrame[], started: boolean, run: () => Promise<T>): Promise<T> {
    const tree = treeOf(frames);
    if (tree === undefined || this.trees.has(tree)) return run();
    const work = started ? new MessageWork() : MessageWork.fromLedger(tree, await this.services.backend.usage.read(this.id));
    // A second resume of the same tree may have counted it while the ledger was read.
    if (this.trees.has(tree)) return run();
    this.trees.set(tree, work);
    try {
      return await run();
    } finally {
      if (this.trees.get(tree) === work) this.trees.delete(tree);
    }
  }

  /** The files this session's running turns claimed (shared with every session and process on the backend). */
  /** The editor whose files the session's file tools use: the one attached last that is still attached. */
  get editorFiles(): EditorFiles | undefined {
    return this.editors.at(-1);
  }

  /**
   * Makes the file tools of this session's main tree read and write through an editor (`legion acp`
   * with a client that offers `fs`) until the returned function detaches it. Per process: other
   * processes working in the session use the disk.
   */
  useEditorFiles(files: EditorFiles): () => void {
    this.editors.push(files);
    return () => {
      this.editors = this.editors.filter((attached) => attached !== files);
    };
  }

  get fileClaims(): TurnFileClaims {
    this.turnFileClaims ??= new TurnFileClaims(this.services.backend, this.services);
    return this.turnFileClaims;
  }

  /** The session's approval requests and decisions, through the backend's approvals log. */
  get approvals(): SessionApprovals {
    const { events } = this.services;
    this.approvalLog ??= new SessionApprovals(
      this.services.backend.approvals,
      this.id,
      async (record, state) => {
        // Events for the records this process writes: the durable request before anyone is asked, the one decision.
        if (record.kind === 'request' ? !events.hasListeners('approval:requested') : !events.hasListeners('approval:decided')) return;
        const current = record.kind === 'decision' ? await state() : undefined;
        emitApprovalRecord(events, this.id, record, (id) => current?.request(id));
      },
      this.watchHint(),
    );
    return this.approvalLog;
  }

  /** The session's questions to users and their answers, through the backend's question log: any process may answer them. */
  get questions(): SessionQuestions {
    const { events } = this.services;
    this.questionLog ??= new SessionQuestions(this.services.backend.questions, this.id, {
      onRecorded: async (record, state) => {
        const name = record.kind === 'question' ? 'question:asked' : record.kind === 'answer' ? 'question:answered' : 'question:withdrawn';
        if (!events.hasListeners(name)) return;
        const current = record.kind === 'question' ? undefined : await state();
        emitQuestionRecord(events, this.id, record, (id) => current?.question(id));
      },
      watch: this.watchHint(),
    });
    return this.questionLog;
  }

  /**
   * Answers a question a user was asked, from any process on the workspace
   * (`legion answer`, a browser): the turn that asked it goes on with the answer, once.
   */
  answerQuestion(id: string, text: string, options: AnswerQuestionOptions = {}): Promise<QuestionAnswerOutcome> {
    return answerQuestion(
      this,
      this.services.collective,
      id,
      text,
      Object.assign({ maxAnswerBytes: this.services.maxMessageBytes }, options),
    );
  }

  /** Whether a turn of a live process (this one or another) runs in the conversation now. */
  turnIsLive(conversationId: string): Promise<boolean> {
    return turnIsLive(this.services.backend.conversations, { sessionId: this.id, conversationId });
  }

  /** Each agent's own documents in this session (todos, scratchbook), through the backend. */
  get agentState(): SessionAgentState {
    this.agentStates ??= new SessionAgentState(this.services.backend.agentState, this.id);
    return this.agentStates;
  }

  /** Large tool outputs kept whole for this session (evicted from the context), through the backend. */
  get artifacts(): SessionArtifacts {
    this.artifactStore ??= new SessionArtifacts(this.services.backend.artifacts, this.id);
    return this.artifactStore;
  }

  /**
   * Records decisions and resumes what they unblock; `medium` names the user's surface, kept with the decision.
   * `resume: false` only records: the paused turns are left for `resumeDecided` (in this process or another).
   */
  answerApprovals(
    answers: readonly ApprovalAnswer[],
    decidedBy: string,
    options: { medium?: string | undefined; signal?: AbortSignal | undefined; resume?: boolean | undefined } = {},
  ): Promise<AnswerOutcome> {
    return answerApprovals(this, this.services.collective, answers, decidedBy, {
      ...options,
      rules: this.services.approvalRules,
      sessionId: this.id,
    });
  }

  /**
   * Continues a conversation whose responder's turn paused on approvals. The
   * frames are those that waited on it, as recorded with its approval requests
   * (or carried down by the resumed turn above it).
   */
  resumeConversation(id: string, frames: readonly DelegationFrame[], signal?: AbortSignal): Promise<TurnResult> {
    const key = parseConversationId(id);
    const options = this.resumeOptions(id, frames, signal);
    return this.withWork(options.frames, false, async () => {
      const result = await this.conversation(key).resume(options);
      await this.finishDirect(options.frames, id, result);
      return result;
    });
  }

  /** As `resumeConversation`, but only if a call of the paused turn still waits once the lease is held (else undefined, nothing written). */
  resumeIfWaiting(id: string, frames: readonly DelegationFrame[], signal?: AbortSignal): Promise<TurnResult | undefined> {
    const key = parseConversationId(id);
    const options = this.resumeOptions(id, frames, signal);
    return this.withWork(options.frames, false, async () => {
      const result = await this.conversation(key).resumeIfWaiting(options);
      await this.finishDirect(options.frames, id, result);
      return result;
    });
  }

  /**
   * Continues, once each, the turns that paused on approvals decided since but
   * never resumed (`legion approve --no-resume`, or an answering process that
   * ended first): all of them, or those that wait on the given request ids.
   */
  resumeDecided(options: { ids?: readonly string[] | undefined; signal?: AbortSignal | undefined } = {}): Promise<ResumeOutcome> {
    return resumeDecided(this, options);
  }

  /**
   * Continues, once each, the chains that wait on questions the user answered
   * but nobody resumed (`legion answer --no-resume`, or an answering process
   * that ended first): all of them, or those of the given question ids.
   */
  resumeAnswered(options: { ids?: readonly string[] | undefined; signal?: AbortSignal | undefined } = {}): Promise<ResumeOutcome> {
    return resumeAnswered(this, options);
  }

  private resumeOptions(
    id: string,
    frames: readonly DelegationFrame[],
    signal: AbortSignal | undefined,
  ): Omit<ConversationSendOptions, 'text'> {
    const key = parseConversationId(id);
    const { collective } = this.services;
    return {
      from: collective.require(key.initiator),
      to: collective.require(key.responder),
      frames: framesOfTurn(frames, key.initiator, id),
      session: this,
      signal,
      ifBusy: 'wait',
    };
  }

  /**
   * Summarizes the older part of a conversation's context now (`legion compact`,
   * `/compact`): a `compaction` entry is appended, the messages stay in the log.
   * Takes the conversation's lease like a turn: refused while a turn runs in it.
   */
  compact(
    conversationId: string,
    options: { reason?: 'manual' | 'overflow' | 'auto' | undefined; signal?: AbortSignal | undefined } = {},
  ): Promise<CompactOutcome> {
    const key = parseConversationId(conversationId);
    return this.conversation(key).compactNow({
      responder: this.services.collective.require(key.responder),
      session: this,
      reason: options.reason ?? 'manual',
      signal: options.signal,
    });
  }

  /** Tool calls of a conversation's last response that have no result yet. */
  async unanswered(conversationId: string): Promise<ToolUseBlock[]> {
    return unansweredToolUses(await this.conversation(parseConversationId(conversationId)).recent(RECENT_FOR_APPROVALS));
  }

  /** The pending approvals and open questions these unanswered calls wait on, directly or through paused delegates. */
  pausedOn(conversationId: string, unanswered: readonly ToolUseBlock[]): Promise<{ requests: ApprovalView[]; questions: QuestionView[] }> {
    return pausedOn(this, conversationId, unanswered);
  }

  /**
   * A turn of `conversationId` ended without answering (cancelled or failed): what its delegation
   * tree still waits on is settled (turn-waits.ts), so nothing of it runs later.
   */
  settleEndedTree(conversationId: string, ending: { status: 'failed' | 'cancelled'; code: string }): Promise<void> {
    return settleEndedTree(this, conversationId, ending);
  }

  conversation(key: { initiator: string; responder: string; name?: string | undefined }): Conversation {
    const id = conversationId(key);
    return this.conversations.getOrOpen(id, () => {
      const ref: ConversationRef = {
        sessionId: this.id,
        conversationId: id,
        initiator: key.initiator,
        responder: key.responder,
        name: key.name,
      };
      // Object.assign, not `{ ...base, more }`: V8 keeps objects built by a spread plus further properties through
      // young-generation GCs, so per-turn garbage would pile up in the old generation (bench/memory-runs.mjs).
      return new Conversation(
        ref,
        this.services.backend.conversations,
        Object.assign({}, this.services, {
          pausedOn: (id: string, unanswered: readonly ToolUseBlock[]) => this.pausedOn(id, unanswered),
          endedTree: (id: string, ending: { status: 'failed' | 'cancelled'; code: string }) => this.settleEndedTree(id, ending),
          turnClaims: this.fileClaims,
        }),
      );
    });
  }

  /** Conversations the backend holds, whether or not this process has touched them. */
  async listConversations(): Promise<ConversationRef[]> {
    const ids = await this.services.backend.conversations.list(this.id);
    return ids.map((id) => ({ sessionId: this.id, conversationId: id, ...parseConversationId(id) }));
  }

  /** The newest messages across all conversations, oldest first; reads only the end of each log. */
  async recentMessages(limit: number): Promise<SessionMessage[]> {
    const all: SessionMessage[] = [];
    for (const ref of await this.listConversations()) {
      const conversation = this.conversation(ref);
      for (const message of await conversation.recent(limit)) all.push({ conversation: conversation.ref, message });
    }
    all.sort((a, b) => (a.message.at < b.message.at ? -1 : a.message.at > b.message.at ? 1 : 0));
    return all.slice(-limit);
  }

  recordUsage(record: UsageRecord): Promise<void> {
    return this.services.backend.usage.append(this.id, record);
  }

  /**
   * Session totals for budget checks before each model call. Kept in memory and
   * brought up to date from the ledger at each call by reading only what was
   * appended since (by this process or another one on the same workspace), so a
   * check costs a read of a few new lines, never the whole ledger. Reads are
   * chained: parallel delegates asking at once would otherwise count a record twice.
   */
  usageTotals(): Promise<UsageTotals> {
    const tally = (this.tally ??= { totals: emptyTotals(), cursor: undefined, reading: Promise.resolve() });
    const read = tally.reading.then(async () => {
      const { records, cursor } = await this.services.backend.usage.readSince(this.id, tally.cursor);
      for (const record of records) addUsage(tally.totals, record.usage, record.costUsd);
      tally.cursor = cursor;
      return { ...tally.totals };
    });
    tally.reading = read.then(
      () => undefined,
      () => undefined,
    );
    return read;
  }

  /** Tokens and cost of every model call in this session, per participant (own and with delegates) and per conversation. */
  async usage(): Promise<UsageSummary> {
    return summarizeUsage(await this.services.backend.usage.read(this.id));
  }

  /** The writes file claims refused in this session (by any process), oldest first: what a log shows beside the messages. */
  async claimConflicts(): Promise<ClaimConflictRecord[]> {
    return this.services.backend.conflicts.read(this.id);
  }

  /** Forgets loaded histories; what the session holds open lives in the backend, which keeps its own bound. */
  close(): void {
    this.conversations.closeAll();
    this.trees.clear();
  }

  /** Renames the session (what `legion sessions` and a UI show). */
  async setTitle(title: string): Promise<void> {
    this.meta = await this.services.backend.sessions.update(this.id, { title });
    this.updated(['title']);
  }

  private watchHint(): ((onChange: () => void) => () => void) | undefined {
    const { backend } = this.services;
    return backend.watch ? (onChange) => backend.watch!(this.id, onChange) : undefined;
  }

  /**
   * A message that starts work: the session is active now, and a session without a title takes one
   * from it (`titleFromMessage`, no model call). The title is read fresh first, so a title another
   * process gave (`legion sessions rename`) is never replaced.
   */
  private async touch(message: string): Promise<void> {
    const { sessions } = this.services.backend;
    const title =
      this.meta.title === undefined && (await sessions.get(this.id))?.title === undefined ? titleFromMessage(message) : undefined;
    // The backend keeps what finds the latest session (a file backend: its index) with it.
    this.meta = await sessions.update(this.id, { lastActiveAt: new Date().toISOString(), ...(title !== undefined ? { title } : {}) });
    this.updated(title !== undefined ? ['lastActiveAt', 'title'] : ['lastActiveAt']);
  }

  private updated(changed: ReadonlyArray<'title' | 'lastActiveAt'>): void {
    const { events } = this.services;
    if (!events.hasListeners('session:updated')) return;
    events.emit('session:updated', {
      sessionId: this.id,
      changed,
      ...(this.meta.title !== undefined ? { title: this.meta.title } : {}),
      lastActiveAt: this.meta.lastActiveAt,
    });
  }
}
