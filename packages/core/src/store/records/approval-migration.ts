import type { DelegationFrame } from './delegation-frame.js';
import {
  APPROVAL_REQUEST_VERSION,
  type ApprovalLinkRecord,
  type ApprovalRequestRecord,
  type ApprovalRequestRecordV1,
} from './approval-records.js';

/**
 * A version 1 request as version 2: its `chain` of waiting participants
 * becomes frames, each agent's communicate call taken from the `link` records
 * written before the request (the latest link into a conversation from a
 * conversation between the right two participants). Migrated when read; the
 * log line itself is never rewritten. A participant whose link is missing (a
 * damaged log) keeps its place in the chain without a tool call, so approver
 * searches and cycle checks still see it; a resume just does not climb past it.
 */
export function migrateRequestV1(
  record: ApprovalRequestRecordV1,
  linksTo: (childConversationId: string) => readonly ApprovalLinkRecord[],
): ApprovalRequestRecord {
  const { chain, version: _version, ...fields } = record;
  const frames: DelegationFrame[] = [];
  let conversation = record.conversationId;
  let index = chain.length - 1;
  // chain[index] is the initiator of `conversation`: it waits in a communicate call of the conversation it answers.
  for (; index >= 1; index--) {
    const participant = chain[index]!;
    const caller = chain[index - 1]!;
    const link = linksTo(conversation).findLast((candidate) => isBetween(candidate.parentConversationId, caller, participant));
    if (!link) break;
    frames.unshift({ participantId: participant, conversationId: link.parentConversationId, toolUseId: link.toolUseId });
    conversation = link.parentConversationId;
  }
  for (; index >= 0; index--) frames.unshift({ participantId: chain[index]!, conversationId: conversation });
  return { ...fields, version: APPROVAL_REQUEST_VERSION, frames };
}

/** `<initiator>__<responder>[__<name>]`: ids never contain `__`, so the prefix decides. */
function isBetween(conversationId: string, initiator: string, responder: string): boolean {
  const pair = `${initiator}__${responder}`;
  return conversationId === pair || conversationId.startsWith(`${pair}__`);
}
