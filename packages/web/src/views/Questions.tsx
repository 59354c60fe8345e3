import { useState } from 'preact/hooks';
import type { WireQuestion } from '../api/wire.js';
import { formatTime } from './format.js';
import { visibleText } from './visible-text.js';

/** A question waiting for the user, with its own answer box: in the Questions tab, and in the conversations that wait on it. */
export function QuestionCard({
  question,
  inTheBox = false,
  onAnswer,
}: {
  question: WireQuestion;
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
        <strong>{visibleText(question.from)}</strong> asks{' '}
        <span class="muted" data-testid="question-chain">
          ({visibleText(question.chain.join(' → '))}, {formatTime(question.askedAt)})
        </span>
        {inTheBox && (
          <span class="tag" data-testid="question-in-box">
            the message box answers this one
          </span>
        )}
      </div>
      <p class="question-text" data-testid="question-text">
        {visibleText(question.text)}
      </p>
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
        <button type="submit" data-testid={`question-send-${question.id}`}>
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
  onAnswer,
}: {
  questions: WireQuestion[];
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
        <ul class="cards">
          {questions.map((question) => (
            <QuestionCard key={question.id} question={question} onAnswer={onAnswer} />
          ))}
        </ul>
      )}
    </section>
  );
}
