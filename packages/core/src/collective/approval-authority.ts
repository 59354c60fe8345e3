import picomatch from 'picomatch';
import type { Participant } from './participant.js';
import type { ApprovalAuthority } from './policy.js';

/** Whether a participant may approve this requester's use of this tool. */
export function canApprove(approver: Participant, requesterId: string, toolName: string): boolean {
  const authority: ApprovalAuthority = approver.approvalAuthority ?? (approver.type === 'user' ? '*' : 'none');
  if (authority === '*') return true;
  if (authority === 'none') return false;
  return authority.some((rule) => picomatch.isMatch(requesterId, rule.requester, { dot: true }) && rule.tools.some((tool) => picomatch.isMatch(toolName, tool, { dot: true })));
}
