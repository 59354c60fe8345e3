import {
  answerOfChoice,
  approvalChoice,
  sandboxLine,
  SurfaceDeclinedError,
  type ApprovalAnswer,
  type ApprovalView,
  type Participant,
  type UserQuestion,
  type UserSurface,
} from '@legion-collective/core';
import { choiceOfDecision } from './approval-tools.js';
import type { ActiveCalls } from './active-calls.js';

/** How much of a tool call's input an approval form shows. */
const INPUT_PREVIEW_CHARS = 2_000;

/**
 * The MCP clients as one user surface of this process: a question or approval
 * goes to the client whose call the conversation works for, through MCP
 * elicitation. It answers only what that client may answer — questions to its
 * caller or the human it stands in for, approvals addressed to its caller —
 * and only when the client supports elicitation; for anything else it fails at
 * once, so the human's own surfaces (the REPL, the browser, `legion approve`)
 * answer it, durably, as before.
 */
export function mcpSurface(calls: ActiveCalls, caller: Participant, options: { questionWaitMs: number }): UserSurface {
  return {
    medium: 'mcp',
    ask: async (question: UserQuestion, { signal }) => {
      // Not this client's to answer: declined, so the question pauses for the human's own surfaces (legion answer).
      if (question.user.id !== caller.id && (caller.type !== 'user' || question.user.id !== caller.actsFor)) {
        throw new SurfaceDeclinedError('mcp', `the question is for ${question.user.id}, whom no MCP client answers for`);
      }
      const call = calls.owner(question.conversation.sessionId, question.conversation.conversationId);
      if (!call) throw new SurfaceDeclinedError('mcp', 'no MCP call waits on this conversation');
      if (!call.elicit) {
        // The client cannot ask its human: the question stays open a while for yours (it is in the
        // session's question log, so the REPL, the web UI and `legion answer` see it and answer it).
        call.progress(
          `${question.from} asks ${question.user.id}: "${question.text}". Answer it with: legion answer ${question.id ?? '<id>'} "…" (or in the REPL or the web UI)`,
        );
        return waitForAnotherSurface(options.questionWaitMs, signal);
      }
      const answer = await call.elicit(
        {
          message: `${question.from} asks: ${question.text}`,
          requestedSchema: {
            type: 'object',
            properties: { answer: { type: 'string', title: 'Your answer', description: `Your reply to ${question.from}` } },
            required: ['answer'],
          },
        },
        signal,
      );
      const text = answer.action === 'accept' ? answer.content['answer'] : undefined;
      if (typeof text !== 'string' || text.length === 0) throw new Error(`the MCP client's user did not answer (${answer.action})`);
      return text;
    },
    approve: async (requests: ApprovalView[], { signal, approver }) => {
      if (approver.id !== caller.id) throw new Error(`${approver.id} decides these approvals, not the MCP client`);
      const answers: ApprovalAnswer[] = [];
      for (const request of requests) {
        const call = calls.ownerOfRequest(request.id);
        if (!call?.elicit) throw new Error('no MCP client that supports elicitation waits on this approval');
        const answer = await call.elicit(
          {
            message: `${request.requester} wants to run ${request.tool} (${request.reason}${request.sandbox ? `; ${sandboxLine(request.sandbox)}` : ''}); approval ${request.id}:\n${preview(request.input)}`,
            requestedSchema: {
              type: 'object',
              properties: {
                // Core's words: an MCP client's human approves once or rejects (its caller decides for its own chains only).
                decision: {
                  type: 'string',
                  title: 'Decision',
                  enum: ['approve', 'reject'],
                  enumNames: [approvalChoice('once').label, approvalChoice('reject').label],
                  description: `${approvalChoice('once').label} or ${approvalChoice('reject').label.toLowerCase()} ${request.requester}'s ${request.tool}`,
                },
                reason: { type: 'string', title: 'Reason (optional)', description: 'Told to the agent' },
              },
              required: ['decision'],
            },
          },
          signal,
        );
        // Dismissed: the request stays pending, to be answered later (answer_approval, legion approve).
        if (answer.action === 'cancel') throw new Error(`approval ${request.id} was left open in the MCP client`);
        if (answer.action !== 'accept') {
          answers.push(answerOfChoice({ id: request.id, choice: 'reject', reason: 'declined in the MCP client' }));
          continue;
        }
        const { decision, reason } = answer.content;
        answers.push(
          answerOfChoice({
            id: request.id,
            choice: choiceOfDecision(decision === 'approve' ? 'approve' : 'reject'),
            ...(typeof reason === 'string' && reason.length > 0 ? { reason } : {}),
          }),
        );
      }
      return answers;
    },
  };
}

function preview(input: unknown): string {
  const text = JSON.stringify(input, null, 2) ?? String(input);
  return text.length > INPUT_PREVIEW_CHARS ? `${text.slice(0, INPUT_PREVIEW_CHARS)}… (${text.length} characters)` : text;
}

/** Never answers itself: rejects when another surface or process answered (the offer aborts it) or when the wait is over. */
function waitForAnotherSurface(waitMs: number, signal: AbortSignal): Promise<string> {
  return new Promise((_, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      reject(
        new Error(
          `nobody answered within ${Math.round(waitMs / 1000)} s (mcpServe.questionWaitSeconds), and the MCP client cannot ask (no elicitation)`,
        ),
      );
    }, waitMs);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
