import {
  chooseSession,
  errorMessage,
  explainPause,
  explainQuestionPause,
  SessionDriver,
  type ApprovalView,
  type Legion,
  type Participant,
  type QuestionView,
  type Session,
  type TurnResult,
  type UsageTotals,
} from '@legion-collective/core';
import { conversationId } from '@legion-collective/core/internal';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { usageOf, type ActiveCall, type CallChannel } from './active-calls.js';
import type { ServeContext } from './serve-context.js';
import { toolError, toolResult } from './tool-results.js';

export const AskInputSchema = z
  .object({
    message: z
      .string({ error: 'message is required, as text: the request for the agent' })
      .min(1, 'message is empty: say what you want the agent to do')
      .describe('What you want the agent to do, as you would tell a colleague'),
    conversation: z
      .string({ error: 'conversation must be a name (letters, digits, ".", "-")' })
      .min(1)
      .max(64)
      .regex(
        /^[A-Za-z0-9](?:[A-Za-z0-9.-]|_(?!_))*$/,
        'conversation must be a name of letters, digits, ".", "-" and single "_", such as "refactor-auth"',
      )
      .optional()
      .describe('A named conversation with this agent, to keep parallel threads apart (default: your main conversation with it)'),
    session: z
      .string()
      .min(1)
      .optional()
      .describe('The Legion session to work in (default: the latest one, as `legion run` does); see list_sessions'),
  })
  .strict();
export type AskInput = z.infer<typeof AskInputSchema>;

/** The session a call names, or the latest (created when there is none); a tool error when the named one does not exist. */
export async function sessionFor(legion: Legion, id: string | undefined): Promise<{ session: Session } | { refused: CallToolResult }> {
  if (id === undefined) return { session: await chooseSession(legion.sessions) };
  try {
    return { session: await chooseSession(legion.sessions, { session: id }) };
  } catch (error) {
    return { refused: toolError(`${errorMessage(error)} Call list_sessions for the session ids, or leave "session" out for the latest.`) };
  }
}

/** `ask_<agent>`: the caller sends the message; the agent's reply (after its whole delegation tree) is the result. */
export async function askAgent(
  context: ServeContext,
  agent: Participant,
  input: AskInput,
  channel: CallChannel,
  signal: AbortSignal,
): Promise<CallToolResult> {
  const opened = await sessionFor(context.legion, input.session);
  if ('refused' in opened) return opened.refused;
  const { session } = opened;
  const { caller } = context;
  let id: string;
  try {
    id = conversationId({ initiator: caller.id, responder: agent.id, name: input.conversation });
  } catch (error) {
    return toolError(errorMessage(error));
  }
  const { call, end } = context.calls.start(session.id, [id], channel);
  channel.progress(`${caller.id} asks ${agent.id}`);
  try {
    // The session driver every surface sends through, as the MCP caller; the call's usage is counted by ActiveCalls, which knows whose turn a shared conversation runs.
    const driver = await SessionDriver.open(context.legion, { session, as: caller.id, medium: 'mcp' });
    const result = await driver.send(input.message, {
      to: agent.id,
      conversation: input.conversation,
      signal: AbortSignal.any([signal, context.calls.stopping]),
      ifBusy: 'wait',
    }).done;
    return turnToolResult(result, { session, caller, call });
  } catch (error) {
    return toolError(errorMessage(error), { sessionId: session.id, conversationId: id });
  } finally {
    end();
  }
}

/** A turn's outcome as the MCP result: the reply, a pause on approvals with how to answer them, or the error. */
export function turnToolResult(result: TurnResult, context: { session: Session; caller: Participant; call: ActiveCall }): CallToolResult {
  const usage = usageOf(context.call);
  const base = { sessionId: context.session.id, conversationId: result.conversationId, usage };
  if (result.status === 'success') return toolResult(result.reply, { status: 'success', reply: result.reply, ...base });
  if (result.status === 'error') return toolError(`${result.error}${usageLine(usage)}`, { code: result.code, ...base });
  const questions = result.questions ?? [];
  const text = [
    ...(result.requests.length > 0 ? [pausedText(result.requests, context.caller, context.session.id)] : []),
    ...(questions.length > 0 ? [questionsText(questions, context.session.id)] : []),
  ].join('\n');
  return toolResult(text, {
    status: 'paused',
    approvals: result.requests.map(approvalFacts),
    ...(questions.length > 0
      ? {
          questions: questions.map((question) => ({
            id: question.id,
            from: question.from,
            user: question.user,
            text: question.text,
            conversationId: question.conversationId,
          })),
        }
      : {}),
    ...base,
  });
}

/** Core's explanation of a pause on questions to the human, which only the human's own surfaces answer. */
function questionsText(questions: readonly QuestionView[], sessionId: string): string {
  const pause = explainQuestionPause(questions, sessionId);
  return [
    `${pause.headline}.`,
    ...pause.lines.map((line) => `- ${line}`),
    `The user answers in the workspace: \`${pause.answerCommand}\`, the REPL (\`legion\`) or the web UI (\`legion serve\`). The turn goes on once answered; call read_conversation (or ask again later) for the reply.`,
  ].join('\n');
}

export function approvalFacts(request: ApprovalView): Record<string, unknown> {
  return {
    id: request.id,
    requester: request.requester,
    approver: request.approver,
    tool: request.tool,
    input: request.input,
    reason: request.reason,
    conversationId: request.conversationId,
    status: request.status,
  };
}

/** Core's explanation of the pause, with how this caller answers what it may decide (answer_approval) and where the rest is decided. */
function pausedText(requests: readonly ApprovalView[], caller: Participant, sessionId: string): string {
  const pause = explainPause(requests, sessionId);
  const lines = requests.map((request, index) => `- ${pause.lines[index]}. Input: ${JSON.stringify(request.input)}`);
  const yours = pause.byApprover.find((group) => group.approver === caller.id)?.ids ?? [];
  const theirs = pause.byApprover.filter((group) => group.approver !== caller.id);
  const how: string[] = [];
  if (yours.length > 0)
    how.push(
      `You may decide ${yours.join(', ')}: call answer_approval with {"session": "${sessionId}", "approvals": [{"id": "${yours[0]}", "decision": "approve"}]} (or "reject", with a "reason").`,
    );
  if (theirs.length > 0) {
    const ids = theirs.flatMap((group) => group.ids);
    const rest = explainPause(
      requests.filter((request) => ids.includes(request.id)),
      sessionId,
    );
    how.push(
      `${theirs.map((group) => group.approver).join(', ')} must decide ${ids.join(', ')}: in the workspace, \`${rest.approveCommand}\` (or \`${rest.rejectCommand}\`), the REPL (\`legion\`) or the web UI (\`legion serve\`).`,
    );
  }
  how.push(
    'The turn goes on once they are decided; call read_conversation (or ask again later) for the reply. list_approvals shows what still waits.',
  );
  return [`${pause.headline}.`, ...lines, ...how].join('\n');
}

function usageLine(usage: UsageTotals): string {
  return usage.calls > 0 ? ` (model calls so far: ${usage.calls}, ${usage.inputTokens + usage.outputTokens} tokens)` : '';
}
