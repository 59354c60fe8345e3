import type { WireEvent } from '../api/wire.js';
import type { ConversationSummary, Participant, StateEvent } from '../api/wire.js';
import {
  emptyTurnTree,
  reduceTurnTree,
  reduceTurnTreeState,
  rootOf,
  seedTurnTree,
  treeRows,
  withObservedTurns,
  type TurnTree,
} from './turn-tree.js';

const SESSION = 's1';
let seq = 0;
const ref = (initiator: string, responder: string) => ({
  sessionId: SESSION,
  conversationId: `${initiator}__${responder}`,
  initiator,
  responder,
});
const event = (fields: Record<string, unknown>): WireEvent => ({ seq: ++seq, ...fields }) as unknown as WireEvent;
const start = (initiator: string, responder: string) =>
  event({ type: 'turn:start', ...ref(initiator, responder), participantId: responder, chain: [initiator] });
const end = (initiator: string, responder: string, outcome: string) =>
  event({
    type: 'turn:end',
    ...ref(initiator, responder),
    participantId: responder,
    chain: [initiator],
    outcome,
    status: 'success',
    durationMs: 1,
  });
const usage = (initiator: string, responder: string, inputTokens: number, outputTokens: number, costUsd: number | null) =>
  event({
    type: 'usage:report',
    ...ref(initiator, responder),
    participantId: responder,
    chain: [initiator],
    usage: { inputTokens, outputTokens },
    provider: 'anthropic',
    model: 'claude-test',
    costUsd,
  });
const apply = (events: WireEvent[], tree: TurnTree = emptyTurnTree): TurnTree =>
  events.reduce((current, next) => reduceTurnTree(current, next, SESSION), tree);

describe('the turn tree', () => {
  it('nests each delegated turn under the open turn of its initiator, with its tokens and cost, live', () => {
    const tree = apply([
      start('user', 'coordinator'),
      usage('user', 'coordinator', 100, 20, 0.001),
      start('coordinator', 'developer'),
      usage('coordinator', 'developer', 300, 40, 0.002),
      usage('coordinator', 'developer', 50, 10, 0.0005),
      start('developer', 'user'),
    ]);
    const rows = treeRows(tree).map(({ node, depth }) => [node.conversationId, depth, node.status, node.tokens]);
    expect(rows).toEqual([
      ['user__coordinator', 0, 'running', 120],
      ['coordinator__developer', 1, 'running', 400],
      ['developer__user', 2, 'running', 0],
    ]);
    expect(tree.nodes['coordinator__developer']!.costUsd).toBeCloseTo(0.0025);
  });

  it('nests nothing under a question put to the user: what the user sends meanwhile is a turn of its own', () => {
    const isUser = (id: string) => id === 'user';
    const tree = [start('user', 'coordinator'), start('coordinator', 'user'), start('user', 'developer')].reduce(
      (current, next) => reduceTurnTree(current, next, SESSION, isUser),
      emptyTurnTree,
    );
    expect(treeRows(tree).map(({ node, depth }) => [node.conversationId, depth])).toEqual([
      ['user__coordinator', 0],
      ['coordinator__user', 1],
      ['user__developer', 0],
    ]);
  });

  it('keeps the ended turns of the current turn with their outcome; the next top-level turn starts a new tree', () => {
    const ended = apply([
      start('user', 'coordinator'),
      start('coordinator', 'developer'),
      end('coordinator', 'developer', 'failed'),
      end('user', 'coordinator', 'succeeded'),
    ]);
    expect(treeRows(ended).map(({ node }) => node.status)).toEqual(['succeeded', 'failed']);
    const next = apply([start('user', 'coordinator')], ended);
    expect(Object.keys(next.nodes)).toEqual(['user__coordinator']);
  });

  it('a paused turn resumes in place; an unpriced call makes the cost unknown; other sessions change nothing', () => {
    const tree = apply([
      start('user', 'coordinator'),
      end('user', 'coordinator', 'paused'),
      start('user', 'coordinator'),
      usage('user', 'coordinator', 1, 1, null),
    ]);
    expect(treeRows(tree)).toHaveLength(1);
    expect(tree.nodes['user__coordinator']).toMatchObject({ status: 'running', costUsd: null, tokens: 2 });
    const other = event({ type: 'turn:start', ...ref('user', 'reviewer'), sessionId: 's2', participantId: 'reviewer', chain: ['user'] });
    expect(reduceTurnTree(tree, other, SESSION)).toBe(tree);
  });

  it('at a load, is seeded from the participants the server says are busy, nested by who initiated', () => {
    const conversation = (initiator: string, responder: string): ConversationSummary => ({
      id: `${initiator}__${responder}`,
      initiator,
      responder,
      busy: false,
      messages: 1,
    });
    const conversations = Object.fromEntries(
      [conversation('user', 'coordinator'), conversation('coordinator', 'developer')].map((each) => [each.id, each]),
    );
    const participant = (id: string, state: Participant['state'], conversationId?: string): Participant => ({
      id,
      type: id === 'user' ? 'user' : 'agent',
      tools: [],
      delegatesTo: [],
      entry: false,
      state,
      ...(conversationId ? { sessionId: SESSION, conversationId } : {}),
    });
    const tree = seedTurnTree(
      SESSION,
      [
        participant('coordinator', 'delegate', 'user__coordinator'),
        participant('developer', 'approval', 'coordinator__developer'),
        participant('reviewer', 'idle'),
        // Asked to approve in the developer's conversation: not a turn of the user's.
        participant('user', 'user', 'coordinator__developer'),
      ],
      conversations,
    );
    expect(treeRows(tree).map(({ node, depth }) => [node.conversationId, node.participantId, depth])).toEqual([
      ['user__coordinator', 'coordinator', 0],
      ['coordinator__developer', 'developer', 1],
    ]);
    // Seeded while a terminal's turn ran: no turn:end of it will come here, the idle states end it.
    const idle = (participantId: string): StateEvent => ({ seq: ++seq, participantId, state: 'idle', sessionId: SESSION });
    const ended = [idle('developer'), idle('coordinator')].reduce(
      (current, step) => reduceTurnTreeState(current, step, SESSION, conversations),
      tree,
    );
    expect(treeRows(ended).map(({ node }) => node.status)).toEqual(['succeeded', 'succeeded']);
    // What runs is known again: lit, with the chain each waits in; a delegate's Stop goes to its top-level turn.
    const active = withObservedTurns({}, tree);
    expect(active).toEqual({
      user__coordinator: { participantId: 'coordinator', chain: ['user'], observed: true },
      coordinator__developer: { participantId: 'developer', chain: ['user', 'coordinator'], observed: true },
    });
    expect(rootOf(tree, 'coordinator__developer')).toBe('user__coordinator');
    // A turn heard live keeps its entry; the observed ones go with their nodes.
    const live = { user__coordinator: { participantId: 'coordinator', chain: ['user'] } };
    expect(withObservedTurns({ ...active, ...live }, ended)).toEqual(live);
    expect(withObservedTurns(active, tree)).toBe(active);

    // A coordinator that asked the user waits in its own turn's conversation (the server says so),
    // and the user's turn is the question's: both are nodes, the question under its asker.
    const asked = { ...conversations, coordinator__user: conversation('coordinator', 'user') };
    const asking = seedTurnTree(
      SESSION,
      [participant('coordinator', 'user', 'user__coordinator'), participant('user', 'user', 'coordinator__user')],
      asked,
    );
    expect(treeRows(asking).map(({ node, depth }) => [node.conversationId, node.participantId, depth])).toEqual([
      ['user__coordinator', 'coordinator', 0],
      ['coordinator__user', 'user', 1],
    ]);
  });

  it("another process's turns, known only from the participants' states, open nodes that their idle state ends", () => {
    const conversations: Record<string, ConversationSummary> = {
      user__coordinator: { id: 'user__coordinator', initiator: 'user', responder: 'coordinator', busy: false, messages: 1 },
      coordinator__developer: { id: 'coordinator__developer', initiator: 'coordinator', responder: 'developer', busy: false, messages: 1 },
    };
    const state = (participantId: string, fields: Partial<StateEvent>): StateEvent => ({
      seq: ++seq,
      participantId,
      state: 'thinking',
      sessionId: SESSION,
      ...fields,
    });
    const steps = [
      state('coordinator', { state: 'tool', conversationId: 'user__coordinator' }),
      state('developer', { conversationId: 'coordinator__developer' }),
      state('developer', { state: 'idle', outcome: 'failed' }),
      state('coordinator', { state: 'idle' }),
    ];
    const trees = steps.reduce<TurnTree[]>(
      (all, step) => [...all, reduceTurnTreeState(all.at(-1) ?? emptyTurnTree, step, SESSION, conversations)],
      [],
    );
    expect(treeRows(trees[1]!).map(({ node, depth }) => [node.conversationId, depth, node.status])).toEqual([
      ['user__coordinator', 0, 'running'],
      ['coordinator__developer', 1, 'running'],
    ]);
    expect(treeRows(trees[3]!).map(({ node }) => node.status)).toEqual(['succeeded', 'failed']);
    // A state where the participant is not the responder (the user asked to approve) is no turn of theirs.
    const asked = reduceTurnTreeState(
      trees[1]!,
      state('user', { state: 'user', conversationId: 'coordinator__developer' }),
      SESSION,
      conversations,
    );
    expect(asked).toBe(trees[1]);
  });
});
