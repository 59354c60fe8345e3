import type { Participant } from '../api/wire.js';
import { treeRows, type TurnNode, type TurnTree as Tree } from '../state/turn-tree.js';
import { formatCost, formatTokens } from './format.js';
import { stateText } from './live-state.js';
import { pure } from './pure.js';
import { visibleText } from './visible-text.js';

interface TurnTreeProps {
  tree: Tree;
  participants: Participant[];
  selected: string | null;
  onOpen(conversationId: string): void;
}

/** What a node shows: the participant's live state where that state happens, else what became of the turn. */
function nodeState(
  node: TurnNode,
  participant: Participant | undefined,
  participants: readonly Participant[],
): { state: string; text: string } {
  if (node.status === 'running' || node.status === 'paused') {
    if (participant && participant.conversationId === node.conversationId && participant.state !== 'idle')
      return { state: participant.state, text: stateText(participant, participants) };
    return { state: node.status, text: node.status === 'paused' ? 'paused' : 'running' };
  }
  return { state: node.status, text: node.status === 'succeeded' ? 'done' : node.status === 'cancelled' ? 'stopped' : 'failed' };
}

interface TurnRowProps {
  node: TurnNode;
  depth: number;
  name: string;
  /** The node's state and its words (nodeState): strings, so that an unchanged row is skipped. */
  state: string;
  text: string;
  current: boolean;
  onOpen(conversationId: string): void;
}

/** One node: drawn again only when its turn, what it shows or the selection changed. */
const TurnRow = pure(function TurnRow({ node, depth, name, state, text, current, onOpen }: TurnRowProps) {
  return (
    <li
      data-depth={depth}
      aria-current={current ? 'true' : undefined}
      style={{ paddingLeft: `${depth * 1.1}rem` }}
      data-testid={`turn-node-${node.conversationId}`}
      data-state={state}
    >
      <button type="button" class="link turn-node" onClick={() => onOpen(node.conversationId)}>
        <span class="turn-who">{visibleText(name)}</span>
        {/* Two turns of one participant (ten delegated tasks) are told apart by their conversations' names. */}
        {node.name !== undefined && <span class="tag">{visibleText(node.name)}</span>}
        <span class={`state state-${state}`} data-testid="turn-node-state">
          {visibleText(text)}
        </span>
        <span class="muted turn-usage" data-testid="turn-node-usage">
          {formatTokens(node.tokens)} tokens · {formatCost(node.costUsd)}
        </span>
      </button>
    </li>
  );
});

/** The current turn's delegation tree, live: each node a participant's turn in a conversation, which it opens. */
export function TurnTree({ tree, participants, selected, onOpen }: TurnTreeProps) {
  const rows = treeRows(tree);
  return (
    <section class="panel turn-tree" data-testid="turn-tree" aria-label="The current turn's delegations">
      <h2>Current turn</h2>
      {rows.length === 0 ? (
        <p class="muted" data-testid="turn-tree-empty">
          Nothing runs now: the next message's turn and whom it delegates to show here.
        </p>
      ) : (
        // A plain list (not role=tree): each row is one button, and a treeitem may not hold a control.
        <ul>
          {rows.map(({ node, depth }) => {
            const participant = participants.find((candidate) => candidate.id === node.participantId);
            const shown = nodeState(node, participant, participants);
            return (
              <TurnRow
                key={node.conversationId}
                node={node}
                depth={depth}
                name={participant?.name ?? node.participantId}
                state={shown.state}
                text={shown.text}
                current={node.conversationId === selected}
                onOpen={onOpen}
              />
            );
          })}
        </ul>
      )}
    </section>
  );
}
