import type { Message } from '../../kernel/index.js';
import type { CompactionEntry } from '../../store/index.js';

/**
 * What every context rebuilt after a compaction carries verbatim, outside the summary:
 * state a summary must not be trusted with. (The agent's identity and delegation
 * targets are in its system prompt, which every request carries whole.)
 */
export interface CarryOver {
  /** Who waits on this turn, outermost first, then the agent itself. */
  chain: readonly string[];
  /** The agent's open todos, rendered; undefined when it has none. */
  todos: string | undefined;
  /** Its pinned scratchbook notes, rendered; undefined when it has none. */
  pinnedNotes: string | undefined;
  /** Approvals of this conversation still waiting for an answer, one line each. */
  pendingApprovals: readonly string[];
}

/** The opening tag of the carried-over block: tests and the hard cap recognise it by this. */
export const CARRY_OVER_TAG = '<context-carried-over>';

export function renderCarryOver(compaction: CompactionEntry, carry: CarryOver, keptIds: ReadonlySet<string>): string {
  const lines: string[] = [
    CARRY_OVER_TAG,
    `The earlier part of this conversation was compacted (${compaction.at}). Its summary:`,
    '<summary>',
    compaction.summary,
    '</summary>',
  ];
  if (carry.chain.length > 0) lines.push(`You are working for: ${carry.chain.join(' → ')}.`);
  if (carry.todos) lines.push('Your open todos (verbatim):', carry.todos);
  if (carry.pinnedNotes) lines.push('Your pinned scratchbook notes (verbatim):', carry.pinnedNotes);
  if (carry.pendingApprovals.length > 0)
    lines.push('Approvals of this conversation still pending:', ...carry.pendingApprovals.map((line) => `- ${line}`));
  // Those still in the context verbatim are not repeated.
  const carried = compaction.carried.filter((message) => !keptIds.has(message.messageId));
  if (carried.length > 0) {
    lines.push('The latest messages you were sent before the compaction (verbatim):');
    for (const message of carried) lines.push(`[${message.at}] ${message.text}`);
  }
  lines.push('</context-carried-over>');
  return lines.join('\n');
}

/**
 * The messages with the carried-over block in front: in the first message when it is
 * the initiator's (a compaction cuts at a turn start), else as a message of its own.
 */
export function withCarryOver(messages: readonly Message[], block: string, at: string): Message[] {
  const first = messages[0];
  if (first?.role === 'user') return [{ ...first, content: [{ type: 'text', text: block }, ...first.content] }, ...messages.slice(1)];
  return [{ id: 'context-carried-over', role: 'user', at, content: [{ type: 'text', text: block }] }, ...messages];
}
