import type { ContentBlock, Message, TurnEnding, TurnOutcome } from '../../kernel/index.js';
import type { TurnResult } from '../../session/index.js';

/**
 * Errors that mean the provider refused the request itself: the messages that
 * were new in it would make every later request fail the same way, so they are
 * withheld from later requests (their place says so) instead of sent again.
 */
const REFUSED_REQUEST = new Set(['provider_bad_request', 'provider_context_too_long', 'context_overflow']);

/** What became of a turn, in the lifecycle's words (`turn:end`'s `outcome`): an error coded `cancelled` was a cancel. */
export function turnOutcome(result: TurnResult): TurnOutcome {
  if (result.status === 'success') return 'succeeded';
  if (result.status === 'paused') return 'paused';
  return result.code === 'cancelled' ? 'cancelled' : 'failed';
}

/** The turn's ending as recorded, from its outcome. */
export function turnEnding(code: string, error: string, withheldCandidates: readonly Message[]): TurnEnding {
  if (code === 'cancelled') return { status: 'cancelled', code };
  const withheld = REFUSED_REQUEST.has(code) ? withheldCandidates.map((message) => message.id) : [];
  return { status: 'failed', code, error, ...(withheld.length > 0 ? { withheld } : {}) };
}

/**
 * The text the model reads in the responder's place. Plain words, not a reply:
 * the message before it was not answered, and is not to be answered now unless
 * asked again.
 */
export function endingText(ending: TurnEnding): string {
  const what =
    ending.status === 'cancelled'
      ? 'This turn was cancelled before it finished'
      : `This turn failed before it finished (${ending.code}: ${oneLine(ending.error ?? '')})`;
  const withheld = ending.withheld?.length
    ? ' The provider refused the request, so the messages it added are left out of later requests.'
    : '';
  return `[${what}. The request above was not answered; do not answer it now unless it is asked again.${withheld}]`;
}

/**
 * The history as later requests send it: messages an ended turn withheld keep
 * their place and structure (a tool result still answers its call) with their
 * text replaced by a note. Returns the same array when nothing is withheld,
 * which is almost always: one pass, no copy.
 */
export function withEndedTurns(history: readonly Message[]): readonly Message[] {
  let withheld: Map<string, TurnEnding> | undefined;
  for (const message of history) {
    const ids = message.ending?.withheld;
    if (!ids) continue;
    withheld ??= new Map();
    for (const id of ids) withheld.set(id, message.ending!);
  }
  if (!withheld) return history;
  return history.map((message) => {
    const ending = withheld!.get(message.id);
    return ending ? Object.assign({}, message, { content: message.content.map((block) => withheldBlock(block, ending)) }) : message;
  });
}

function withheldBlock(block: ContentBlock, ending: TurnEnding): ContentBlock {
  const note = `[left out: the provider refused the request that carried this (${ending.code}); it is not sent again]`;
  if (block.type === 'text') return { type: 'text', text: note };
  if (block.type === 'tool_result') return Object.assign({}, block, { content: note });
  return block;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}
