import type { AgentContext } from '@agentclientprotocol/sdk';
import { answerOfChoice, SurfaceDeclinedError, type ApprovalAnswer, type ApprovalView, type UserSurface } from '@legion-collective/core';
import type { AcpSession } from './acp-session.js';
import { choiceOfOutcome, permissionOptions } from './permission-options.js';
import { inputContent } from './tool-call-view.js';

export const ACP_MEDIUM = 'acp';

/** Where an approval request was made: the events say it before any surface is asked; the request's view does not. */
export interface RequestOrigin {
  sessionId: string;
  toolUseId: string;
}

/**
 * The editor as one user surface of this process. An approval addressed to the editor's user,
 * made in the tree of a prompt it is running (a delegate's included), becomes a
 * `session/request_permission` on the tool call, with core's four choices and exactly what would
 * run (the diff of a file change, the command line). Anything else is declined, so the human's
 * other surfaces (`legion approve`, the REPL, the browser) decide it, durably, as before.
 *
 * Questions are declined too: the turn pauses on the question, the prompt ends saying what was
 * asked, and the next prompt answers it (see `AcpSession.prompt`). ACP's permission request has
 * fixed options only, and Legion's questions are free text.
 */
export function acpSurface(
  client: AgentContext,
  you: string,
  sessionOf: (requestId: string) => { session: AcpSession; origin: RequestOrigin } | undefined,
): UserSurface {
  return {
    medium: ACP_MEDIUM,
    ask: async () => {
      throw new SurfaceDeclinedError(ACP_MEDIUM, 'the editor answers questions with its next prompt');
    },
    approve: async (requests: ApprovalView[], { signal, approver }) => {
      if (approver.id !== you) throw new SurfaceDeclinedError(ACP_MEDIUM, `${approver.id} decides these approvals, not the editor's user`);
      const answers: ApprovalAnswer[] = [];
      for (const request of requests) {
        const found = sessionOf(request.id);
        const promptSignal = found?.session.promptSignal;
        if (!found || !promptSignal) throw new SurfaceDeclinedError(ACP_MEDIUM, 'no prompt of the editor waits on this approval');
        const { session, origin } = found;
        // The change as the editor's buffer would take it (the tool writes there), read before the card is shown.
        const change = await session.approvalChange(request.requester, request.tool, request.input, request.worktree, signal);
        const view = session.announceApproval(origin.toolUseId, request.requester, request.tool, request.input, change);
        await session.flushed();
        const response = await client.request(
          'session/request_permission',
          {
            sessionId: session.id,
            toolCall: {
              toolCallId: origin.toolUseId,
              status: 'pending',
              // Who asks and what (the delegate's name, the file, the command), and the policy's reason for asking.
              title: `${view.title} (${request.reason})`,
              content: change ?? inputContent(request.tool, request.input),
              rawInput: request.input,
            },
            options: permissionOptions(),
            _meta: { legion: { approvalId: request.id, requester: request.requester, approver: request.approver } },
          },
          // A turn cancelled (or answered elsewhere) withdraws the request: `$/cancel_request`, and no later answer counts.
          { cancellationSignal: AbortSignal.any([signal, promptSignal]), stopWaitingOnCancel: true },
        );
        const choice = choiceOfOutcome(response.outcome);
        // Dismissed in the editor: the request stays undecided, for the turn's pause or another surface.
        if (choice === undefined) throw new Error(`approval ${request.id} was left open in the editor`);
        answers.push(answerOfChoice({ id: request.id, choice, ...(choice === 'reject' ? { reason: 'rejected in the editor' } : {}) }));
      }
      return answers;
    },
  };
}
