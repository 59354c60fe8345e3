import type { Participant } from '../api/wire.js';
import { stateText } from './live-state.js';
import { visibleText } from './visible-text.js';

/** The collective: who is in it, what each may do, and what each is doing now. */
export function Roster({ participants, entryAgent }: { participants: Participant[]; entryAgent: string | undefined }) {
  return (
    <section class="panel" data-testid="view-collective">
      <h2>Collective</h2>
      <ul class="roster">
        {participants.map((participant) => (
          <li key={participant.id} class="card" data-testid={`participant-${participant.id}`}>
            <div class="row">
              <strong>{visibleText(participant.name ?? participant.id)}</strong>
              <span class="muted">{participant.id !== (participant.name ?? participant.id) ? visibleText(participant.id) : ''}</span>
              <span class="tag">{participant.type}</span>
              {participant.id === entryAgent && <span class="tag">entry</span>}
              <span
                class={`state state-${participant.state}`}
                data-testid={`participant-state-${participant.id}`}
                data-state={participant.state}
                data-outcome={participant.outcome}
              >
                {visibleText(stateText(participant, participants))}
              </span>
            </div>
            {participant.description && (
              <p data-testid={`participant-description-${participant.id}`}>{visibleText(participant.description)}</p>
            )}
            {participant.useFor && <p class="muted">Use for: {visibleText(participant.useFor)}</p>}
            <dl>
              {participant.model && (
                <>
                  <dt>Model</dt>
                  <dd>{visibleText(`${participant.model.provider} / ${participant.model.model}`)}</dd>
                </>
              )}
              <dt>Tools</dt>
              <dd>{participant.tools.length > 0 ? visibleText(participant.tools.join(', ')) : 'none'}</dd>
              <dt>Delegates to</dt>
              <dd>{participant.delegatesTo.length > 0 ? visibleText(participant.delegatesTo.join(', ')) : 'nobody'}</dd>
            </dl>
          </li>
        ))}
      </ul>
    </section>
  );
}
