import { isValidIdPart } from '../team/index.js';
import { LegionError } from '../kernel/index.js';

export interface ConversationKey {
  initiator: string;
  responder: string;
  name?: string | undefined;
}

/** `<initiator>__<responder>[__<name>]`: directional, so A→B is never B→A. */
export function conversationId(key: ConversationKey): string {
  for (const [label, value] of [
    ['initiator', key.initiator],
    ['responder', key.responder],
    ...(key.name === undefined ? [] : [['conversation name', key.name]]),
  ] as const) {
    if (!isValidIdPart(value)) {
      throw new LegionError(
        'invalid_id',
        `Invalid ${label} "${value}": use letters, digits, ".", "-" or single "_" (at most 64 characters, no "__").`,
        { value },
      );
    }
  }
  return key.name ? `${key.initiator}__${key.responder}__${key.name}` : `${key.initiator}__${key.responder}`;
}

export function parseConversationId(id: string): ConversationKey {
  const parts = id.split('__');
  const [initiator, responder, name] = parts;
  if (parts.length < 2 || parts.length > 3 || !initiator || !responder) {
    throw new LegionError('invalid_id', `"${id}" is not a conversation id (<initiator>__<responder>[__<name>]).`, { id });
  }
  return name === undefined ? { initiator, responder } : { initiator, responder, name };
}
