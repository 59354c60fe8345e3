import type { FileClaim, LegionEvents } from '@legion-collective/core';
import { columns } from './columns.js';
import { inertLine } from './terminal-text.js';

/** The line a conflict (its event, or its record in the session's log) is shown as: who was refused, which file, who holds it and what it is doing. */
export function describeClaimConflict(event: Pick<LegionEvents['claim:conflict'], 'participantId' | 'tool' | 'path' | 'holder'>): string {
  return (
    `⚠ ${inertLine(event.participantId)}'s ${inertLine(event.tool)} on ${inertLine(event.path)} did not happen: ` +
    `${inertLine(event.holder.participantId)} is changing it (${inertLine(event.holder.doing)})`
  );
}

/** Claims as a table for people: path, holder, since, session (and the conversation it was claimed in). */
export function claimsTable(claims: readonly FileClaim[]): string {
  if (claims.length === 0) return 'No file is claimed: no running turn holds one.';
  const rows = [
    ['PATH', 'HOLDER', 'SINCE', 'SESSION', 'DOING'],
    ...claims.map((claim) => [
      inertLine(claim.path),
      `${inertLine(claim.participantId)} (${inertLine(claim.conversationId)})`,
      claim.since,
      inertLine(claim.sessionId),
      inertLine(claim.doing),
    ]),
  ];
  // What a turn is doing can be a long message: cut, so the table stays on one line per claim (--json has it whole).
  return columns(rows, { maxWidth: 60 });
}
