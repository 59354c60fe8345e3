import { escapeMarkdown } from './tool-call-line.js';
import { visibleText } from './visible-text.js';

/**
 * The strings VS Code's own UI shows (input boxes, notifications, tree rows), built from outside
 * text — a model's question, a participant's description, a session title, an error — with that
 * text made visible first: VS Code draws these as plain text, where a CR, an escape or a bidi
 * override would hide or reorder what the user reads before answering.
 */

export interface QuestionText {
  from: string;
  text: string;
}

/** The input box that takes the answer to a question. */
export function questionPrompt(question: QuestionText): { title: string; prompt: string } {
  return { title: `Answer ${visibleText(question.from)}`, prompt: visibleText(question.text) };
}

/** The question in a chat: who asks, and its text quoted (markdown kept, as in a reply; what is hidden made visible). */
export function questionMarkdown(question: QuestionText): string {
  const quoted = visibleText(question.text)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  return `**${escapeMarkdown(visibleText(question.from))}** asks you:\n\n${quoted}\n\n`;
}

/** The notification that a question waits, when no chat shows it. */
export function questionNotice(question: QuestionText): string {
  return `Legion: ${visibleText(question.from)} asks you: ${visibleText(question.text)}`;
}

/** A notification of something Legion says, with outside text inside it (an error, a tool call's question). */
export function notice(text: string): string {
  return `Legion: ${visibleText(text)}`;
}

/** An error as a notification. */
export function errorNotice(error: unknown): string {
  return notice(error instanceof Error ? error.message : String(error));
}

/** A tree row's text, every field made visible: one place for every row of every Legion view. */
export function visibleRow<Row extends { label: string; description?: string | undefined; tooltip?: string | undefined }>(row: Row): Row {
  return Object.assign({}, row, {
    label: visibleText(row.label),
    ...(row.description !== undefined ? { description: visibleText(row.description) } : {}),
    ...(row.tooltip !== undefined ? { tooltip: visibleText(row.tooltip) } : {}),
  });
}
