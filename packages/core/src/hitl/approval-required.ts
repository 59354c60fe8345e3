import type { ApprovalView } from '../store/index.js';

/** What an approver's model reads: who waits for what, and how to answer. */
export function describeApprovalRequired(requests: readonly ApprovalView[]): string {
  const lines = requests.map(
    (request) => `- ${request.id}: ${request.requester} wants to run ${request.tool} ${JSON.stringify(request.input)} (${request.reason})`,
  );
  return [
    `approval_required: the delegate's turn is paused until you decide.`,
    ...lines,
    'Answer with approval_response { "decisions": [{ "id": "...", "decision": "approve" | "reject", "reason": "..." }] }; its result is the delegate\'s reply (or the next approval request).',
  ].join('\n');
}
