import { hasEveryWord } from '../message-words.js';
import { addUsage, emptyTotals, type UsageRecord } from '../records/usage-summary.js';
import { SessionNotFoundError } from '../../kernel/index.js';
import type {
  ConversationLogs,
  MessageHit,
  MessageSearch,
  RecordLog,
  SessionIndex,
  SessionRecords,
  SessionTally,
} from '../session-backend.js';

/**
 * The memory backend's index: counted from the logs at each call. Its logs are arrays in this
 * process's memory, so a count reads no disk; what the index spares the other backends it would
 * not spare here.
 */
export class MemorySessionIndex implements SessionIndex {
  constructor(
    private readonly sessions: Pick<SessionRecords, 'get'>,
    private readonly conversations: Pick<ConversationLogs, 'list' | 'recent'>,
    private readonly usage: Pick<RecordLog<UsageRecord>, 'read'>,
  ) {}

  async tally(sessionId: string): Promise<SessionTally> {
    if (!(await this.sessions.get(sessionId))) throw new SessionNotFoundError(sessionId);
    const conversations: SessionTally['conversations'] = [];
    for (const conversationId of await this.conversations.list(sessionId)) {
      const messages = await this.conversations.recent({ sessionId, conversationId }, Number.MAX_SAFE_INTEGER);
      conversations.push({ conversationId, messages: messages.length, lastMessageAt: messages.at(-1)?.at });
    }
    const usage = emptyTotals();
    for (const record of await this.usage.read(sessionId)) addUsage(usage, record.usage, record.costUsd);
    return { conversations, usage };
  }

  async search(search: MessageSearch): Promise<MessageHit[]> {
    const hits: MessageHit[] = [];
    if (search.words.length === 0 || search.limit <= 0) return hits;
    for (const session of search.sessions) {
      for (const conversationId of await this.conversations.list(session.id)) {
        for (const message of await this.conversations.recent({ sessionId: session.id, conversationId }, Number.MAX_SAFE_INTEGER)) {
          if (hasEveryWord(message, search.words)) hits.push({ sessionId: session.id, conversationId, message });
        }
      }
    }
    hits.sort((a, b) => (a.message.at < b.message.at ? 1 : a.message.at > b.message.at ? -1 : 0));
    return hits.slice(0, search.limit);
  }
}
