import type { Message, ToolUseBlock } from '@legion-collective/core';
import { inertLine } from '../render/terminal-text.js';
import { keyArgument } from './format.js';

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

/** The text blocks of a message, joined. */
export function textOf(message: Message): string {
  return message.content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('')
    .trim();
}

/**
 * Each working agent and what it runs, a delegation followed down to its delegate:
 * `coordinator → developer: file_read src/a.ts`, `coordinator → (developer, reviewer: shell npm test)`.
 *
 * @param working the agent working in each conversation
 * @param calls the calls running now (delegations waiting for a slot left out)
 */
export function whoDoesWhat(
  you: string,
  working: ReadonlyMap<string, string>,
  calls: ReadonlyArray<{ participantId: string; toolUse: ToolUseBlock }>,
): string[] {
  const agents = [...new Set(working.values())].filter((id) => id !== you);
  const delegatesOf = (agent: string): string[] =>
    calls.flatMap(({ participantId, toolUse }) => {
      const input = toolUse.input as Record<string, unknown> | null;
      return participantId === agent && toolUse.name === 'communicate' && typeof input?.to === 'string' && agents.includes(input.to)
        ? [input.to]
        : [];
    });
  const toolsOf = (agent: string): string[] =>
    calls
      .filter(({ participantId, toolUse }) => participantId === agent && toolUse.name !== 'communicate')
      .map(({ toolUse }) => `${inertLine(toolUse.name)} ${keyArgument(toolUse, 30)}`.trim());
  const delegated = new Set(agents.flatMap(delegatesOf));
  const seen = new Set<string>();
  const describe = (agent: string): string => {
    seen.add(agent);
    const tools = toolsOf(agent);
    const below = delegatesOf(agent)
      .filter((delegate) => !seen.has(delegate))
      .map(describe);
    const own = `${inertLine(agent)}${tools.length > 0 ? `: ${tools.join(', ')}` : ''}`;
    if (below.length === 0) return own;
    return `${own} → ${below.length === 1 ? below[0] : `(${below.join(', ')})`}`;
  };
  // Each tree from its top (an agent nobody working here delegated to); what is left (a cycle) on its own.
  const lines = agents.filter((agent) => !delegated.has(agent)).map(describe);
  for (const agent of agents) if (!seen.has(agent)) lines.push(describe(agent));
  return lines;
}
