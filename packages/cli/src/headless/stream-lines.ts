import type { LegionEvent } from '@legion-collective/core';
import type { StreamLine } from './stream-line.js';

const COMMUNICATE = 'communicate';

/** `communicate`'s input, as far as a delegation line needs it; anything else stays a plain tool call. */
function delegationOf(input: unknown): { to: string; message: string; conversation?: string } | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const { to, message, conversation } = input as Record<string, unknown>;
  if (typeof to !== 'string' || typeof message !== 'string') return undefined;
  return { to, message, ...(typeof conversation === 'string' ? { conversation } : {}) };
}

/**
 * The stream-json line for a Legion event, or undefined for events a run does
 * not report (tool registrations, session bookkeeping, questions: those are
 * told by the question tracker, which knows the answer).
 */
export function streamLineOf(event: LegionEvent): StreamLine | undefined {
  switch (event.type) {
    case 'turn:start':
      return { type: 'turn:start', sessionId: event.sessionId, conversationId: event.conversationId, participantId: event.participantId, chain: [...event.chain] };
    case 'text:delta':
      return { type: 'text:delta', sessionId: event.sessionId, conversationId: event.conversationId, participantId: event.participantId, text: event.text };
    case 'message:sent':
      return { type: 'message', sessionId: event.sessionId, conversationId: event.conversationId, author: event.author, message: event.message };
    case 'tool:call': {
      const base = { sessionId: event.sessionId, conversationId: event.conversationId, toolUseId: event.toolUse.id };
      const delegation = event.toolUse.name === COMMUNICATE ? delegationOf(event.toolUse.input) : undefined;
      if (delegation) return { type: 'delegation:start', ...base, from: event.participantId, ...delegation };
      return { type: 'tool:call', ...base, participantId: event.participantId, tool: event.toolUse.name, input: event.toolUse.input };
    }
    case 'tool:result': {
      const base = { sessionId: event.sessionId, conversationId: event.conversationId, toolUseId: event.toolUse.id, isError: event.result.isError === true, durationMs: event.durationMs };
      const delegation = event.toolUse.name === COMMUNICATE ? delegationOf(event.toolUse.input) : undefined;
      if (delegation) return { type: 'delegation:end', ...base, from: event.participantId, to: delegation.to, result: event.result.content };
      return { type: 'tool:result', ...base, participantId: event.participantId, tool: event.toolUse.name, content: event.result.content };
    }
    case 'approval:requested':
      return {
        type: 'approval:requested',
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        requestId: event.requestId,
        requester: event.requester,
        approver: event.approver,
        tool: event.tool,
        input: event.input,
        reason: event.reason,
        chain: [...event.chain],
      };
    case 'approval:decided':
      return {
        type: 'approval:decided',
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        requestId: event.requestId,
        requester: event.requester,
        approver: event.approver,
        tool: event.tool,
        decision: event.decision,
        decidedBy: event.decidedBy,
        ...(event.reason !== undefined ? { reason: event.reason } : {}),
        ...(event.always !== undefined ? { always: event.always } : {}),
        ...(event.medium !== undefined ? { medium: event.medium } : {}),
      };
    case 'delegation:queued':
      return {
        type: 'delegation:queued',
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        from: event.participantId,
        to: event.to,
        toolUseId: event.toolUseId,
        position: event.position,
        running: event.running,
        limit: event.limit,
      };
    case 'usage:report':
      return {
        type: 'usage',
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        chain: [...event.chain],
        provider: event.provider,
        model: event.model,
        ...event.usage,
        costUsd: event.costUsd,
      };
    case 'provider:retry':
      return {
        type: 'retry',
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        provider: event.provider,
        model: event.model,
        attempt: event.attempt,
        of: event.of,
        waitMs: event.waitMs,
        reason: event.reason,
      };
    case 'context:compacted':
      return {
        type: 'context:compacted',
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        reason: event.reason,
        messageIds: { ...event.messageIds },
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        summarizer: { ...event.summarizer },
      };
    case 'turn:end':
      return {
        type: 'turn:end',
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        status: event.status,
        ...(event.reply !== undefined ? { reply: event.reply } : {}),
        ...(event.error !== undefined ? { error: event.error } : {}),
        durationMs: event.durationMs,
      };
    case 'storage:warning':
      return { type: 'warning', ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}), message: `${event.path}: ${event.problem}` };
    case 'error:raised':
      return {
        type: 'error',
        ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
        scope: event.scope,
        message: event.message,
        ...(event.code !== undefined ? { code: event.code } : {}),
      };
    default:
      return undefined;
  }
}
