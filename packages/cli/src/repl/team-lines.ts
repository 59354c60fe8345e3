/** Lines of a delegation's message shown before it folds. */
export const FOLD_LINES = 4;

/** A message's first `FOLD_LINES` lines, and how many more it has. */
export function foldLines(text: string, limit = FOLD_LINES): { shown: string[]; hidden: number } {
  const lines = text.split('\n');
  // Folding away one line saves nothing: the line saying so would take its place.
  if (lines.length <= limit + 1) return { shown: lines, hidden: 0 };
  return { shown: lines.slice(0, limit), hidden: lines.length - limit };
}

/** A card waiting for the user, as the status line names it. */
export type WaitingCard = { kind: 'approval'; requester: string; tool: string } | { kind: 'question'; from: string };

/**
 * `waiting for you: 1 approval (developer → file_write)`, `waiting for you: 2 approvals (…), 1
 * question (reviewer)`; empty when nothing waits. Names are the caller's to make inert.
 */
export function waitingSummary(cards: readonly WaitingCard[]): string {
  if (cards.length === 0) return '';
  const approvals = cards.flatMap((card) => (card.kind === 'approval' ? [`${card.requester} → ${card.tool}`] : []));
  const questions = cards.flatMap((card) => (card.kind === 'question' ? [card.from] : []));
  const parts = [
    ...(approvals.length > 0 ? [`${counted(approvals.length, 'approval')} (${distinct(approvals)})`] : []),
    ...(questions.length > 0 ? [`${counted(questions.length, 'question')} (${distinct(questions)})`] : []),
  ];
  return `waiting for you: ${parts.join(', ')}`;
}

function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** Each name once, in order, with how many times it came when more than once: `developer → file_write ×2`. */
function distinct(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name)).join(', ');
}
