import { approvalChoice, errorMessage, SessionDriver, type ApprovalChoiceAnswer, type TurnResult } from '@legion-collective/core';
import { decisionReach, reachesRequest } from '@legion-collective/core/internal';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { CallChannel } from './active-calls.js';
import { approvalFacts, sessionFor, turnToolResult } from './ask-agent.js';
import type { ServeContext } from './serve-context.js';
import { toolError, toolResult } from './tool-results.js';

/**
 * What an MCP caller may answer, in core's vocabulary: it decides only for its own chains, so it
 * approves once or rejects ("for this session" and "always" are the human's to give).
 */
const MCP_DECISIONS = `"approve": ${approvalChoice('once').label.toLowerCase()} (${approvalChoice('once').meaning}); "reject": ${approvalChoice('reject').meaning}`;

/** A decision of the MCP tools as a choice of core's vocabulary. */
export function choiceOfDecision(decision: 'approve' | 'reject'): 'once' | 'reject' {
  return decision === 'approve' ? 'once' : 'reject';
}

const SessionField = z.string().min(1).optional().describe('The Legion session (default: the latest); see list_sessions');

export const ListApprovalsInputSchema = z.object({ session: SessionField }).strict();

export const AnswerApprovalInputSchema = z
  .object({
    session: SessionField,
    approvals: z
      .array(
        z
          .object({
            id: z
              .string({ error: 'id is required: the approval request id (apr_…) from list_approvals or a paused result' })
              .regex(/^apr_\w+$/, 'id must be an approval request id such as "apr_26b96e4584b2" (see list_approvals)'),
            decision: z.enum(['approve', 'reject'], { error: 'decision must be "approve" or "reject"' }).describe(MCP_DECISIONS),
            reason: z.string().min(1).optional().describe('Why, told to the agent (useful with reject)'),
          })
          .strict(),
        { error: 'approvals is required: a list of {"id": "apr_…", "decision": "approve" | "reject"}' },
      )
      .min(1, 'approvals is empty: give at least one {"id": "apr_…", "decision": "approve" | "reject"}'),
  })
  .strict();

/**
 * `list_approvals`: the pending approval requests of the session's turns the MCP caller started
 * (its `ask_<agent>` calls), and which of them it may decide. The human's own requests are not
 * listed: what they wait on (a command, a file's content) is not the client's to read.
 */
export async function listApprovals(context: ServeContext, input: z.infer<typeof ListApprovalsInputSchema>): Promise<CallToolResult> {
  const opened = await sessionFor(context.legion, input.session);
  if ('refused' in opened) return opened.refused;
  const { session } = opened;
  const { caller, legion } = context;
  const reach = decisionReach(caller, (id) => legion.collective.isCaller(id));
  const pending = (await session.approvals.state())
    .pending()
    .filter((record) => reachesRequest(reach, caller.id, record))
    .map((record) => ({ ...record, youDecide: record.approver === caller.id }));
  const approvals = pending.map((record) => ({
    ...approvalFacts({ ...record, status: 'pending' }),
    at: record.at,
    youDecide: record.youDecide,
  }));
  const text =
    approvals.length === 0
      ? `No approval of a turn you started waits in session ${session.id}.`
      : [
          `${approvals.length} approval${approvals.length === 1 ? '' : 's'} wait in session ${session.id}:`,
          ...pending.map(
            (record) =>
              `- ${record.id}: ${record.requester} wants ${record.tool} ${JSON.stringify(record.input)} (${record.reason}); ${record.youDecide ? 'you decide (answer_approval)' : `${record.approver} decides (legion approve, the REPL or the web UI)`}`,
          ),
        ].join('\n');
  return toolResult(text, { sessionId: session.id, approvals });
}

/** `answer_approval`: decides requests as the MCP caller (with its authority only) and resumes the turns they held. */
export async function answerApproval(
  context: ServeContext,
  input: z.infer<typeof AnswerApprovalInputSchema>,
  channel: CallChannel,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const opened = await sessionFor(context.legion, input.session);
  if ('refused' in opened) return opened.refused;
  const { session } = opened;
  const state = await session.approvals.state();
  // The resumed turns report to this call: progress, usage, and elicitation for what they ask next.
  const conversations = new Set<string>();
  const reach = decisionReach(context.caller, (id) => context.legion.collective.isCaller(id));
  for (const answer of input.approvals) {
    const request = state.request(answer.id);
    // Not its own: core refuses it below, and this call must not become the owner of the human's conversation meanwhile.
    if (!request || !reachesRequest(reach, context.caller.id, request)) continue;
    conversations.add(request.conversationId);
    for (const frame of request.frames) conversations.add(frame.conversationId);
  }
  const { call, end } = context.calls.start(session.id, [...conversations], channel);
  try {
    const answers: ApprovalChoiceAnswer[] = input.approvals.map((answer) => ({
      id: answer.id,
      choice: choiceOfDecision(answer.decision),
      ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
    }));
    const driver = await SessionDriver.open(context.legion, { session, as: context.caller.id, medium: 'mcp' });
    const outcome = await driver.answer(answers, { signal: AbortSignal.any([signal, context.calls.stopping]) }).done;
    if (outcome.status === 'error') {
      return toolError(
        `${outcome.error} Approvals ${context.caller.id} may not decide are for the human: \`legion approve --session ${session.id} <id>\`, the REPL or the web UI.`,
        { sessionId: session.id },
      );
    }
    const main = mainResult(outcome.resumed, context.caller.id);
    if (main) return turnToolResult(main, { session, caller: context.caller, call });
    const continuing = outcome.continuing?.length
      ? ` The turns in ${outcome.continuing.join(', ')} run in another process and go on there.`
      : '';
    return toolResult(`Recorded.${continuing}`, {
      status: 'answered',
      sessionId: session.id,
      resumed: outcome.resumed.map(brief),
      continuing: outcome.continuing ?? [],
    });
  } catch (error) {
    return toolError(errorMessage(error), { sessionId: session.id });
  } finally {
    end();
  }
}

/** The resumed turn the caller waits on (its own conversation), else the last one. */
function mainResult(resumed: readonly TurnResult[], callerId: string): TurnResult | undefined {
  return resumed.find((result) => result.conversationId.startsWith(`${callerId}__`)) ?? resumed.at(-1);
}

function brief(result: TurnResult): Record<string, unknown> {
  return {
    conversationId: result.conversationId,
    status: result.status,
    ...(result.status === 'success'
      ? { reply: result.reply }
      : result.status === 'error'
        ? { error: result.error }
        : { approvals: result.requests.map((request) => request.id) }),
  };
}
