import type { ConversationSummary, Participant, StateEvent, WireEvent } from '../api/wire.js';
import { isUser as isUserAmong } from './people.js';

/** A turn running now: the conversation it runs in and the chain that led to it. */
export interface ActiveTurn {
  participantId: string;
  chain: string[];
  /**
   * Known from the participants' states, not from its `turn:start` (a page loaded mid-turn, a turn
   * of another process): no `turn:end` may come for it, so its participant's return to idle ends it.
   */
  observed?: boolean;
}

/** One participant's turn in one conversation, as a node of the delegation tree. */
export interface TurnNode {
  conversationId: string;
  participantId: string;
  initiator: string;
  /** The conversation's name, when it has one (`<initiator>__<responder>__<name>`). */
  name?: string | undefined;
  /** The conversation of the turn that delegated this one; absent for the tree's root. */
  parent?: string | undefined;
  status: 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';
  tokens: number;
  /** Null while a model call of it had no known price. */
  costUsd: number | null;
  /** Order of first start, so that siblings keep their order. */
  order: number;
  /** Known from the participant's state only (another process's turn: its turn events stay there); its state ends it. */
  observed?: boolean | undefined;
}

/** The current top-level turn and the turns it delegated, live: rebuilt from the lifecycle events. */
export interface TurnTree {
  sessionId: string | null;
  nodes: Record<string, TurnNode>;
  next: number;
}

export const emptyTurnTree: TurnTree = { sessionId: null, nodes: {}, next: 0 };

const OPEN = new Set<TurnNode['status']>(['running', 'paused']);

/**
 * Applies one event to the tree, purely. A turn's parent is the open turn of its initiator (who
 * waits on it through `communicate`); a turn with none is a root, and a root that starts while
 * nothing is open begins a new tree: the tree is the current turn's, not the session's history.
 */
export function reduceTurnTree(tree: TurnTree, event: WireEvent, sessionId: string | null, isUser: IsUser = nobody): TurnTree {
  if (!('sessionId' in event) || event.sessionId !== sessionId) return tree;
  const base = tree.sessionId === sessionId ? tree : { ...emptyTurnTree, sessionId };
  switch (event.type) {
    case 'turn:start': {
      const known = base.nodes[event.conversationId];
      // A paused turn resumes in place; a conversation's next turn is a new node.
      if (known && OPEN.has(known.status)) return withNode(base, { ...known, status: 'running' });
      const parent = openTurnOf(base, event.initiator, isUser);
      const anyOpen = Object.values(base.nodes).some((node) => OPEN.has(node.status));
      const start = parent || anyOpen ? base : { ...base, nodes: {} };
      const node: TurnNode = {
        conversationId: event.conversationId,
        participantId: event.participantId,
        initiator: event.initiator,
        ...(event.name ? { name: event.name } : {}),
        ...(parent ? { parent: parent.conversationId } : {}),
        status: 'running',
        tokens: 0,
        costUsd: 0,
        order: start.next,
      };
      return { ...withNode(start, node), next: start.next + 1 };
    }
    case 'turn:end': {
      const known = base.nodes[event.conversationId];
      return known ? withNode(base, { ...known, status: event.outcome }) : base;
    }
    case 'usage:report': {
      const known = base.nodes[event.conversationId];
      if (!known) return base;
      const { usage } = event;
      const tokens = usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
      const costUsd = known.costUsd === null || event.costUsd === null ? null : known.costUsd + event.costUsd;
      return withNode(base, { ...known, tokens: known.tokens + tokens, costUsd });
    }
    default:
      return base === tree ? tree : base;
  }
}

/**
 * Applies a participant's state to the tree: a turn this process did not run (a terminal's
 * `legion run` on the session) has no turn events here, only the state the server derived from
 * its messages; it opens a node, and the participant's return to idle ends it.
 */
export function reduceTurnTreeState(
  tree: TurnTree,
  event: StateEvent,
  sessionId: string | null,
  conversations: Record<string, ConversationSummary>,
  isUser: IsUser = nobody,
): TurnTree {
  if (sessionId === null) return tree;
  const base = tree.sessionId === sessionId ? tree : { ...emptyTurnTree, sessionId };
  if (event.state === 'idle') {
    let next = base;
    for (const node of Object.values(base.nodes))
      if (node.observed && node.participantId === event.participantId && OPEN.has(node.status))
        next = withNode(next, { ...node, status: event.outcome ?? 'succeeded' });
    return next;
  }
  const conversation = event.conversationId === undefined ? undefined : conversations[event.conversationId];
  if (event.sessionId !== sessionId || !conversation || conversation.responder !== event.participantId) return tree;
  const known = base.nodes[conversation.id];
  if (known && OPEN.has(known.status)) return base;
  const parent = openTurnOf(base, conversation.initiator, isUser);
  const anyOpen = Object.values(base.nodes).some((node) => OPEN.has(node.status));
  const start = parent || anyOpen ? base : { ...base, nodes: {} };
  const node: TurnNode = {
    conversationId: conversation.id,
    participantId: event.participantId,
    initiator: conversation.initiator,
    ...(conversation.name ? { name: conversation.name } : {}),
    ...(parent ? { parent: parent.conversationId } : {}),
    status: 'running',
    tokens: 0,
    costUsd: 0,
    order: start.next,
    observed: true,
  };
  return { ...withNode(start, node), next: start.next + 1 };
}

/**
 * The tree as far as it can be known at a load (a reload, a restarted server): the turns events
 * told are gone, but the server's participant states say who is busy in which conversation of the
 * session, and each conversation's initiator nests it. Tokens and cost count from here on.
 */
export function seedTurnTree(
  sessionId: string,
  participants: readonly Participant[],
  conversations: Record<string, ConversationSummary>,
): TurnTree {
  let tree: TurnTree = { ...emptyTurnTree, sessionId };
  const busy = participants.filter(
    (participant) =>
      participant.state !== 'idle' &&
      participant.sessionId === sessionId &&
      participant.conversationId !== undefined &&
      participant.conversationId in conversations &&
      // A turn in a conversation is its responder's: the user asked to approve there is not its turn.
      conversations[participant.conversationId]!.responder === participant.id,
  );
  for (const participant of busy) {
    const conversation = conversations[participant.conversationId!]!;
    const node: TurnNode = {
      conversationId: conversation.id,
      participantId: participant.id,
      initiator: conversation.initiator,
      ...(conversation.name ? { name: conversation.name } : {}),
      status: 'running',
      tokens: 0,
      costUsd: 0,
      order: tree.next,
      // Its turn may be another process's (a terminal's), whose turn events never come here: the
      // participant's return to idle ends it, as for a node opened from a state.
      observed: true,
    };
    tree = { ...withNode(tree, node), next: tree.next + 1 };
  }
  const isPerson = (id: string): boolean => isUserAmong(participants, id);
  for (const node of Object.values(tree.nodes)) {
    const parent = openTurnOf(tree, node.initiator, isPerson);
    if (parent && parent !== node) tree = withNode(tree, { ...node, parent: parent.conversationId });
  }
  return tree;
}

/**
 * The running turns as the tree knows them from the participants' states (`observed` nodes), in
 * place of those `activeTurns` had from states before; a turn known from its `turn:start` stays as
 * it is. What the graph lights and the Stop button follow after a reload, as they do live.
 */
export function withObservedTurns(activeTurns: Record<string, ActiveTurn>, tree: TurnTree): Record<string, ActiveTurn> {
  const next: Record<string, ActiveTurn> = {};
  for (const [id, turn] of Object.entries(activeTurns)) if (!turn.observed) next[id] = turn;
  for (const node of Object.values(tree.nodes)) {
    if (!node.observed || !OPEN.has(node.status) || node.conversationId in next) continue;
    const known = activeTurns[node.conversationId];
    next[node.conversationId] = known?.observed ? known : { participantId: node.participantId, chain: chainOf(tree, node), observed: true };
  }
  const before = Object.keys(activeTurns);
  const same = before.length === Object.keys(next).length && before.every((id) => next[id] === activeTurns[id]);
  return same ? activeTurns : next;
}

/** Who waits on a node's turn, outermost first (as a `turn:start`'s chain): its ancestors, and the root's initiator. */
function chainOf(tree: TurnTree, node: TurnNode): string[] {
  const above: string[] = [];
  let current = node;
  for (
    let parent = tree.nodes[current.parent ?? ''];
    parent !== undefined && above.length < 64;
    parent = tree.nodes[current.parent ?? '']
  ) {
    above.unshift(parent.participantId);
    current = parent;
  }
  return [current.initiator, ...above];
}

/** The conversation of the top-level turn a conversation's turn is part of: what the server stops (its own turns are the top-level ones). */
export function rootOf(tree: TurnTree, conversationId: string): string {
  let current = tree.nodes[conversationId];
  for (let steps = 0; current?.parent !== undefined && tree.nodes[current.parent] !== undefined && steps < 64; steps++)
    current = tree.nodes[current.parent];
  return current?.conversationId ?? conversationId;
}

/** The tree's nodes, parents before children, each with its depth. */
export function treeRows(tree: TurnTree): Array<{ node: TurnNode; depth: number }> {
  const nodes = Object.values(tree.nodes).sort((a, b) => a.order - b.order);
  const rows: Array<{ node: TurnNode; depth: number }> = [];
  const visit = (node: TurnNode, depth: number): void => {
    rows.push({ node, depth });
    for (const child of nodes) if (child.parent === node.conversationId) visit(child, depth + 1);
  };
  for (const node of nodes) if (node.parent === undefined || !(node.parent in tree.nodes)) visit(node, 0);
  return rows;
}

type IsUser = (participantId: string) => boolean;
const nobody: IsUser = () => false;

/**
 * The open turn a turn of `initiator`'s nests under: its own open turn, when it has one. A user's
 * open turn is a question put to them, which starts nothing: what a user sends while asked (to
 * the asker or anyone) is a turn of its own, and an asker whose caller is the user would else nest
 * under its own question.
 */
function openTurnOf(tree: TurnTree, initiator: string, isUser: IsUser): TurnNode | undefined {
  if (isUser(initiator)) return undefined;
  return Object.values(tree.nodes).find((node) => node.participantId === initiator && OPEN.has(node.status));
}

function withNode(tree: TurnTree, node: TurnNode): TurnTree {
  return { ...tree, nodes: { ...tree.nodes, [node.conversationId]: node } };
}
