import { api, ApiError } from '../api/client.js';
import { openEventStream, type EventStream } from '../api/event-stream.js';
import type { WireEvent, WireMessage } from '../api/wire.js';
import type { AppState, Stream } from './app-state.js';
import { isUser } from './people.js';
import { reduceEvent, reduceParticipantState, withNotice } from './reduce-event.js';
import type { Store } from './store.js';
import { reduceTurnTree, reduceTurnTreeState, rootOf, seedTurnTree, withObservedTurns } from './turn-tree.js';
import { SENT_EVENT } from '../views/autoscroll.js';
import type { Answer } from '../views/approval-choices.js';

const RESUME_KEY = 'legion:resume';
/** Messages per page of a conversation: the newest first, older ones on demand. */
const PAGE_SIZE = 200;
/** How often the claims are read again while some are listed (see `refreshClaims`). */
const CLAIMS_POLL_MS = 2_000;
/** How long the claims read waits for more of the events that change them. */
const CLAIMS_SOON_MS = 150;

/** What a reload of the tab picks up again: where the stream was, what was being streamed, what was open. */
interface Resume {
  lastEventId: string | null;
  sessionId: string | null;
  selectedConversation: string | null;
  streams: Record<string, Stream>;
}

function readResume(): Resume | null {
  try {
    const text = sessionStorage.getItem(RESUME_KEY);
    return text === null ? null : (JSON.parse(text) as Resume);
  } catch {
    return null;
  }
}

/** Whether a participant is a person (their open turn is a question put to them, under which nothing nests). */
const isUserIn =
  (state: AppState) =>
  (id: string): boolean =>
    isUser(state.participants, id);

/** Merges a page of stored messages with those that arrived as events meanwhile, once each, in order. */
function mergeMessages(stored: WireMessage[], live: WireMessage[] | undefined): WireMessage[] {
  if (!live || live.length === 0) return stored;
  const known = new Set(stored.map((message) => message.id));
  return [...stored, ...live.filter((message) => !known.has(message.id))];
}

/**
 * Loads the state through REST and keeps it current from the event stream. Events that arrive
 * while a load is in flight wait for it, then apply: whatever both carry is keyed by id.
 */
export class Controller {
  #lastEventId: string | null = null;
  #loading = true;
  /** Each load counts one up; a load that another overtook (a reset mid-start, a quick switch) neither writes nor flushes. */
  #generation = 0;
  #queued: WireEvent[] = [];
  #usageTimer: ReturnType<typeof setTimeout> | undefined;
  #usageWatched = false;
  #usageStale = false;
  #sessionsTimer: ReturnType<typeof setTimeout> | undefined;
  #sessionsWatched = false;
  #sessionsStale = false;
  #claimsReading = false;
  #claimsTimer: ReturnType<typeof setTimeout> | undefined;
  #claimsSoonTimer: ReturnType<typeof setTimeout> | undefined;

  #events: EventStream | undefined;
  /**
   * The conversation just opened, while its text so far is read: its deltas (and the events that
   * end its reply) wait here, and those after the text's position are applied on top of it.
   */
  #catchingUp: { conversationId: string; events: WireEvent[] } | null = null;
  /**
   * Per conversation, the position its text was read as of: a delta at or before it is in that text
   * already (the replay of a reopened stream, events queued during a load, may bring it after).
   */
  readonly #textAsOf = new Map<string, number>();

  constructor(private readonly store: Store) {}

  async start(): Promise<void> {
    const resume = readResume();
    this.#lastEventId = resume?.lastEventId ?? null;
    addEventListener('pagehide', () => this.#saveResume());
    this.#events = openEventStream(
      {
        legion: (event) => (this.#loading ? this.#queued.push(event) : this.#apply(event)),
        state: (event) =>
          this.store.update((state) => {
            const next = reduceParticipantState(state, event);
            const turnTree = reduceTurnTreeState(next.turnTree, event, next.sessionId, next.conversations, isUserIn(next));
            if (turnTree === next.turnTree) return next;
            return { ...next, turnTree, activeTurns: withObservedTurns(next.activeTurns, turnTree) };
          }),
        session: (event) => {
          this.#refreshSessionsSoon();
          // Nothing open yet (a fresh workspace): the first session, from here or a terminal, is the one to watch.
          if (this.store.state.sessionId === null && !this.#loading) void this.switchSession(event.sessionId);
        },
        reset: () => void this.reload(),
        connection: (connection) => this.store.update((state) => (state.connection === connection ? state : { ...state, connection })),
        position: (id) => (this.#lastEventId = id),
      },
      this.#lastEventId,
      resume?.selectedConversation ?? null,
    );
    const generation = ++this.#generation;
    try {
      const [workspace, participants, firstSessions] = await Promise.all([api.workspace(), api.participants(), api.sessionPage()]);
      if (generation !== this.#generation) return;
      const sessions = firstSessions.sessions;
      this.store.update((state) => ({ ...state, workspace, participants, sessions, sessionsNext: firstSessions.next ?? null }));
      const sessionId = resume?.sessionId ?? workspace.sessionId ?? sessions[0]?.id ?? null;
      if (sessionId !== null) await this.#loadSession(generation, sessionId, resume?.selectedConversation ?? null, resume?.streams ?? {});
    } catch (error) {
      this.#fail(error);
    }
    this.#flush(generation);
  }

  /** After a `reset`: everything again through REST, streams dropped (their deltas cannot be replayed). */
  async reload(): Promise<void> {
    this.#loading = true;
    const generation = ++this.#generation;
    try {
      const [workspace, participants, firstSessions] = await Promise.all([api.workspace(), api.participants(), api.sessionPage()]);
      if (generation !== this.#generation) return;
      const sessions = firstSessions.sessions;
      this.store.update((state) => ({ ...state, workspace, participants, sessions, sessionsNext: firstSessions.next ?? null }));
      const sessionId = this.store.state.sessionId ?? workspace.sessionId;
      if (sessionId !== null) await this.#loadSession(generation, sessionId, this.store.state.selectedConversation, {});
    } catch (error) {
      this.#fail(error);
    }
    this.#flush(generation);
  }

  async switchSession(sessionId: string): Promise<void> {
    this.#loading = true;
    const generation = ++this.#generation;
    try {
      await this.#loadSession(generation, sessionId, null, {});
    } catch (error) {
      this.#fail(error);
    }
    this.#flush(generation);
  }

  async newSession(): Promise<void> {
    try {
      const { id } = await api.createSession();
      this.store.update((state) => ({
        ...state,
        sessions: [
          {
            id,
            createdAt: new Date().toISOString(),
            updatedAt: new Date().toISOString(),
            conversations: 0,
            messages: 0,
            costUsd: 0,
            tokens: 0,
          },
          ...state.sessions.filter((session) => session.id !== id),
        ],
      }));
      await this.switchSession(id);
    } catch (error) {
      this.#fail(error);
    }
  }

  async openConversation(conversationId: string): Promise<void> {
    const { sessionId } = this.store.state;
    if (sessionId === null) return;
    // The stream brings this conversation's deltas from now on; what streamed before is read once, when it is open.
    void this.#catchUp(sessionId, conversationId, this.#events?.watch(conversationId) ?? Promise.resolve());
    // Messages that arrive while the page loads are kept, then merged.
    this.store.update((state) => ({
      ...state,
      selectedConversation: conversationId,
      messages: { ...state.messages, [conversationId]: state.messages[conversationId] ?? [] },
    }));
    try {
      const page = await api.messages(sessionId, conversationId, { limit: PAGE_SIZE });
      this.store.update((state) =>
        state.sessionId !== sessionId
          ? state
          : {
              ...state,
              messages: { ...state.messages, [conversationId]: mergeMessages(page.messages, state.messages[conversationId]) },
              earlier: { ...state.earlier, [conversationId]: page.more },
            },
      );
    } catch (error) {
      this.#fail(error);
    }
  }

  /** The page of messages before the oldest one shown. */
  async loadEarlier(conversationId: string): Promise<void> {
    const { sessionId, messages } = this.store.state;
    const oldest = messages[conversationId]?.[0];
    if (sessionId === null || oldest === undefined) return;
    try {
      const page = await api.messages(sessionId, conversationId, { before: oldest.id, limit: PAGE_SIZE });
      this.store.update((state) => {
        const shown = state.messages[conversationId] ?? [];
        const known = new Set(shown.map((message) => message.id));
        return {
          ...state,
          messages: { ...state.messages, [conversationId]: [...page.messages.filter((message) => !known.has(message.id)), ...shown] },
          earlier: { ...state.earlier, [conversationId]: page.more },
        };
      });
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Sends as the user; returns the conversation it went to, or an error message for the composer. */
  async send(text: string, to: string | undefined, conversation: string | undefined): Promise<string | null> {
    let { sessionId } = this.store.state;
    try {
      if (sessionId === null) {
        sessionId = (await api.createSession()).id;
        await this.switchSession(sessionId);
      }
      const accepted = await api.send(sessionId, { text, ...(to ? { to } : {}), ...(conversation ? { conversation } : {}) });
      await this.openConversation(accepted.conversationId);
      // Whoever sends follows the conversation again (autoscroll.ts), though they had scrolled up.
      dispatchEvent(new Event(SENT_EVENT));
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  async decide(answers: Answer[]): Promise<string | null> {
    const { sessionId } = this.store.state;
    if (sessionId === null) return 'No session is open.';
    try {
      await api.answerApprovals(sessionId, answers);
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  async answer(questionId: string, text: string): Promise<string | null> {
    try {
      await api.answerQuestion(questionId, text);
      this.store.update((state) => ({ ...state, questions: state.questions.filter((question) => question.id !== questionId) }));
      return null;
    } catch (error) {
      if (error instanceof ApiError && error.status === 409)
        this.store.update((state) => ({ ...state, questions: state.questions.filter((question) => question.id !== questionId) }));
      return error instanceof Error ? error.message : String(error);
    }
  }

  /**
   * Stops the turn a conversation's turn is part of: the server stops its own turns by their
   * top-level conversation, and a delegate's turn goes with its chain. Nothing stopped is said, with
   * why it may be (a terminal's run is its own; a paused turn waits on an answer, not on a model).
   */
  async cancel(conversationId: string): Promise<void> {
    const { sessionId, turnTree } = this.store.state;
    if (sessionId === null) return;
    try {
      const root = rootOf(turnTree, conversationId);
      let { cancelled } = await api.cancel(sessionId, root);
      if (cancelled === 0 && root !== conversationId) ({ cancelled } = await api.cancel(sessionId, conversationId));
      if (cancelled === 0)
        this.store.update((state) =>
          withNotice(state, {
            id: 'cancel',
            tone: 'note',
            text: 'Nothing was stopped: no turn of this server runs there now. A turn started in a terminal (legion run, the REPL) is stopped there; one that waits on an approval or a question ends when you reject or answer it.',
          }),
        );
    } catch (error) {
      this.#fail(error);
    }
  }

  search = (q: string) => api.search(q);

  async #loadSession(generation: number, sessionId: string, selected: string | null, streams: Record<string, Stream>): Promise<void> {
    const [detail, approvals, questions, usage, refusedWrites] = await Promise.all([
      api.session(sessionId),
      api.approvals(sessionId),
      api.questions(sessionId),
      api.usage(sessionId),
      api.conflicts(sessionId),
    ]);
    if (generation !== this.#generation) return;
    const conversations = Object.fromEntries(detail.conversations.map((conversation) => [conversation.id, conversation]));
    // Opened on the user's own conversation, the newest: where they act (an agents' one is a click away).
    const isPerson = isUserIn(this.store.state);
    const byRecency = [...detail.conversations].sort((a, b) => (b.lastAt ?? '').localeCompare(a.lastAt ?? ''));
    const newest = byRecency.find((conversation) => isPerson(conversation.initiator)) ?? byRecency[0];
    const selectedConversation = selected !== null && selected in conversations ? selected : (newest?.id ?? null);
    this.store.update((state) => {
      // A turn running at a load told its start before this page listened: the server's own (busy)
      // and what the participants' states say are what the graph lights and Stop follows.
      const turnTree = seedTurnTree(sessionId, state.participants, conversations);
      const busy: AppState['activeTurns'] = {};
      for (const conversation of detail.conversations)
        if (conversation.busy)
          busy[conversation.id] = { participantId: conversation.responder, chain: [conversation.initiator], observed: true };
      return {
        ...state,
        sessionId,
        conversations,
        messages: {},
        earlier: {},
        streams,
        activeTurns: { ...busy, ...withObservedTurns({}, turnTree) },
        turnTree,
        approvals,
        questions,
        // Announced for the session looked at before: not this one's.
        reviews: [],
        usage,
        refusedWrites,
        selectedConversation,
        error: null,
      };
    });
    if (selectedConversation !== null) await this.openConversation(selectedConversation);
  }

  /** Reads the text streaming in a conversation as far as it came, and the deltas after it (see `#catchingUp`). */
  async #catchUp(sessionId: string, conversationId: string, streamOpen: Promise<void>): Promise<void> {
    const catching = { conversationId, events: [] as WireEvent[] };
    this.#catchingUp = catching;
    let snapshot: Awaited<ReturnType<typeof api.streamText>> | undefined;
    try {
      await streamOpen;
      if (this.#catchingUp !== catching) return;
      snapshot = await api.streamText(sessionId, conversationId);
    } catch {
      // Not read (the server went, or is older): the deltas show from here on, as before.
    }
    if (this.#catchingUp !== catching) return;
    this.#catchingUp = null;
    if (snapshot) this.#textAsOf.set(conversationId, snapshot.seq);
    let stream: Stream | undefined =
      snapshot && snapshot.text !== '' ? { participantId: snapshot.participantId ?? '', text: snapshot.text } : undefined;
    for (const event of catching.events) {
      if (snapshot && event.seq <= snapshot.seq) continue;
      if (event.type === 'text:delta') stream = { participantId: event.participantId, text: (stream?.text ?? '') + event.text };
      else stream = undefined;
    }
    this.store.update((state) => {
      if (state.sessionId !== sessionId) return state;
      const { [conversationId]: _before, ...others } = state.streams;
      return { ...state, streams: stream ? { ...others, [conversationId]: stream } : others };
    });
  }

  #apply(event: WireEvent): void {
    if (event.type === 'text:delta' && event.seq <= (this.#textAsOf.get(event.conversationId) ?? 0)) return;
    const catching = this.#catchingUp;
    if (catching && 'conversationId' in event && event.conversationId === catching.conversationId) {
      if (event.type === 'text:delta') {
        catching.events.push(event);
        return;
      }
      // What ends a reply ends what streamed before it: kept in order with the deltas, and applied as usual.
      if ((event.type === 'message:sent' && event.message.role === 'assistant') || event.type === 'turn:end') catching.events.push(event);
    }
    this.store.update((state) => reduceEvent(state, event, Date.now()));
    // A session opened before its first conversation (a fresh session, or one a terminal's `legion
    // run` just started) shows that conversation as it starts: the user's own, or the first one.
    if (event.type === 'turn:start' && this.#followsFirstConversation(event.sessionId, event.initiator, event.responder))
      void this.openConversation(event.conversationId);
    this.store.update((state) => {
      const turnTree = reduceTurnTree(state.turnTree, event, state.sessionId, isUserIn(state));
      return turnTree === state.turnTree ? state : { ...state, turnTree };
    });
    if (event.type === 'usage:report' || event.type === 'turn:end') this.#refreshUsageSoon();
    if (event.type === 'claim:conflict') this.refreshClaims();
    // A write claims its file and a turn's end gives its claims back; ten delegates finishing at
    // once are one read, not ten in every open tab. A delegation's result claims nothing.
    else if (event.type === 'turn:end' || (event.type === 'tool:result' && event.toolUse.name !== 'communicate')) this.#refreshClaimsSoon();
    // A new session, a new title, a session active again: the switcher's list and order. What only
    // the Sessions view shows (counts, cost) after a turn is read when it is on screen.
    if (event.type === 'session:created' || event.type === 'session:updated') this.#refreshSessionsSoon();
    else if (event.type === 'turn:end') {
      if (this.#sessionsWatched) this.#refreshSessionsSoon();
      else this.#sessionsStale = true;
    }
  }

  #followsFirstConversation(sessionId: string, initiator: string, responder: string): boolean {
    const { state } = this.store;
    if (state.selectedConversation !== null || state.sessionId !== sessionId) return false;
    const isPerson = isUserIn(state);
    const hasUser = state.participants.some((participant) => participant.type === 'user');
    // An agent's conversation waits while the user's may still come: a delegate starts after its caller.
    return isPerson(initiator) || isPerson(responder) || !hasUser;
  }

  #flush(generation: number): void {
    if (generation !== this.#generation) return;
    this.#loading = false;
    const queued = this.#queued;
    this.#queued = [];
    for (const event of queued) this.#apply(event);
  }

  // Usage is read from the server, not summed from events: a replayed usage:report would count twice.
  /** Reads the claims again (every process's: a turn in a terminal claims files too). */
  refreshClaims(): void {
    if (this.#claimsReading) return;
    this.#claimsReading = true;
    api.claims().then(
      (claims) => {
        this.#claimsReading = false;
        this.store.update((state) => ({ ...state, claims }));
        // A claim is given back without an event here when its turn runs in another process (a
        // terminal's legion run): read again while any is listed, so the count does not stay behind.
        if (claims.length > 0 && this.#claimsTimer === undefined)
          this.#claimsTimer = setTimeout(() => {
            this.#claimsTimer = undefined;
            this.refreshClaims();
          }, CLAIMS_POLL_MS);
      },
      (error: unknown) => {
        this.#claimsReading = false;
        this.#fail(error);
      },
    );
  }

  #refreshClaimsSoon(): void {
    if (this.#claimsSoonTimer !== undefined) return;
    this.#claimsSoonTimer = setTimeout(() => {
      this.#claimsSoonTimer = undefined;
      this.refreshClaims();
    }, CLAIMS_SOON_MS);
  }

  /** Frees a claimed file (the Claims view's Release), then shows the claims as they are now. */
  async releaseClaim(path: string): Promise<void> {
    try {
      await api.releaseClaim(path);
    } catch (error) {
      this.#fail(error);
    }
    this.refreshClaims();
  }

  /** Forgets the refused writes shown (the notice's Dismiss). */
  dismissConflicts(): void {
    this.store.update((state) => (state.conflicts.length === 0 ? state : { ...state, conflicts: [] }));
  }

  /**
   * Whether the cost view is on screen. Only it shows the usage, and a turn reports usage at every
   * model call: ten tabs read it from the server ten times a second while a turn ran, for a view
   * nobody looked at. Unwatched, a change only marks the usage stale; it is read when watched again.
   */
  watchUsage(watched: boolean): void {
    this.#usageWatched = watched;
    if (watched && this.#usageStale) this.#refreshUsageSoon();
  }

  /** Whether a view that shows sessions' counts and cost (Sessions, Cost) is on screen: every turn changes them. */
  watchSessions(watched: boolean): void {
    this.#sessionsWatched = watched;
    if (watched && this.#sessionsStale) {
      this.#sessionsStale = false;
      this.#refreshSessionsSoon();
    }
  }

  #refreshUsageSoon(): void {
    if (!this.#usageWatched) {
      this.#usageStale = true;
      return;
    }
    this.#usageStale = false;
    if (this.#usageTimer !== undefined) return;
    this.#usageTimer = setTimeout(() => {
      this.#usageTimer = undefined;
      const { sessionId } = this.store.state;
      if (sessionId === null) return;
      api.usage(sessionId).then(
        (usage) => this.store.update((state) => (state.sessionId === sessionId ? { ...state, usage } : state)),
        (error: unknown) => this.#fail(error),
      );
    }, 100);
  }

  /** The next page of sessions (the Sessions view's "More"). */
  async moreSessions(): Promise<void> {
    const after = this.store.state.sessionsNext;
    if (after === null) return;
    try {
      const page = await api.sessionPage(after);
      this.store.update((state) => {
        if (state.sessionsNext !== after) return state;
        const known = new Set(state.sessions.map((session) => session.id));
        return {
          ...state,
          sessions: [...state.sessions, ...page.sessions.filter((session) => !known.has(session.id))],
          sessionsNext: page.next ?? null,
        };
      });
    } catch (error) {
      this.#fail(error);
    }
  }

  #refreshSessionsSoon(): void {
    if (this.#sessionsTimer !== undefined) return;
    this.#sessionsTimer = setTimeout(() => {
      this.#sessionsTimer = undefined;
      api.sessionPage().then(
        (page) =>
          this.store.update((state) => {
            // The first page again; the pages loaded beyond it stay (their order may lag until reloaded).
            const fresh = new Set(page.sessions.map((session) => session.id));
            const beyond =
              state.sessionsNext === null && state.sessions.length <= page.sessions.length
                ? []
                : state.sessions.slice(page.sessions.length);
            return {
              ...state,
              sessions: [...page.sessions, ...beyond.filter((session) => !fresh.has(session.id))],
              sessionsNext: beyond.length > 0 ? state.sessionsNext : (page.next ?? null),
            };
          }),
        (error: unknown) => this.#fail(error),
      );
    }, 200);
  }

  #saveResume(): void {
    // Mid-load, the store lags behind the stream's position: the resume saved before stays the consistent one.
    if (this.#loading) return;
    const state: AppState = this.store.state;
    const resume: Resume = {
      lastEventId: this.#lastEventId,
      sessionId: state.sessionId,
      selectedConversation: state.selectedConversation,
      streams: state.streams,
    };
    sessionStorage.setItem(RESUME_KEY, JSON.stringify(resume));
  }

  /** Takes a notice off the screen (it comes back only if it is said again). */
  dismissNotice(id: string): void {
    this.store.update((state) => ({ ...state, notices: state.notices.filter((notice) => notice.id !== id) }));
  }

  #fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.store.update((state) => ({ ...state, error: message }));
  }
}
