import { useRef } from 'preact/hooks';
import type { ApprovalView, WireQuestion } from '../api/wire.js';
import { useApprovalDecisions, type Decide } from './approval-decisions.js';
import { DecidedApproval, PendingApproval } from './Approvals.js';
import { QuestionCard } from './Questions.js';
import { plural } from './format.js';
import type { Person } from './names.js';

/**
 * What the conversation on screen waits on you for, at its foot: the questions its turn (or a
 * delegate's under it) asked you, and the tool calls it needs you to approve — answered here, in
 * the Questions and Approvals tabs, or from a terminal, whichever comes first. A card leaves when
 * its question is answered anywhere; an approval decided while this page shows it leaves a line
 * saying how it was decided.
 */
export function WaitingOnYou({
  questions,
  approvals,
  participants = [],
  lastAsked,
  onAnswer,
  onDecide,
}: {
  questions: WireQuestion[];
  /** The id of the conversation's latest message that asked something (not a tool result): a new one is a new turn. */
  lastAsked?: string | undefined;
  /** For names and colours; an id not among them shows as itself. */
  participants?: readonly Person[];
  /** The conversation's approvals, pending or decided. */
  approvals: ApprovalView[];
  onAnswer(id: string, text: string): Promise<string | null>;
  onDecide: Decide;
}) {
  const pending = approvals.filter((approval) => approval.status === 'pending');
  const { staged, error, stage, waitingFor } = useApprovalDecisions(pending, onDecide);
  // Only decisions this page saw coming: the conversation is not the place for the whole history (the Approvals tab is).
  const seenPending = useRef(new Set<string>());
  // A new message started another turn: the decisions of the turns before are in their tool calls,
  // and a line left here would sit under every later turn (or beside its approvals, as if one of them).
  // Not at a turn's end or start: a turn paused on an approval ends, and starts again once decided.
  const asked = useRef(lastAsked);
  if (asked.current !== lastAsked) seenPending.current.clear();
  asked.current = lastAsked;
  for (const approval of pending) seenPending.current.add(approval.id);
  const decided = approvals.filter((approval) => approval.status !== 'pending' && seenPending.current.has(approval.id));
  const waiting = questions.length + pending.length;
  return (
    <>
      {/* Read out as cards come and go (always in the page: a live region added with its text is not read). */}
      <p class="visually-hidden" role="status" data-testid="waiting-on-you-status">
        {waiting === 0
          ? ''
          : `Waiting on you: ${[questions.length > 0 ? plural(questions.length, 'question') : '', pending.length > 0 ? plural(pending.length, 'approval') : ''].filter(Boolean).join(' and ')}.`}
      </p>
      {waiting + decided.length > 0 && (
        <section
          class={`panel waiting-on-you${waiting > 0 ? ' waits' : ''}`}
          data-testid="waiting-on-you"
          data-waiting={waiting}
          aria-label="Waiting on you"
        >
          <h3>{waiting > 0 ? 'Waiting on you' : 'Decided'}</h3>
          <ul class="cards">
            {questions.map((question, index) => (
              <QuestionCard
                key={question.id}
                question={question}
                participants={participants}
                inTheBox={questions.length > 1 && index === 0}
                onAnswer={onAnswer}
              />
            ))}
            {pending.map((approval) => (
              <PendingApproval
                key={approval.id}
                approval={approval}
                participants={participants}
                staged={staged[approval.id]}
                waitingFor={waitingFor(approval)}
                onStage={(answer) => void stage(approval, answer)}
              />
            ))}
          </ul>
          {error && (
            <p class="error" data-testid="inline-approvals-error">
              {error}
            </p>
          )}
          {decided.length > 0 && (
            <ul class="history" data-testid="inline-approvals-decided">
              {decided.map((approval) => (
                <DecidedApproval
                  key={approval.id}
                  approval={approval}
                  participants={participants}
                  testId={`inline-decided-${approval.id}`}
                />
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  );
}
