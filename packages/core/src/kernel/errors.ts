import { groupedNumber } from './grouped-number.js';
import type { LegionErrorCode } from './error-codes.js';

/**
 * Legion's error hierarchy. Caller misuse and unrecoverable conditions throw a
 * `LegionError` subclass; every one carries a stable string `code` (for scripts
 * and UIs, one of the catalogue in error-codes.ts) and the context fields that explain it. Failures a model can act on
 * are not thrown: tools and `communicate` turn them into error results.
 */
export class LegionError extends Error {
  readonly code: LegionErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: LegionErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

export class ConfigError extends LegionError {
  readonly file: string;
  readonly field: string;
  readonly fix: string;

  constructor(options: { file: string; field: string; problem: string; fix: string; cause?: unknown }) {
    const where = options.field ? `${options.file} (field "${options.field}")` : options.file;
    super(
      'config_invalid',
      `${where}: ${options.problem}. Fix: ${options.fix}`,
      {
        file: options.file,
        field: options.field,
      },
      { cause: options.cause },
    );
    this.file = options.file;
    this.field = options.field;
    this.fix = options.fix;
  }
}

export class ParticipantNotFoundError extends LegionError {
  constructor(
    readonly participantId: string,
    known: readonly string[],
  ) {
    super('participant_not_found', `No participant "${participantId}". Known participants: ${known.join(', ') || '(none)'}.`, {
      participantId,
      known,
    });
  }
}

export class SessionNotFoundError extends LegionError {
  constructor(readonly sessionId: string) {
    super('session_not_found', `No session "${sessionId}". List sessions with "legion sessions".`, { sessionId });
  }
}

export class ConversationBusyError extends LegionError {
  constructor(
    readonly conversationId: string,
    holder: string,
  ) {
    super(
      'conversation_busy',
      `Conversation "${conversationId}" is busy with another message (${holder}). ` +
        'Wait for it to finish, or use a different conversation name to work in parallel.',
      { conversationId, holder },
    );
  }
}

export class MaxDepthError extends LegionError {
  constructor(
    readonly depth: number,
    readonly maxDepth: number,
    readonly chain: readonly string[],
  ) {
    super(
      'max_depth',
      `Delegation depth limit reached (${depth} > ${maxDepth}) along ${chain.join(' → ')}. ` +
        'Do the work yourself or report back instead of delegating further.',
      { depth, maxDepth, chain },
    );
  }
}

export class MaxIterationsError extends LegionError {
  constructor(
    readonly participantId: string,
    readonly maxIterations: number,
  ) {
    super('max_iterations', `${participantId} reached its limit of ${maxIterations} model calls in one turn without a final reply.`, {
      participantId,
      maxIterations,
    });
  }
}

/**
 * The message a turn works for has started as many model calls or delegations as
 * `limits.maxModelCallsPerMessage` / `limits.maxDelegationsPerMessage` allow (its whole delegation tree).
 */
export class MessageWorkLimitError extends LegionError {
  constructor(
    readonly participantId: string,
    readonly limit: { field: 'maxModelCallsPerMessage' | 'maxDelegationsPerMessage'; value: number },
  ) {
    const what = `${limit.field === 'maxModelCallsPerMessage' ? 'model call' : 'delegation'}${limit.value === 1 ? '' : 's'}`;
    const stopped =
      limit.field === 'maxModelCallsPerMessage'
        ? `${participantId}'s model was not called again`
        : `${participantId}'s message was not sent`;
    super(
      'message_work_limit',
      `The message being answered has started ${limit.value} ${what} across its whole delegation tree, its limit (limits.${limit.field}); ${stopped}. ` +
        `Raise limits.${limit.field} in .legion/config.json (legion config set limits.${limit.field} ${limit.value * 2}), or send a smaller request.`,
      { participantId, field: limit.field, limit: limit.value },
    );
  }
}

export class CircularDelegationError extends LegionError {
  constructor(
    readonly target: string,
    readonly chain: readonly string[],
  ) {
    super(
      'circular_delegation',
      `"${target}" is already working on this request (chain: ${chain.join(' → ')}). ` +
        'Messaging it now would deadlock; reply to your caller instead.',
      { target, chain },
    );
  }
}

export class DelegationNotAllowedError extends LegionError {
  constructor(
    readonly from: string,
    readonly to: string,
    allowed: readonly string[],
  ) {
    super('delegation_not_allowed', `${from} may not communicate with "${to}". Allowed: ${allowed.join(', ') || '(none)'}.`, {
      from,
      to,
      allowed,
    });
  }
}

export class ProviderError extends LegionError {
  constructor(
    readonly provider: string,
    readonly model: string,
    /** What went wrong, without the provider, the model and the fix around it. */
    readonly problem: string,
    readonly fix: string,
    options?: { cause?: unknown; code?: LegionErrorCode },
  ) {
    super(
      options?.code ?? 'provider_error',
      `${provider} (${model}): ${problem}. ${fix}`,
      { provider, model, fix },
      {
        cause: options?.cause,
      },
    );
  }
}

export class ScriptExhaustedError extends LegionError {
  constructor(
    readonly label: string,
    readonly consumed: number,
  ) {
    super('script_exhausted', `ScriptedProvider "${label}" was called again after all ${consumed} scripted steps were used.`, {
      label,
      consumed,
    });
  }
}

/**
 * The abort reason a user surface's signal carries when another surface
 * answered first: the question or approval it was showing is settled, and
 * `medium` says where.
 */
export class AnsweredElsewhereError extends LegionError {
  constructor(readonly medium: string) {
    super('answered_elsewhere', `This was answered on another surface (${medium}).`, { medium });
  }
}

/** The abort reason a user surface's signal carries when the surface was detached while it was asked. */
export class SurfaceDetachedError extends LegionError {
  constructor(readonly medium: string) {
    super('surface_detached', `The ${medium} surface was detached before it answered.`, { medium });
  }
}

/**
 * What a surface throws for a question or approval that is not its to answer (an MCP client asked
 * something meant for the human): not a failure. When every surface declines, nobody could be
 * asked, and the turn pauses durably as with no surface at all.
 */
export class SurfaceDeclinedError extends LegionError {
  constructor(
    readonly medium: string,
    why: string,
  ) {
    super('surface_declined', `The ${medium} surface does not answer this: ${why}`, { medium });
  }
}

/** The message of any thrown value, for error results and logs. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A session reached `limits.maxSessionCostUsd` or `limits.maxSessionTokens`: no new model call starts in it. */
export class SessionBudgetExceededError extends LegionError {
  constructor(
    readonly sessionId: string,
    readonly participantId: string,
    readonly limit: { field: 'maxSessionCostUsd' | 'maxSessionTokens'; value: number; spent: number },
    unpricedCalls: number,
  ) {
    const money = limit.field === 'maxSessionCostUsd';
    const amount = (value: number): string => (money ? `$${value.toFixed(value < 1 ? 4 : 2)}` : `${groupedNumber(value)} tokens`);
    const unpriced =
      money && unpricedCalls > 0
        ? ` (${unpricedCalls} call${unpricedCalls === 1 ? '' : 's'} to models without a known price are not in this figure)`
        : '';
    super(
      'session_budget_exceeded',
      `Session ${sessionId} has used ${amount(limit.spent)}${unpriced}, reaching its budget of ${amount(limit.value)} (limits.${limit.field}); ` +
        `${participantId}'s model was not called and nothing was added to the conversation. ` +
        `Raise limits.${limit.field} in .legion/config.json (legion config set limits.${limit.field} ${money ? Math.ceil(limit.value * 2) : limit.value * 2}), or start a new session (legion run --new-session, or /new in the REPL).`,
      { sessionId, participantId, field: limit.field, limit: limit.value, spent: limit.spent, unpricedCalls },
    );
  }
}
