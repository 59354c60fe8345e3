import type { LegionEvents } from '@legion-collective/core';
import { escapeMarkdown } from './tool-call-line.js';
import { visibleText } from './visible-text.js';

/**
 * A refused write as a chat quote: who was refused, the file, who holds it and what it is doing;
 * "in another process" when it was read from the session's log (a `legion run` beside the editor).
 * Every name and the holder's task are the agents' text: made visible and kept literal.
 */
export function describeClaimConflict(event: LegionEvents['claim:conflict']): string {
  const text = (value: string): string => escapeMarkdown(visibleText(value));
  const where = event.remote ? ' (in another process)' : '';
  return (
    `> **⚠ Conflict${where}:** ${text(event.participantId)}'s ${text(event.tool)} on \`${visibleText(event.path).replace(/`/g, "'")}\` did not happen: ` +
    `${text(event.holder.participantId)} is changing it (${text(event.holder.doing)}).`
  );
}
