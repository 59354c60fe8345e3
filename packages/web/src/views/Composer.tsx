import { useState } from 'preact/hooks';
import type { Participant } from '../api/wire.js';
import { visibleText } from './visible-text.js';
import { displayName } from './Who.js';

/** You, as a participant: a message to the entry agent or any other, in a named conversation if you like. */
export function Composer({
  participants,
  entryAgent,
  onSend,
}: {
  participants: Participant[];
  entryAgent: string | undefined;
  onSend(text: string, to: string | undefined, conversation: string | undefined): Promise<string | null>;
}) {
  const [text, setText] = useState('');
  const [to, setTo] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const agents = participants.filter((participant) => participant.type !== 'user');
  const submit = async (event: Event) => {
    event.preventDefault();
    if (text.trim() === '') return;
    setSending(true);
    const failure = await onSend(text, to === '' ? undefined : to, name.trim() === '' ? undefined : name.trim());
    setSending(false);
    setError(failure);
    if (failure === null) setText('');
  };
  return (
    <form class="panel composer" data-testid="composer" onSubmit={submit}>
      <div class="row">
        <label>
          To{' '}
          <select value={to} data-testid="composer-to" onChange={(event) => setTo(event.currentTarget.value)}>
            <option value="">{entryAgent ? `${visibleText(displayName(participants, entryAgent))} (entry agent)` : 'entry agent'}</option>
            {agents
              .filter((agent) => agent.id !== entryAgent)
              .map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {visibleText(displayName(participants, agent.id))}
                </option>
              ))}
          </select>
        </label>
        <label>
          Conversation{' '}
          <input
            value={name}
            placeholder="(default)"
            data-testid="composer-conversation"
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </label>
      </div>
      <textarea
        value={text}
        rows={3}
        placeholder="Message… (Enter sends, Shift+Enter for a new line)"
        aria-keyshortcuts="Enter Control+Enter"
        data-testid="composer-text"
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          // Enter sends, as in every chat; Shift+Enter is a new line; Ctrl/Cmd+Enter sends too (it always did).
          // Not while an input method composes a character: its Enter picks the character.
          if (event.key !== 'Enter' || event.isComposing || event.shiftKey || event.altKey) return;
          event.preventDefault();
          void submit(event);
        }}
      />
      <div class="row">
        <button type="submit" disabled={sending || text.trim() === ''} data-testid="composer-send">
          Send
        </button>
        {error && (
          <span class="error" data-testid="composer-error">
            {error}
          </span>
        )}
      </div>
    </form>
  );
}
