import type { WireQuestion } from '../api/wire.js';
import { displayName, type Person } from './names.js';
import { plainText } from './plain-text.js';
import { visibleText } from './visible-text.js';

const QUOTE_LENGTH = 120;

function quote(text: string): string {
  const line = visibleText(plainText(text));
  return line.length > QUOTE_LENGTH ? `${line.slice(0, QUOTE_LENGTH - 1)}…` : line;
}

/** Says, above the message box, which question the box answers now (the oldest, when several wait). */
export function Answering({
  question,
  waiting,
  participants = [],
}: {
  question: WireQuestion;
  waiting: number;
  participants?: readonly Person[];
}) {
  return (
    <p class="answering" data-testid="composer-answering" data-question={question.id}>
      <span>
        Answering <strong>{visibleText(displayName(participants, question.from))}</strong>’s question
        {waiting > 1 && (
          <span data-testid="composer-answering-which"> (the oldest of {waiting} waiting here; each card above has its own box)</span>
        )}
        :
      </span>{' '}
      <q class="muted">{quote(question.text)}</q>
    </p>
  );
}
