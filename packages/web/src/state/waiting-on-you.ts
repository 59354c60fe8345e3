import type { ApprovalView, WireQuestion } from '../api/wire.js';
import { conversationIdOf, type ActiveTurn, type AppState } from './app-state.js';

/** A question or an approval: the conversation it was raised in, and the participants waiting on it (outermost first, ending with the asker). */
interface Waiting {
  conversationId: string;
  chain: readonly string[];
}

const startsWith = (whole: readonly string[], start: readonly string[]): boolean =>
  start.length <= whole.length && start.every((id, index) => whole[index] === id);

/**
 * Whether a conversation's turn waits on something asked of the user: the conversation it was raised
 * in (the asker's conversation to the user, or the requester's own), and every conversation up the
 * chain whose turn waits on that one — so the user sees it in the top-level conversation they look
 * at, however deep the delegate that asks.
 *
 * Link `i` of the chain (chain[i] waiting on chain[i + 1]) runs in the conversation whose active
 * turn has exactly that chain; when no such turn is known (a page loaded mid-turn, a turn of another
 * process: neither brings its `turn:start`), it is the pair's default conversation, as the chain
 * does not name a named one.
 */
export function waitsIn(item: Waiting, conversationId: string, activeTurns: Record<string, ActiveTurn>): boolean {
  if (item.conversationId === conversationId) return true;
  const known = new Map<number, string>();
  for (const [id, turn] of Object.entries(activeTurns)) {
    const path = [...turn.chain, turn.participantId];
    if (path.length >= 2 && startsWith(item.chain, path)) known.set(path.length - 2, id);
  }
  for (let link = 0; link + 1 < item.chain.length; link++) {
    const runsIn = known.get(link) ?? conversationIdOf(item.chain[link]!, item.chain[link + 1]!);
    if (runsIn === conversationId) return true;
  }
  return false;
}

/** The questions waiting on the user that a conversation's turn waits on, oldest first. */
export function questionsWaitingIn(state: AppState, conversationId: string): WireQuestion[] {
  return state.questions.filter((question) => waitsIn(question, conversationId, state.activeTurns));
}

/** Every approval (pending or decided) raised in a conversation or in one its turn waited on, oldest first. */
export function approvalsOf(state: AppState, conversationId: string): ApprovalView[] {
  return state.approvals.filter((approval) => waitsIn(approval, conversationId, state.activeTurns));
}
