import { useState } from 'preact/hooks';
import type { SearchHit, SessionSummary } from '../api/wire.js';
import { formatCost, formatTime, plural } from './format.js';
import { displayName, type Person } from './names.js';
import { MoreSessions } from './MoreSessions.js';
import { visibleText } from './visible-text.js';

interface SessionsProps {
  sessions: SessionSummary[];
  /** For names in search hits. */
  participants: readonly Person[];
  sessionId: string | null;
  /** More sessions follow those listed: a "More sessions" button loads the next page. */
  hasMore: boolean;
  onMore(): Promise<void>;
  onSwitch(id: string): void;
  onNew(): void;
  onSearch(q: string): Promise<SearchHit[]>;
  onOpenHit(hit: SearchHit): void;
}

/** Every session of the workspace, newest first: switch, start a new one, search what was said. */
export function Sessions({ sessions, participants, sessionId, hasMore, onMore, onSwitch, onNew, onSearch, onOpenHit }: SessionsProps) {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <section class="panel" data-testid="view-sessions">
      <div class="row">
        <h2>Sessions</h2>
        <button type="button" data-testid="session-new" onClick={onNew}>
          New session
        </button>
      </div>
      <form
        class="row"
        onSubmit={async (event) => {
          event.preventDefault();
          if (q.trim() === '') return setHits(null);
          try {
            setHits(await onSearch(q.trim()));
            setError(null);
          } catch (failure) {
            setError(failure instanceof Error ? failure.message : String(failure));
          }
        }}
      >
        <label for="search-input">Search history</label>
        <input
          id="search-input"
          type="search"
          value={q}
          placeholder="words said in any session"
          aria-describedby="search-hint"
          data-testid="search-input"
          onInput={(event) => setQ(event.currentTarget.value)}
        />
        <button type="submit" data-testid="search-submit">
          Search
        </button>
        {error && <span class="error">{error}</span>}
      </form>
      <p class="muted search-hint" id="search-hint">
        Whole words, every word of what you type: “claim files” finds messages with both words, not “claimed”.
      </p>
      {hits !== null && (
        <h3 data-testid="search-hits-heading">{hits.length === 0 ? 'Found nothing' : `Found in ${plural(hits.length, 'message')}`}</h3>
      )}
      {hits !== null && (
        <ul class="hits" data-testid="search-hits">
          {hits.length === 0 && (
            <li class="muted" data-testid="search-none">
              No message holds every one of these words. Search matches whole words: try the word as it was written.
            </li>
          )}
          {hits.map((hit) => (
            <li key={`${hit.sessionId}/${hit.messageId}`} data-testid={`search-hit-${hit.messageId}`}>
              <a
                href="#/work"
                onClick={(event) => {
                  event.preventDefault();
                  onOpenHit(hit);
                }}
              >
                <strong>{visibleText(displayName(participants, hit.author))}</strong>
                {/* A tool call's input or a tool's result is no message the author wrote: said so. */}
                {hit.place === 'tool_call'
                  ? ` called ${visibleText(hit.tool ?? 'a tool')}`
                  : hit.place === 'tool_result'
                    ? '’s tool result'
                    : ''}{' '}
                in{' '}
                {visibleText(
                  `${displayName(participants, hit.initiator)} → ${displayName(participants, hit.responder)}${hit.conversationName ? ` (${hit.conversationName})` : ''}`,
                )}
                {hit.sessionId !== sessionId && (
                  <span class="muted">
                    {' '}
                    · {visibleText(sessions.find((session) => session.id === hit.sessionId)?.title ?? `session ${hit.sessionId}`)}
                  </span>
                )}{' '}
                <span class="muted">{formatTime(hit.at)}</span>
              </a>
              <p>{visibleText(hit.snippet)}</p>
            </li>
          ))}
        </ul>
      )}
      <ul class="sessions" data-testid="session-list">
        {sessions.map((session) => (
          <li key={session.id} class={session.id === sessionId ? 'current' : ''} data-testid={`session-${session.id}`}>
            <button type="button" class="link" data-testid={`session-open-${session.id}`} onClick={() => onSwitch(session.id)}>
              {visibleText(session.title ?? session.id)}
            </button>
            <span class="muted">
              {' '}
              {formatTime(session.updatedAt)} · {plural(session.conversations, 'conversation')} · {plural(session.messages, 'message')} ·{' '}
              {formatCost(session.costUsd)}
            </span>
          </li>
        ))}
      </ul>
      {hasMore && <MoreSessions onMore={onMore} />}
    </section>
  );
}
