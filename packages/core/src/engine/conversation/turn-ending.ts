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
 * which is almost always: no copy, and only the messages appended since the
 * last step are read (`withheldIn`).
 */
export function withEndedTurns(history: readonly Message[]): readonly Message[] {
  const withheld = withheldIn(history);
  if (withheld.size === 0) return history;
  return history.map((message) => {
    const ending = withheld.get(message.id);
    if (!ending) return message;
    // The same replacement at every step: what is counted or bounded per message object is counted once.
    let shown = shownWithheld.get(message);
    if (!shown)
      shownWithheld.set(
        message,
        (shown = Object.assign({}, message, { content: message.content.map((block) => withheldBlock(block, ending)) })),
      );
    return shown;
  });
}

/** What `withheldIn` found in a list: how far it looked, the last message then (a list cut and grown again is read anew), and the endings. */
interface WithheldScan {
  scanned: number;
  last: Message | undefined;
  withheld: Map<string, TurnEnding>;
}
const scans = new WeakMap<readonly Message[], WithheldScan>();
const shownWithheld = new WeakMap<Message, Message>();

/**
 * The ids of messages a turn ending withheld, and that ending. Kept per list: the loaded history is
 * one array that only grows at its end, read at every step, so a step reads only what was appended
 * since (a step's cost does not grow with the conversation).
 */
function withheldIn(history: readonly Message[]): ReadonlyMap<string, TurnEnding> {
  let scan = scans.get(history);
  if (!scan || scan.scanned > history.length || (scan.scanned > 0 && history[scan.scanned - 1] !== scan.last)) {
    scan = { scanned: 0, last: undefined, withheld: new Map() };
    scans.set(history, scan);
  }
  for (let index = scan.scanned; index < history.length; index++) {
    const ending = history[index]!.ending;
    if (ending?.withheld) for (const id of ending.withheld) scan.withheld.set(id, ending);
  }
  scan.scanned = history.length;
  scan.last = history[history.length - 1];
  return scan.withheld;
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
