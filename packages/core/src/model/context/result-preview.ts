import type { TokenCounter } from './token-count.js';
import { countTextTokens } from './text-tokens.js';

/** What the context keeps of a large text: its first and last lines within a token budget. */
export interface TextPreview {
  text: string;
  /** Lines of the whole text (a final newline ends the last line, it does not start another). */
  lines: number;
  /** Whether anything was left out. */
  cut: boolean;
}

/** Share of the budget that goes to the head; the tail gets the rest (how a command ended is often what matters). */
const HEAD_SHARE = 0.6;

/**
 * The head and the tail of `text`, whole lines while they fit in
 * `budgetTokens`, a line too long to fit cut inside; the middle is replaced by
 * one line saying what is not shown. Counts only what it shows (and the line
 * it stops at), never the middle: cheap on a 10 MB text.
 */
export function previewText(text: string, count: TokenCounter, budgetTokens: number): TextPreview {
  const lines = countLines(text);
  const headBudget = Math.floor(budgetTokens * HEAD_SHARE);
  const head = takeLines(text, count, headBudget, 'head', text.length);
  const tail = takeLines(text, count, budgetTokens - head.tokens, 'tail', head.end);
  if (head.end >= tail.start) return { text, lines, cut: false };
  const hidden = text.slice(head.end, tail.start);
  const hiddenBytes = Buffer.byteLength(hidden, 'utf8');
  const whole = head.partial === false && tail.partial === false;
  const range = whole ? `lines ${head.lines + 1}-${lines - tail.lines} of ${lines}, ` : '';
  const mark = `… [${range}${hiddenBytes} bytes not shown] …`;
  const parts = [head.text, mark, tail.text].filter((part) => part !== '');
  return { text: parts.join('\n'), lines, cut: true };
}

export function countLines(text: string): number {
  if (text === '') return 0;
  let lines = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < text.length - 1; index = text.indexOf('\n', index + 1)) lines++;
  return lines;
}

interface Taken {
  text: string;
  tokens: number;
  /** Whole lines taken. */
  lines: number;
  /** A line was cut inside. */
  partial: boolean;
  /** Head: where it stops (exclusive). */
  end: number;
  /** Tail: where it starts. */
  start: number;
}

/** Whole lines from one end while they fit; the first line that does not is cut to what fits if nothing was taken yet. */
function takeLines(text: string, count: TokenCounter, budget: number, from: 'head' | 'tail', limit: number): Taken {
  const taken: string[] = [];
  let tokens = 0;
  let partial = false;
  if (from === 'head') {
    let position = 0;
    while (position < limit) {
      const newline = text.indexOf('\n', position);
      const lineEnd = newline === -1 || newline >= limit ? limit : newline;
      const line = text.slice(position, lineEnd);
      const cost = countTextTokens(count, line, budget - tokens) + 1;
      if (tokens + cost > budget) {
        if (taken.length === 0) {
          const cut = cutToTokens(line, count, budget - tokens);
          if (cut.length > 0) {
            taken.push(cut);
            tokens = budget;
            partial = true;
            position += cut.length;
          }
        }
        break;
      }
      taken.push(line);
      tokens += cost;
      position = lineEnd + 1;
    }
    const end = Math.min(position, limit);
    return { text: taken.join('\n'), tokens, lines: partial ? 0 : taken.length, partial, end, start: limit };
  }
  // Tail: lines from the end; a final newline closes the last line rather than adding an empty one.
  let position = text.endsWith('\n') ? text.length - 1 : text.length;
  let start = text.length;
  while (position > limit) {
    const newline = text.lastIndexOf('\n', position - 1);
    const lineStart = newline < limit ? limit : newline + 1;
    const line = text.slice(lineStart, position);
    const cost = countTextTokens(count, line, budget - tokens) + 1;
    if (tokens + cost > budget) {
      if (taken.length === 0) {
        const cut = cutToTokens(line, count, budget - tokens, 'end');
        if (cut.length > 0) {
          taken.unshift(cut);
          tokens = budget;
          partial = true;
          start = position - cut.length;
        }
      }
      break;
    }
    taken.unshift(line);
    tokens += cost;
    start = lineStart;
    position = lineStart - 1;
  }
  return { text: taken.join('\n'), tokens, lines: partial ? 0 : taken.length, partial, end: limit, start };
}

/** The longest start (or end) of `line` within `budget` tokens, found by shrinking a guess. */
function cutToTokens(line: string, count: TokenCounter, budget: number, keep: 'start' | 'end' = 'start'): string {
  if (budget <= 0) return '';
  // A token is rarely more than 4 characters of ordinary text; start there and shrink.
  let length = Math.min(line.length, budget * 4);
  for (;;) {
    const piece = keep === 'start' ? line.slice(0, length) : line.slice(line.length - length);
    if (length === 0 || countTextTokens(count, piece, budget) <= budget) return piece;
    length = Math.floor(length * 0.8);
  }
}
