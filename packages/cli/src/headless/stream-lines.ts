import type { LegionEvent } from '@legion-collective/core';
import type { StreamLine } from './stream-line.js';
import { STREAM_LINE_NAMES as NAMES } from './stream-line-names.js';

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
 * not report (`STREAM_LINE_NAMES` says which, and why). Each line's `type` is
 * the name that mapping declares for its event.
 */
export function streamLineOf(event: LegionEvent): StreamLine | undefined {
  switch (event.type) {
    case 'turn:start':
      return {
        type: NAMES['turn:start'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        chain: [...event.chain],
      };
    case 'text:delta':
      return {
        type: NAMES['text:delta'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        text: event.text,
      };
    case 'message:sent':
      return {
        type: NAMES['message:sent'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        author: event.author,
        message: event.message,
      };
    case 'tool:call': {
      const base = { sessionId: event.sessionId, conversationId: event.conversationId, toolUseId: event.toolUse.id };
      const delegation = event.toolUse.name === COMMUNICATE ? delegationOf(event.toolUse.input) : undefined;
      if (delegation) return { type: NAMES['tool:call'].communicate, ...base, from: event.participantId, ...delegation };
      return {
        type: NAMES['tool:call'].line,
        ...base,
        participantId: event.participantId,
        tool: event.toolUse.name,
        input: event.toolUse.input,
      };
    }
    case 'tool:result': {
      const base = {
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        toolUseId: event.toolUse.id,
        isError: event.result.isError === true,
        durationMs: event.durationMs,
      };
      const delegation = event.toolUse.name === COMMUNICATE ? delegationOf(event.toolUse.input) : undefined;
      if (delegation)
        return {
          type: NAMES['tool:result'].communicate,
          ...base,
          from: event.participantId,
          to: delegation.to,
          result: event.result.content,
        };
      return {
        type: NAMES['tool:result'].line,
        ...base,
        participantId: event.participantId,
        tool: event.toolUse.name,
        content: event.result.content,
        // What a file tool's call changed, as the conversation's log keeps it: a script sees the diff too.
        ...(event.result.fileChange === undefined ? {} : { fileChange: event.result.fileChange }),
      };
    }
    case 'approval:requested':
      return {
        type: NAMES['approval:requested'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        requestId: event.requestId,
        requester: event.requester,
        approver: event.approver,
        tool: event.tool,
        input: event.input,
        reason: event.reason,
        ...(event.sandbox !== undefined ? { sandbox: event.sandbox } : {}),
        chain: [...event.chain],
      };
    case 'approval:decided':
      return {
        type: NAMES['approval:decided'].line,
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
        ...(event.cancelled ? { cancelled: true as const } : {}),
      };
    case 'delegation:queued':
      return {
        type: NAMES['delegation:queued'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        from: event.participantId,
        to: event.to,
        toolUseId: event.toolUseId,
        position: event.position,
        running: event.running,
        limit: event.limit,
      };
    case 'worktree:ready':
      return {
        type: NAMES['worktree:ready'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        callerId: event.callerId,
        worktreeId: event.worktreeId,
        ...(event.toolUseId !== undefined ? { toolUseId: event.toolUseId } : {}),
        files: [...event.files],
      };
    case 'usage:report':
      return {
        type: NAMES['usage:report'].line,
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
        type: NAMES['provider:retry'].line,
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
    case 'window:guessed':
      return {
        type: NAMES['window:guessed'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        provider: event.provider,
        model: event.model,
        window: event.window,
        text: event.text,
      };
    case 'context:compacted':
      return {
        type: NAMES['context:compacted'].line,
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
        type: NAMES['turn:end'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        outcome: event.outcome,
        status: event.status,
        ...(event.reply !== undefined ? { reply: event.reply } : {}),
        ...(event.code !== undefined ? { code: event.code } : {}),
        ...(event.error !== undefined ? { error: event.error } : {}),
        durationMs: event.durationMs,
      };
    case 'claim:conflict':
      return {
        type: NAMES['claim:conflict'].line,
        sessionId: event.sessionId,
        conversationId: event.conversationId,
        participantId: event.participantId,
        tool: event.tool,
        path: event.path,
        holder: { ...event.holder },
      };
    case 'storage:warning':
      return {
        type: NAMES['storage:warning'].line,
        ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
        message: `${event.path}: ${event.problem}`,
      };
    case 'error:raised':
      return {
        type: NAMES['error:raised'].line,
        ...(event.sessionId !== undefined ? { sessionId: event.sessionId } : {}),
        scope: event.scope,
        message: event.message,
        ...(event.code !== undefined ? { code: event.code } : {}),
      };
    default:
      return undefined;
  }
}
