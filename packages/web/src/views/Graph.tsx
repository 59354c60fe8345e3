import { useRef } from 'preact/hooks';
import type { ConversationSummary, Participant } from '../api/wire.js';
import type { ActiveTurn } from '../state/app-state.js';
import { arrowPath, NODE_RADIUS, ringLayout } from './graph-layout.js';
import { stateText } from './live-state.js';
import { useMarch } from './march.js';
import { pure } from './pure.js';
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
  name: string | undefined;
  messages: number;
  d: string;
  labelX: number;
  labelY: number;
  active: boolean;
  selected: boolean;
  onSelect(conversationId: string): void;
}

/** One conversation's arrow: drawn again only when it changed (a session has hundreds; an event changes one or two). */
const Edge = pure(function Edge({ id, name, messages, d, labelX, labelY, active, selected, onSelect }: EdgeProps) {
  return (
    <g
      class={`edge${active ? ' active' : ''}${selected ? ' selected' : ''}`}
      data-testid={`graph-edge-${id}`}
      data-active={String(active)}
      onClick={() => onSelect(id)}
    >
      <title>{visibleText(`${id}: ${messages} messages`)}</title>
      <path d={d} class="edge-hit" />
      <path d={d} class="edge-line" marker-end={active ? 'url(#arrow-active)' : 'url(#arrow)'} />
      {name && (
        <text x={labelX} y={labelY} class="edge-label">
          {visibleText(name)}
        </text>
      )}
    </g>
  );
});

/** Participants as nodes, conversations as arrows initiator → responder; the turns running now are lit. */
export function Graph({ participants, conversations, activeTurns, selected, onSelect }: GraphProps) {
  const ids = participants.map((participant) => participant.id);
  for (const conversation of conversations)
    for (const id of [conversation.initiator, conversation.responder]) if (!ids.includes(id)) ids.push(id);
  const positions = ringLayout(ids, WIDTH, HEIGHT);
  const lanes = new Map<string, number>();
  const active = new Set(Object.keys(activeTurns));
  const busy = new Set(Object.values(activeTurns).map((turn) => turn.participantId));
  const svg = useRef<SVGSVGElement>(null);
  useMarch(
    svg,
    conversations.some((conversation) => active.has(conversation.id)),
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
        {conversations.map((conversation) => {
          const from = positions.get(conversation.initiator);
          const to = positions.get(conversation.responder);
          if (!from || !to) return null;
          const pair = `${conversation.initiator}>${conversation.responder}`;
          const lane = lanes.get(pair) ?? 0;
          lanes.set(pair, lane + 1);
          const { d, label } = arrowPath(from, to, lane);
          return (
            <Edge
              key={conversation.id}
              id={conversation.id}
              name={conversation.name}
              messages={conversation.messages}
              d={d}
              labelX={label.x}
              labelY={label.y}
              active={active.has(conversation.id)}
              selected={selected === conversation.id}
              onSelect={onSelect}
            />
          );
        })}
        {ids.map((id) => {
          const point = positions.get(id);
          if (!point) return null;
          const participant = participants.find((candidate) => candidate.id === id);
          const state = participant?.state ?? 'idle';
          return (
            <g
              key={id}
              class={`node state-${state}${busy.has(id) ? ' busy' : ''}`}
              data-testid={`graph-node-${id}`}
              data-state={state}
              transform={`translate(${point.x} ${point.y})`}
            >
              <title>{visibleText(`${participant?.name ?? id}: ${participant ? stateText(participant, participants) : 'idle'}`)}</title>
              <circle r={NODE_RADIUS} />
              <text y="4">{visibleText(shortLabel(participant?.name ?? id))}</text>
            </g>
          );
        })}
      </svg>
    </section>
  );
}
