import type { ConversationSummary, Participant } from '../api/wire.js';
import type { AppState } from '../state/app-state.js';
import { Graph } from './Graph.js';
import { displayName, type Person } from './names.js';
import { pure } from './pure.js';
import { TurnTree } from './TurnTree.js';
import { visibleText } from './visible-text.js';

interface SideProps {
  participants: Participant[];
  /** The same participants as names only (names.ts `usePeople`): the list is not drawn again at each state event. */
  people: readonly Person[];
  conversations: AppState['conversations'];
  activeTurns: AppState['activeTurns'];
  turnTree: AppState['turnTree'];
  selected: string | null;
  onOpen(conversationId: string): void;
}

/** The work view's side: the conversation graph, the current turn's tree, the conversations. */
export function Side({ participants, people, conversations: byId, activeTurns, turnTree, selected, onOpen }: SideProps) {
  const conversations = Object.values(byId);
  return (
    <div class="side">
      <Graph participants={participants} conversations={conversations} activeTurns={activeTurns} selected={selected} onSelect={onOpen} />
      <TurnTree tree={turnTree} participants={participants} selected={selected} onOpen={onOpen} />
      <section class="panel">
        <h2>Conversations</h2>
        <ul class="conversation-list" data-testid="conversation-list">
          {conversations.map((conversation) => (
            <ConversationRow
              key={conversation.id}
              id={conversation.id}
              label={labelOf(people, conversation)}
              active={conversation.id in activeTurns}
              current={conversation.id === selected}
              onOpen={onOpen}
            />
          ))}
        </ul>
      </section>
    </div>
  );
}

const labelOf = (participants: readonly Person[], conversation: ConversationSummary): string =>
  `${displayName(participants, conversation.initiator)} → ${displayName(participants, conversation.responder)}${conversation.name ? ` (${conversation.name})` : ''}`;

interface RowProps {
  id: string;
  label: string;
  active: boolean;
  current: boolean;
  onOpen(conversationId: string): void;
}

/** One conversation of the list: drawn again only when its label, its turn or the selection changed. */
const ConversationRow = pure(function ConversationRow({ id, label, active, current, onOpen }: RowProps) {
  return (
    <li class={current ? 'current' : ''}>
      <button type="button" class="link" data-testid={`conversation-open-${id}`} onClick={() => onOpen(id)}>
        {visibleText(label)}
      </button>
      {active && (
        <>
          {' '}
          <span class="badge running">active</span>
        </>
      )}
    </li>
  );
});
