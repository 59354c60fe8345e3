import { LegionError } from '../kernel/index.js';
import type { AgentStateKey, ConversationAddress } from './session-backend.js';

/**
 * The names a backend stores records under. A file backend turns them into
 * file names, so each is checked here, for every backend alike: a name that
 * passes can never leave its folder (`..`, `/`) or collide with another.
 */
const PART = /^[A-Za-z0-9](?:[A-Za-z0-9.-]|_(?!_))*$/;
const ARTIFACT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Session ids, participant ids, conversation names, state kinds: one safe alphabet, at most 64 characters. */
export function isNamePart(value: string): boolean {
  return PART.test(value) && !value.endsWith('_') && value.length <= 64;
}

export function assertSessionName(id: string): void {
  if (!isNamePart(id)) {
    throw new LegionError(
      'invalid_session_id',
      `"${id}" is not a session id: use letters, digits, ".", "-" or single "_" (at most 64 characters), as "legion sessions" lists them.`,
      { id },
    );
  }
}

/** `<initiator>__<responder>[__<name>]`. */
export function isConversationName(id: string): boolean {
  const parts = id.split('__');
  return parts.length >= 2 && parts.length <= 3 && parts.every(isNamePart);
}

export function assertConversationAddress(address: ConversationAddress): void {
  assertSessionName(address.sessionId);
  if (!isConversationName(address.conversationId)) {
    throw new LegionError('invalid_id', `"${address.conversationId}" is not a conversation id (<initiator>__<responder>[__<name>]).`, {
      id: address.conversationId,
    });
  }
}

/** Names a session's own records already use: a state kind may not take one. */
const RESERVED_KINDS = new Set(['conversations', 'locks', 'artifacts', 'approval-decisions', 'question-outcomes']);

/** A folder or key that can hold agent state: a valid name that is none of a session's own records. */
export function isAgentStateKind(kind: string): boolean {
  return isNamePart(kind) && !RESERVED_KINDS.has(kind);
}

export function assertAgentStateKind(kind: string): void {
  if (RESERVED_KINDS.has(kind))
    throw new LegionError('invalid_id', `"${kind}" names a session's own records; choose another state kind.`, { kind });
}

export function assertAgentStateKey(key: AgentStateKey): void {
  assertSessionName(key.sessionId);
  assertAgentStateKind(key.kind);
  for (const [label, value] of [
    ['state kind', key.kind],
    ['participant id', key.agentId],
  ] as const) {
    if (!isNamePart(value))
      throw new LegionError(
        'invalid_id',
        `Invalid ${label} "${value}": use letters, digits, ".", "-" or single "_" (at most 64 characters).`,
        { value },
      );
  }
}

export function assertArtifactName(sessionId: string, name: string): void {
  assertSessionName(sessionId);
  if (!ARTIFACT.test(name) || name.length > 128 || name.includes('..')) {
    throw new LegionError(
      'invalid_artifact_name',
      `"${name}" is not an artifact name: use letters, digits, ".", "-" or "_" (at most 128 characters, no "..").`,
      { name },
    );
  }
}
