import { useState } from 'preact/hooks';
import type { WireQuestion } from '../api/wire.js';
import { formatTime } from './format.js';
import { Markdown } from './Markdown.js';
import { displayName, type Person } from './names.js';
import { Who } from './Who.js';
import { visibleText } from './visible-text.js';

/** A question waiting for the user, with its own answer box: in the Questions tab, and in the conversations that wait on it. */
export function QuestionCard({
  question,
  participants = [],
  inTheBox = false,
  onAnswer,
}: {
  question: WireQuestion;
  /** For names and colours; an id not among them shows as itself. */
  participants?: readonly Person[];
  /** The conversation's message box answers this one too (it answers the oldest waiting). */
  inTheBox?: boolean;
  onAnswer(id: string, text: string): Promise<string | null>;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <li class="card" data-testid={`question-${question.id}`}>
      <div class="meta">
        {/* The chain ends with the asker already. */}
        <Who id={question.from} participants={participants} /> asks{' '}
        <span class="muted" data-testid="question-chain">
          ({visibleText(question.chain.map((id) => displayName(participants, id)).join(' → '))}, {formatTime(question.askedAt)})
        </span>
        {inTheBox && (
          <span class="tag" data-testid="question-in-box">
            the message box answers this one
          </span>
        )}
      </div>
      {/* The agent's markdown, rendered as a reply is (inert: no HTML of the model's reaches the page). */}
      <div class="question-text" data-testid="question-text">
        <Markdown text={question.text} />
      </div>
      <form
        class="row"
        onSubmit={async (event) => {
          event.preventDefault();
          if (text.trim() === '') return;
          setError(await onAnswer(question.id, text));
        }}
      >
        <input
          value={text}
          placeholder="Your answer"
          data-testid={`question-answer-${question.id}`}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        <button type="submit" disabled={text.trim() === ''} data-testid={`question-send-${question.id}`}>
          Answer
        </button>
        {error && <span class="error">{error}</span>}
      </form>
    </li>
  );
}

/** Questions agents asked you; answered here or in a REPL on the same workspace, once. */
export function Questions({
  questions,
  participants = [],
  onAnswer,
}: {
  questions: WireQuestion[];
  participants?: readonly Person[];
  onAnswer(id: string, text: string): Promise<string | null>;
}) {
  return (
    <section class="panel" data-testid="view-questions">
      <h2>Questions for you</h2>
      {questions.length === 0 ? (
        <p class="muted" data-testid="questions-empty">
          No agent is waiting for you.
        </p>
      ) : (
        <ul class="cards" aria-live="polite" aria-relevant="additions">
          {questions.map((question) => (
            <QuestionCard key={question.id} question={question} participants={participants} onAnswer={onAnswer} />
          ))}
        </ul>
      )}
    </section>
  );
}
