import { useMemo, useRef } from 'preact/hooks';
import type { ConversationSummary, Participant } from '../api/wire.js';
import type { ActiveTurn } from '../state/app-state.js';
import { arrowPath, NODE_RADIUS, ringLayout } from './graph-layout.js';
import { plural } from './format.js';
import { pairEdges } from './graph-edges.js';
import { stateText } from './live-state.js';
import { useMarch } from './march.js';
import { pure } from './pure.js';
import { displayName } from './names.js';
import { visibleText } from './visible-text.js';

const WIDTH = 560;
const HEIGHT = 420;

interface GraphProps {
  participants: Participant[];
  conversations: ConversationSummary[];
  activeTurns: Record<string, ActiveTurn>;
  selected: string | null;
  onSelect(conversationId: string): void;
}

/** What fits in a node's circle: 11 characters at most. */
function shortLabel(name: string): string {
  return name.length > 11 ? `${name.slice(0, 10)}…` : name;
}

interface EdgeProps {
  id: string;
  label: string | undefined;
  title: string;
  d: string;
  labelX: number;
  labelY: number;
  active: boolean;
  selected: boolean;
  opens: string;
  onSelect(conversationId: string): void;
}

/** One pair's arrow: drawn again only when it changed (an event changes one or two). */
const Edge = pure(function Edge({ id, label, title, d, labelX, labelY, active, selected, opens, onSelect }: EdgeProps) {
  return (
    <g
      class={`edge${active ? ' active' : ''}${selected ? ' selected' : ''}`}
      data-testid={`graph-edge-${id}`}
      data-active={String(active)}
      data-opens={opens}
      onClick={() => onSelect(opens)}
    >
      <title>{visibleText(title)}</title>
      <path d={d} class="edge-hit" />
      <path d={d} class="edge-line" marker-end={active ? 'url(#arrow-active)' : 'url(#arrow)'} />
      {label && (
        <text x={labelX} y={labelY} class="edge-label">
          {visibleText(label)}
        </text>
      )}
    </g>
  );
});

interface NodeProps {
  id: string;
  label: string;
  title: string;
  state: string;
  /** An idle participant's last turn, when it failed or was stopped: worth seeing without hovering. */
  outcome: string | undefined;
  busy: boolean;
  x: number;
  y: number;
}

/** One participant: drawn again only when its state or place changed. */
const Node = pure(function Node({ id, label, title, state, busy, x, y }: NodeProps) {
  return (
    <g
      class={`node state-${state}${busy ? ' busy' : ''}`}
      data-testid={`graph-node-${id}`}
      data-state={state}
      transform={`translate(${x} ${y})`}
    >
      <title>{visibleText(title)}</title>
      <circle r={NODE_RADIUS} />
      <text y="4">{visibleText(label)}</text>
    </g>
  );
});

/** Participants as nodes; an arrow initiator → responder for the conversations between them; the turns running now are lit. */
export function Graph({ participants, conversations, activeTurns, selected, onSelect }: GraphProps) {
  const ids = participants.map((participant) => participant.id);
  for (const conversation of conversations)
    for (const id of [conversation.initiator, conversation.responder]) if (!ids.includes(id)) ids.push(id);
  const key = ids.join('\n');
  const positions = useMemo(() => ringLayout(key.split('\n'), WIDTH, HEIGHT), [key]);
  const active = new Set(Object.keys(activeTurns));
  const busy = new Set(Object.values(activeTurns).map((turn) => turn.participantId));
  const edges = pairEdges(conversations, active, selected);
  const svg = useRef<SVGSVGElement>(null);
  useMarch(
    svg,
    edges.some((edge) => edge.active),
  );
  return (
    <section class="panel graph" data-testid="view-graph">
      <h2>Conversation graph</h2>
      <svg ref={svg} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label="Conversations between participants">
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
          </marker>
          <marker id="arrow-active" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead active" />
          </marker>
        </defs>
        {edges.map((edge) => {
          const from = positions.get(edge.initiator);
          const to = positions.get(edge.responder);
          if (!from || !to) return null;
          const { d, label } = arrowPath(from, to);
          const who = `${displayName(participants, edge.initiator)} → ${displayName(participants, edge.responder)}`;
          const messages = plural(edge.messages, 'message');
          const title =
            edge.conversationIds.length > 1
              ? `${who}: ${edge.label}, ${messages}`
              : `${who}${edge.label ? ` (${edge.label})` : ''}: ${messages}`;
          return (
            <Edge
              key={edge.id}
              id={edge.id}
              label={edge.label}
              title={title}
              d={d}
              labelX={label.x}
              labelY={label.y}
              active={edge.active}
              selected={edge.selected}
              opens={edge.opens}
              onSelect={onSelect}
            />
          );
        })}
        {ids.map((id) => {
          const point = positions.get(id);
          if (!point) return null;
          const participant = participants.find((candidate) => candidate.id === id);
          const name = participant?.name ?? id;
          return (
            <Node
              key={id}
              id={id}
              label={shortLabel(name)}
              title={`${name}: ${participant ? stateText(participant, participants) : 'idle'}`}
              state={participant?.state ?? 'idle'}
              outcome={participant?.state === 'idle' ? participant.outcome : undefined}
              busy={busy.has(id)}
              x={point.x}
              y={point.y}
            />
          );
        })}
      </svg>
    </section>
  );
}
