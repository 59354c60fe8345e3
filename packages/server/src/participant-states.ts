import type { LegionEvent } from '@legion-collective/core';
import type { ParticipantStateName } from './wire/participants.js';

export interface ParticipantState {
  state: ParticipantStateName;
  detail?: string | undefined;
  /** On the user, `user`: who asks them (to answer or to approve), for a client to name. */
  askedBy?: string | undefined;
  sessionId?: string | undefined;
  conversationId?: string | undefined;
  /** How its last turn ended, once it has no turn open: `failed` and `cancelled` are worth showing on an idle participant. */
  outcome?: 'succeeded' | 'failed' | 'cancelled' | undefined;
  /** Why a failed or cancelled turn ended (`provider_bad_request`, `cancelled`, …). */
  code?: string | undefined;
}

/** A tool call begun and not answered yet; `to` is whom a `communicate` call addresses. */
interface OpenCall {
  name: string;
  to?: string | undefined;
}

/** A turn that began and has not ended (it runs, or it is paused until a person answers). */
interface OpenTurn {
  sessionId: string;
  conversationId: string;
  participantId: string;
  phase: 'running' | 'paused';
  calls: Map<string, OpenCall>;
  /** When it last changed, on the records' own clock: the latest change is what a busy participant shows. */
  changed: number;
}

/** Something a person must answer: an approval a participant requested, or a question it asked. */
interface Wait {
  kind: 'approval' | 'question';
  sessionId: string;
  conversationId: string;
  /** Who waits: the requester, the asker. */
  participantId: string;
  /** Who is asked: the approver (when known), the user. */
  asked: string | undefined;
  /** The tool to approve; the question's asker for the asked user. */
  detail: string;
  /** Participants up the chain, outermost first, whose turns wait on this one. */
  chain: string[];
  /** Where each of them waits (its turn's conversation), when the records say (an approval's frames). */
  chainConversations?: Record<string, string> | undefined;
  changed: number;
}

/**
 * Everything participants' states are derived from: the turns open now, what people are asked,
 * and how each participant's last turn ended. Filled from core's lifecycle events (`turn:start` /
 * `turn:end` with its outcome, tool calls, approvals, questions) and, at start, from the records
 * of what still waits (pending approvals and questions survive a restart; turns do not).
 */
export class LifecycleRecords {
  readonly turns = new Map<string, OpenTurn>();
  readonly waits = new Map<string, Wait>();
  readonly endings = new Map<string, { outcome: 'succeeded' | 'failed' | 'cancelled'; code?: string | undefined }>();
  private clock = 0;

  /** Applies one event; returns the participants whose records it touched. */
  apply(event: LegionEvent): string[] {
    switch (event.type) {
      case 'turn:start': {
        const open = this.turns.get(keyOf(event));
        // A resumed turn (no incoming message) still owes results to the calls it paused on.
        const calls = open && event.messageId === undefined ? open.calls : new Map<string, OpenCall>();
        this.turns.set(keyOf(event), {
          ...pick(event),
          participantId: event.participantId,
          phase: 'running',
          calls,
          changed: ++this.clock,
        });
        this.endings.delete(event.participantId);
        return [event.participantId];
      }
      case 'turn:end': {
        const key = keyOf(event);
        if (event.outcome === 'paused') {
          const open = this.turns.get(key);
          this.turns.set(key, {
            ...pick(event),
            participantId: event.participantId,
            phase: 'paused',
            calls: open?.calls ?? new Map(),
            changed: ++this.clock,
          });
          return [event.participantId];
        }
        this.turns.delete(key);
        // What an ended turn asked for waits on nobody any more.
        const touched = [
          event.participantId,
          ...this.dropWaits((wait) => wait.participantId === event.participantId && sameConversation(wait, event)),
        ];
        this.endings.set(event.participantId, { outcome: event.outcome, ...(event.code !== undefined ? { code: event.code } : {}) });
        return touched;
      }
      case 'text:delta':
        return this.touch(event);
      case 'tool:call': {
        const open = this.turns.get(keyOf(event));
        if (!open) return [];
        open.calls.set(event.toolUse.id, { name: event.toolUse.name, to: communicateTarget(event.toolUse) });
        open.changed = ++this.clock;
        return [event.participantId];
      }
      case 'tool:result': {
        const open = this.turns.get(keyOf(event));
        if (!open?.calls.delete(event.toolUse.id)) return [];
        open.changed = ++this.clock;
        return [event.participantId];
      }
      case 'approval:requested':
        return this.addWait(event.requestId, {
          kind: 'approval',
          ...pick(event),
          participantId: event.requester,
          asked: event.approver,
          detail: event.tool,
          chain: event.chain.filter((id) => id !== event.requester),
        });
      case 'approval:decided':
        return this.dropWaits((_wait, id) => id === event.requestId);
      case 'question:asked':
        return this.addWait(event.questionId, {
          kind: 'question',
          ...pick(event),
          participantId: event.from,
          asked: event.user,
          detail: event.from,
          chain: event.chain.filter((id) => id !== event.from && id !== event.user),
        });
      case 'question:answered':
      case 'question:withdrawn':
        return this.dropWaits((_wait, id) => id === event.questionId);
      case 'message:sent':
        return event.remote ? this.remoteMessage(event) : [];
      default:
        return [];
    }
  }

  /** What still waits on a person, read from the session's records (at start: the events of before are gone). */
  seedWait(
    id: string,
    wait: {
      kind: 'approval' | 'question';
      sessionId: string;
      conversationId: string;
      participantId: string;
      asked?: string | undefined;
      detail: string;
      chain: string[];
      chainConversations?: Record<string, string> | undefined;
    },
  ): string[] {
    if (this.waits.has(id)) return [];
    return this.addWait(id, {
      ...wait,
      asked: wait.asked,
      chain: wait.chain.filter((member) => member !== wait.participantId && member !== wait.asked),
    });
  }

  private addWait(id: string, wait: Omit<Wait, 'changed'>): string[] {
    this.waits.set(id, { ...wait, changed: ++this.clock });
    return [wait.participantId, ...(wait.asked ? [wait.asked] : []), ...wait.chain];
  }

  private dropWaits(drop: (wait: Wait, id: string) => boolean): string[] {
    const touched: string[] = [];
    for (const [id, wait] of this.waits) {
      if (!drop(wait, id)) continue;
      this.waits.delete(id);
      touched.push(wait.participantId, ...(wait.asked ? [wait.asked] : []), ...wait.chain);
    }
    return touched;
  }

  /** A delta changes nothing but recency; it never opens a turn (one streamed after its turn ended would never end). */
  private touch(where: { sessionId: string; conversationId: string; participantId: string }): string[] {
    const open = this.turns.get(keyOf(where));
    if (!open || open.phase !== 'running') return [];
    open.changed = ++this.clock;
    return [];
  }

  /**
   * Another process's turns are seen only through the messages it appends (its turn events stay
   * in its process): a message to the responder opens its turn, a reply with tool calls is those
   * calls, a reply without ends the turn.
   */
  private remoteMessage(event: Extract<LegionEvent, { type: 'message:sent' }>): string[] {
    const { message, responder } = event;
    const key = keyOf(event);
    if (message.role === 'user') {
      const open = this.turns.get(key);
      const calls = open?.calls ?? new Map<string, OpenCall>();
      for (const block of message.content) if (block.type === 'tool_result') calls.delete(block.toolUseId);
      this.turns.set(key, { ...pick(event), participantId: responder, phase: 'running', calls, changed: ++this.clock });
      return [responder];
    }
    const toolUses = message.content.filter((block) => block.type === 'tool_use');
    if (toolUses.length === 0) {
      if (!this.turns.delete(key)) return [];
      this.endings.set(responder, { outcome: 'succeeded' });
      return [responder];
    }
    const open = this.turns.get(key) ?? {
      ...pick(event),
      participantId: responder,
      phase: 'running' as const,
      calls: new Map(),
      changed: 0,
    };
    for (const block of toolUses) open.calls.set(block.id, { name: block.name, to: communicateTarget(block) });
    open.changed = ++this.clock;
    this.turns.set(key, open);
    return [responder];
  }
}

/**
 * What a participant is doing now, purely from the records: a wait of its own (it needs you) comes
 * first, then its running turn that changed last (a tool, a delegate, or thinking), then a paused
 * turn (waiting on what its calls wait on), else idle with how its last turn ended.
 * `isUser` tells people apart: a user's open turn is a question put to them, never "thinking".
 */
export function participantStateOf(records: LifecycleRecords, participantId: string, isUser: (id: string) => boolean): ParticipantState {
  const own = latest([...records.waits.values()].filter((wait) => wait.participantId === participantId));
  if (own)
    return {
      state: own.kind === 'approval' ? 'approval' : 'user',
      detail: own.kind === 'approval' ? own.detail : 'question',
      ...at(waitingTurnOf(records, own)),
    };
  const user = isUser(participantId);
  // A request that names no approver is the user's to decide.
  const askedOf = latest([...records.waits.values()].filter((wait) => wait.asked === participantId || (user && wait.asked === undefined)));
  if (user && askedOf)
    return {
      state: 'user',
      detail: askedOf.kind === 'approval' ? `approve ${askedOf.detail}` : `question from ${askedOf.detail}`,
      askedBy: askedOf.participantId,
      ...at(askedOf),
    };
  const turns = [...records.turns.values()].filter((turn) => turn.participantId === participantId);
  const running = latest(turns.filter((turn) => turn.phase === 'running'));
  const turn = running ?? latest(turns);
  if (turn) {
    if (user) return { state: 'user', detail: 'question', ...at(turn) };
    const call = [...turn.calls.values()].at(-1);
    if (call?.to !== undefined) {
      // Waiting on a person who is asked here: that is waiting for you.
      if (isUser(call.to)) return { state: 'user', detail: 'question', ...at(turn) };
      return { state: 'delegate', detail: call.to, ...at(turn) };
    }
    if (call) return { state: 'tool', detail: call.name, ...at(turn) };
    // Paused with no call of its own open: what it waits on is a person's answer further down.
    if (turn.phase === 'paused') return { state: 'user', ...at(turn) };
    return { state: 'thinking', ...at(turn) };
  }
  // Waited on further down a chain (a restart left no turns, only the records of what waits).
  const below = user ? undefined : latest([...records.waits.values()].filter((wait) => wait.chain.includes(participantId)));
  if (below) {
    const next = [...below.chain, below.participantId][below.chain.indexOf(participantId) + 1]!;
    const conversationId = below.chainConversations?.[participantId];
    return { state: 'delegate', detail: next, sessionId: below.sessionId, ...(conversationId !== undefined ? { conversationId } : {}) };
  }
  // A person's "turn" is a question put to them: its ending (withdrawn when the asker was stopped) is no turn of theirs that failed.
  const ending = user ? undefined : records.endings.get(participantId);
  if (ending && ending.outcome !== 'succeeded')
    return { state: 'idle', outcome: ending.outcome, ...(ending.code !== undefined ? { code: ending.code } : {}) };
  return { state: 'idle' };
}

/**
 * Keeps each participant's state as the records say and tells every change once: the state is
 * computed here, on the server, for every client alike.
 */
export class ParticipantStates {
  private readonly records = new LifecycleRecords();
  private readonly shown = new Map<string, ParticipantState>();

  constructor(
    private readonly onChange: (participantId: string, state: ParticipantState) => void,
    private readonly isUser: (participantId: string) => boolean = () => false,
  ) {}

  get(participantId: string): ParticipantState {
    return this.shown.get(participantId) ?? participantStateOf(this.records, participantId, this.isUser);
  }

  observe(event: LegionEvent): void {
    this.publish(this.records.apply(event));
  }

  /** A pending approval or question read from a session's records. */
  seed(id: string, wait: Parameters<LifecycleRecords['seedWait']>[1]): void {
    this.publish(this.records.seedWait(id, wait));
  }

  private publish(touched: string[]): void {
    for (const participantId of new Set(touched)) {
      const next = participantStateOf(this.records, participantId, this.isUser);
      const before = this.shown.get(participantId) ?? { state: 'idle' };
      if (sameState(before, next)) continue;
      this.shown.set(participantId, next);
      this.onChange(participantId, next);
    }
  }
}

function sameState(a: ParticipantState, b: ParticipantState): boolean {
  return (
    a.state === b.state &&
    a.detail === b.detail &&
    a.sessionId === b.sessionId &&
    a.conversationId === b.conversationId &&
    a.outcome === b.outcome &&
    a.code === b.code
  );
}

function keyOf(where: { sessionId: string; conversationId: string }): string {
  return `${where.sessionId} ${where.conversationId}`;
}

function pick(where: { sessionId: string; conversationId: string }): { sessionId: string; conversationId: string } {
  return { sessionId: where.sessionId, conversationId: where.conversationId };
}

function sameConversation(a: { sessionId: string; conversationId: string }, b: { sessionId: string; conversationId: string }): boolean {
  return a.sessionId === b.sessionId && a.conversationId === b.conversationId;
}

/**
 * Where a participant that waits on a person waits: its own turn's conversation. An approval is
 * requested there; a question is the last message of another conversation (`<asker>__<user>`),
 * whose turn is the user's, so the asker's turn is the one of its open in this session (or, after
 * a restart, the one its record's frames name).
 */
function waitingTurnOf(records: LifecycleRecords, wait: Wait): { sessionId: string; conversationId: string } {
  if (wait.kind !== 'question') return wait;
  const turn = latest(
    [...records.turns.values()].filter((open) => open.participantId === wait.participantId && open.sessionId === wait.sessionId),
  );
  if (turn) return turn;
  const recorded = wait.chainConversations?.[wait.participantId];
  return recorded !== undefined ? { sessionId: wait.sessionId, conversationId: recorded } : wait;
}

function at(where: { sessionId: string; conversationId: string }): { sessionId: string; conversationId: string } {
  return pick(where);
}

function latest<Item extends { changed: number }>(items: Item[]): Item | undefined {
  let best: Item | undefined;
  for (const item of items) if (!best || item.changed > best.changed) best = item;
  return best;
}

function communicateTarget(toolUse: { name: string; input: unknown }): string | undefined {
  if (toolUse.name !== 'communicate' || typeof toolUse.input !== 'object' || toolUse.input === null) return undefined;
  const to = (toolUse.input as { to?: unknown }).to;
  return typeof to === 'string' ? to : undefined;
}
