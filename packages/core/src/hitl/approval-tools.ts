import { z } from 'zod';
import type { ApprovalView } from '../store/index.js';
import { describeApprovalRequired } from './approval-required.js';
import type { TurnResult } from '../session/index.js';
import { defineTool, type Tool, APPROVAL_TOOL_FAMILY } from '../tools/index.js';
import { reachesRequest } from '../team/index.js';

const decisionSchema = () =>
  z.object({
    id: z.string().min(1).describe('The approval request id (apr_…).'),
    decision: z.enum(['approve', 'reject']),
    reason: z.string().optional().describe('Why; a rejection reason is shown to the requester so it can adapt.'),
    always: z.boolean().optional().describe('Approve this tool for this requester for the rest of the session.'),
  });

/**
 * Answers approval requests that a delegate's `communicate` returned. The
 * paused turn resumes, and this tool returns the delegate's reply (or the
 * next approval request).
 */
export function createApprovalResponseTool(): Tool {
  return defineTool({
    name: 'approval_response',
    family: APPROVAL_TOOL_FAMILY,
    description:
      'Approve or reject tool calls that a delegate is waiting on (the ids come from an approval_required result of communicate). ' +
      "Give a reason when you reject. Returns the delegate's reply once its turn resumes, or the next approval request.",
    input: () => z.object({ decisions: z.array(decisionSchema()).min(1) }),
    effect: 'communicate',
    timeoutMs: 0,
    async execute(input, context) {
      const outcome = await context.session.answerApprovals(input.decisions, context.callerId);
      if (outcome.status === 'error') return { status: 'error', error: outcome.error };
      return { status: 'success', data: outcome.resumed.map((result) => describeResumed(result, context.callerId)).join('\n\n') };
    },
  });
}

function describeResumed(result: TurnResult, callerId: string): string {
  if (result.status === 'success') return `${result.conversationId} replied: ${result.reply}`;
  if (result.status === 'error') return `${result.conversationId} failed: ${result.error}`;
  const mine = result.requests.filter((request) => request.approver === callerId);
  const others = result.requests.filter((request) => request.approver !== callerId);
  const parts: string[] = [];
  if (mine.length > 0) parts.push(describeApprovalRequired(mine));
  if (others.length > 0)
    parts.push(
      `Still waiting on approvals that others must give: ${others.map((request) => `${request.id} (${request.approver})`).join(', ')}.`,
    );
  return parts.join('\n');
}

/**
 * Lists the caller's approval requests and decisions: those it made, those
 * addressed to it, and those of the chains it waits in (who asked, who
 * decided, what, when). Another chain's requests (the human's own commands,
 * another client's) are not the caller's to read.
 */
export function createListApprovalsTool(): Tool {
  return defineTool({
    name: 'list_approvals',
    family: APPROVAL_TOOL_FAMILY,
    description:
      'List the approval requests of this session that concern you (yours, addressed to you, or of delegates you wait on) with their status (pending, approved, rejected), requester, approver and decision.',
    input: () => z.object({ status: z.enum(['pending', 'approved', 'rejected', 'all']).default('all') }),
    effect: 'read',
    concurrent: true,
    async execute(input, context) {
      const state = await context.session.approvals.state();
      const views: ApprovalView[] = state.list(input.status === 'all' ? {} : { status: input.status }).filter((view) => {
        const request = state.request(view.id)!;
        return request.requester === context.callerId || reachesRequest('own-chain', context.callerId, request);
      });
      return { status: 'success', data: views.length === 0 ? 'No approval requests.' : views };
    },
  });
}
