import type { Message } from '@legion-collective/core';

/** Characters of context a snippet keeps on each side of the first word found. */
const SNIPPET_CONTEXT = 60;

/** Where a hit's words were found: a reply or message's text, a tool call's input, or a tool's result. */
export interface HitPlace {
  kind: 'text' | 'tool_call' | 'tool_result';
  /** The tool called (`tool_call`). */
  tool?: string | undefined;
  snippet: string;
}

/**
 * The place in a message the search matched, and a snippet of it as a reader would put it: a tool
 * call's input as its values ("to: user; message: Which database…"), not its JSON, which showed
 * as `…r","message":"Which **database**…"}`.
 */
export function hitPlace(message: Message, words: readonly string[]): HitPlace {
  const blocks = message.content.map((block) =>
    block.type === 'text'
      ? { kind: 'text' as const, text: block.text }
      : block.type === 'tool_use'
        ? { kind: 'tool_call' as const, tool: block.name, text: readableInput(block.input) }
        : { kind: 'tool_result' as const, text: block.content },
  );
  let found: { block: (typeof blocks)[number]; at: number; length: number } | undefined;
  for (const block of blocks) {
    const match = firstWord(block.text, words);
    if (match.length > 0) {
      found = { block, ...match };
      break;
    }
  }
  // Matched only in what the reading leaves out (a JSON key): the message's first block, from its start.
  const { block, at, length } = found ?? { block: blocks[0] ?? { kind: 'text' as const, text: '' }, at: 0, length: 0 };
  return {
    kind: block.kind,
    ...('tool' in block ? { tool: block.tool } : {}),
    snippet: snippet(block.text, at, length),
  };
}

/** A tool's input as a reader would say it: each field's value, objects as JSON. */
function readableInput(input: unknown): string {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return typeof input === 'string' ? input : JSON.stringify(input);
  return Object.entries(input)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('; ');
}

/** The first of `words` in `text` as a whole word (what the search matched on): where it starts, and its length. */
function firstWord(text: string, words: readonly string[]): { at: number; length: number } {
  let first = { at: 0, length: 0 };
  for (const word of words) {
    // Words are letters and digits only (`searchWords`): nothing in one needs escaping.
    const match = new RegExp(`(?<![\\p{L}\\p{N}])${word}(?![\\p{L}\\p{N}])`, 'iu').exec(text);
    if (match && (first.length === 0 || match.index < first.at)) first = { at: match.index, length: match[0].length };
  }
  return first;
}

function snippet(text: string, at: number, length: number): string {
  const start = Math.max(0, at - SNIPPET_CONTEXT);
  const end = Math.min(text.length, at + length + SNIPPET_CONTEXT);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}
