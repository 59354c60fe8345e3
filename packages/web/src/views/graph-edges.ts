import type { ConversationSummary } from '../api/wire.js';
import { plural } from './format.js';

/** One arrow of the graph: every conversation one participant opened with another. */
export interface PairEdge {
  /** `<initiator>__<responder>`: the pair's default conversation's id, so a pair with one conversation keeps its test id. */
  id: string;
  initiator: string;
  responder: string;
  /** The pair's conversations, in the order they were listed. */
  conversationIds: string[];
  messages: number;
  /** What the arrow says: the one conversation's name, or how many there are. */
  label: string | undefined;
  active: boolean;
  selected: boolean;
  /** What a click opens: a running one other than the one on screen, else the one on screen, else the latest. */
  opens: string;
}

/**
 * The graph's arrows: one per direction of a pair, however many conversations it holds. One arrow
 * per conversation fanned out: a coordinator that delegated twenty named tasks to one developer
 * drew twenty curves whose labels covered each other; the list beside the graph names each one.
 */
export function pairEdges(conversations: readonly ConversationSummary[], active: ReadonlySet<string>, selected: string | null): PairEdge[] {
  const byPair = new Map<string, ConversationSummary[]>();
  for (const conversation of conversations) {
    const id = `${conversation.initiator}__${conversation.responder}`;
    const pair = byPair.get(id);
    if (pair) pair.push(conversation);
    else byPair.set(id, [conversation]);
  }
  return [...byPair].map(([id, pair]) => {
    const first = pair[0]!;
    const running = pair.filter((conversation) => active.has(conversation.id));
    const latest = pair.reduce((best, next) => ((next.lastAt ?? '') > (best.lastAt ?? '') ? next : best));
    const shown = pair.find((conversation) => conversation.id === selected);
    // A click goes where the pair works now (another running conversation than the one on screen), else stays.
    const chosen = running.filter((conversation) => conversation !== shown).at(-1) ?? shown ?? running.at(-1) ?? latest;
    return {
      id,
      initiator: first.initiator,
      responder: first.responder,
      conversationIds: pair.map((conversation) => conversation.id),
      messages: pair.reduce((sum, conversation) => sum + conversation.messages, 0),
      label: pair.length > 1 ? plural(pair.length, 'conversation') : first.name,
      active: running.length > 0,
      selected: shown !== undefined,
      opens: chosen.id,
    };
  });
}
