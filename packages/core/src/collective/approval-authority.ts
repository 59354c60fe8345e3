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

/**
 * Who decides when nobody in the chain may: the human that the chain's first
 * participant stands in for (`actsFor`, an MCP client's user), if that human
 * may approve it. Without a stand-in, nobody.
 */
export function standInApprover(origin: Participant | undefined, resolve: (id: string) => Participant | undefined, requesterId: string, toolName: string): Participant | undefined {
  if (origin?.type !== 'user' || !origin.actsFor) return undefined;
  const human = resolve(origin.actsFor);
  if (!human || human.id === requesterId || human.status !== 'active' || !canApprove(human, requesterId, toolName)) return undefined;
  return human;
}
