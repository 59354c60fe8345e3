import { useEffect, useState } from 'preact/hooks';
import type { WireQuestion } from '../api/wire.js';
import { Answering } from './Answering.js';
import { visibleText } from './visible-text.js';
import { displayName, type Person } from './names.js';

const BUSY = 'A turn runs in this conversation';
const BUSY_WORDS = `${BUSY} already: wait for it to end (or Stop it), or give another conversation name to work in parallel.`;

/** The conversation on screen, as the box needs it: whom it is with, and whether it is yours to write in. */
export interface ComposerTarget {
  id: string;
  /** Yours (you opened it): the box writes to its responder, in it. Else (agents' own, a question to you) it is read only. */
  yours: boolean;
  responder: string;
  name?: string | undefined;
  /** Its initiator, for the words of a conversation that is not yours. */
  initiator: string;
  /** A turn runs in it now. */
  active: boolean;
}

/**
 * You, as a participant: a message to the entry agent or any other, in a named conversation if you
 * like. It follows the conversation on screen: opening one of yours addresses its responder in it.
 * While the conversation on screen waits on your answer to a question, the box answers it
 * instead (a message could not go in anyway: the conversation is busy until you answer).
 */
export function Composer({
  participants,
  entryAgent,
  target,
  answering,
  approvalsWaiting = 0,
  onSend,
  onAnswer,
}: {
  participants: readonly Person[];
  entryAgent: string | undefined;
  target?: ComposerTarget | undefined;
  /** The questions the conversation on screen waits on, oldest first: the box answers the first. */
  answering: WireQuestion[];
  /** Approvals the conversation on screen waits on: no message gets into it until they are decided. */
  approvalsWaiting?: number;
  onSend(text: string, to: string | undefined, conversation: string | undefined): Promise<string | null>;
  onAnswer(questionId: string, text: string): Promise<string | null>;
}) {
  const [text, setText] = useState('');
  const [to, setTo] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const agents = participants.filter((participant) => participant.type !== 'user');
  const question = answering[0];
  // Opening a conversation of yours addresses it: what you type next goes there, not to whom you wrote last.
  const targetId = target?.id;
  useEffect(() => {
    setError(null);
    if (!target?.yours) return;
    setTo(target.responder === entryAgent ? '' : target.responder);
    setName(target.name ?? '');
  }, [targetId]); // only when another conversation is opened, not at each of its changes
  // A refusal because a turn ran (busy) says nothing once that turn has ended.
  const active = target?.active ?? false;
  useEffect(() => {
    if (!active) setError((shown) => (shown !== null && shown.startsWith(BUSY) ? null : shown));
  }, [active]);
  const elsewhere =
    target !== undefined && !target.yours && !question
      ? `You are reading ${displayName(participants, target.initiator)} → ${displayName(participants, target.responder)}, which is not yours to write in: what you send goes to ${displayName(participants, to === '' ? (entryAgent ?? '') : to) || 'the entry agent'}${name.trim() !== '' ? ` (${name.trim()})` : ''}.`
      : null;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (text.trim() === '' || sending) return;
    setSending(true);
    const failure = question
      ? await onAnswer(question.id, text)
      : await onSend(text, to === '' ? undefined : to, name.trim() === '' ? undefined : name.trim());
    setSending(false);
    setError(failure !== null && /is busy with another message/.test(failure) ? BUSY_WORDS : failure);
    if (failure === null) setText('');
  };
  return (
    <form class="panel composer" data-testid="composer" data-answering={question?.id} onSubmit={submit}>
      {!question && approvalsWaiting > 0 && (
        <p class="answering" data-testid="composer-waits-on-approval">
          This conversation waits on your decision above ({approvalsWaiting === 1 ? 'one call' : `${approvalsWaiting} calls`}): decide it
          first.
        </p>
      )}
      {elsewhere && (
        <p class="muted" data-testid="composer-elsewhere">
          {visibleText(elsewhere)}
        </p>
      )}
      {question ? (
        <Answering question={question} waiting={answering.length} participants={participants} />
      ) : (
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
      )}
      <textarea
        value={text}
        rows={3}
        placeholder={
          question
            ? `Answer ${displayName(participants, question.from)}'s question… (Enter answers, Shift+Enter a new line)`
            : 'Message… (Enter sends, Shift+Enter a new line)'
        }
        aria-label={question ? `Answer ${displayName(participants, question.from)}'s question` : 'Message'}
        aria-keyshortcuts="Enter Control+Enter"
        data-testid="composer-text"
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={(event) => {
          // Enter sends (or answers), as in every chat; Shift+Enter is a new line; Ctrl/Cmd+Enter sends too (it always did).
          // Not while an input method composes a character: its Enter picks the character.
          if (event.key !== 'Enter' || event.isComposing || event.shiftKey || event.altKey) return;
          event.preventDefault();
          void submit(event);
        }}
      />
      <div class="row">
        <button type="submit" disabled={sending || text.trim() === ''} data-testid="composer-send">
          {question ? 'Answer' : 'Send'}
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
