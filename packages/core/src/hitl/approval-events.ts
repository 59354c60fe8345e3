import type { ApprovalRecord, ApprovalRequestRecord } from '../store/index.js';
import type { EventBus } from '../kernel/index.js';
import { waitingParticipants } from '../session/index.js';

/**
 * The event an approvals-log record makes: a request is `approval:requested`,
 * a decision `approval:decided` (told with its request, found by `requestOf`). `remote` when a follower read it from another process's log.
 */
export function emitApprovalRecord(
  events: EventBus,
  sessionId: string,
  record: ApprovalRecord,
  requestOf: (requestId: string) => ApprovalRequestRecord | undefined,
  remote = false,
): void {
  const from = remote ? { remote: true as const } : {};
  if (record.kind === 'request') {
    if (!events.hasListeners('approval:requested')) return;
    const { id, batchId, requester, approver, tool, toolUseId, input, reason, sandbox, frames, conversationId } = record;
    events.emit('approval:requested', {
      sessionId,
      conversationId,
      requestId: id,
      batchId,
      requester,
      approver,
      tool,
      toolUseId,
      input,
      reason,
      ...(sandbox !== undefined ? { sandbox } : {}),
      chain: waitingParticipants(frames),
      ...from,
    });
  } else if (record.kind === 'decision') {
    if (!events.hasListeners('approval:decided')) return;
    const request = requestOf(record.requestId);
    if (!request) return;
    events.emit('approval:decided', {
      sessionId,
      conversationId: request.conversationId,
      requestId: record.requestId,
      requester: request.requester,
      approver: request.approver,
      tool: request.tool,
      decision: record.decision,
      decidedBy: record.decidedBy,
      ...(record.reason !== undefined ? { reason: record.reason } : {}),
      ...(record.always ? { always: true } : {}),
      ...(record.ruleId !== undefined ? { ruleId: record.ruleId } : {}),
      ...(record.pattern !== undefined ? { pattern: record.pattern } : {}),
      ...(record.medium !== undefined ? { medium: record.medium } : {}),
      ...(record.cancelled ? { cancelled: true } : {}),
      ...from,
    });
  }
}
