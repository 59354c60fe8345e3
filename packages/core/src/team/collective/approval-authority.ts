import picomatch from 'picomatch';
import type { Participant } from './participant.js';
import type { ApprovalAuthority } from './policy.js';

/** Whether a participant may approve this requester's use of this tool. */
export function canApprove(approver: Participant, requesterId: string, toolName: string): boolean {
  const authority: ApprovalAuthority = approver.approvalAuthority ?? (approver.type === 'user' ? '*' : 'none');
  if (authority === '*') return true;
  if (authority === 'none') return false;
  return authority.some(
    (rule) =>
      picomatch.isMatch(requesterId, rule.requester, { dot: true }) &&
      rule.tools.some((tool) => picomatch.isMatch(toolName, tool, { dot: true })),
  );
}

/**
 * Who decides when nobody in the chain may: the human that the chain's first
 * participant stands in for (`actsFor`, an MCP client's user), if that human
 * may approve it. Without a stand-in, nobody.
 */
export function standInApprover(
  origin: Participant | undefined,
  resolve: (id: string) => Participant | undefined,
  requesterId: string,
  toolName: string,
): Participant | undefined {
  if (origin?.type !== 'user' || !origin.actsFor) return undefined;
  const human = resolve(origin.actsFor);
  if (!human || human.id === requesterId || human.status !== 'active' || !canApprove(human, requesterId, toolName)) return undefined;
  return human;
}

/**
 * How far a participant's decisions reach. `any`: a human of the roster, who
 * stands in for nobody, may step in on every request. `own-chain`: a user that
 * stands in for someone (`actsFor`: an MCP client) or comes from config rather
 * than the roster (`collective.addCaller`) decides only requests of the turns
 * it started (its id among the request's frames) or addressed to it; the
 * human's own requests (`legion run`, the REPL, the browser) stay the human's,
 * whatever its `approvalAuthority` covers. `addressed`: an agent decides only
 * what was addressed to it.
 */
export type DecisionReach = 'any' | 'own-chain' | 'addressed';

export function decisionReach(decider: Participant, isCaller: (id: string) => boolean): DecisionReach {
  if (decider.type !== 'user') return 'addressed';
  return decider.actsFor !== undefined || isCaller(decider.id) ? 'own-chain' : 'any';
}

/** Whether a decider of this reach may decide (or see) a request, or answer a question: by who is asked and who waits on the turn. */
export function reachesRequest(
  reach: DecisionReach,
  deciderId: string,
  request: { approver: string; frames?: readonly { participantId: string }[] | undefined },
): boolean {
  if (reach === 'any' || request.approver === deciderId) return true;
  return reach === 'own-chain' && (request.frames ?? []).some((frame) => frame.participantId === deciderId);
}
