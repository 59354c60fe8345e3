import { SessionNotFoundError, type StorageWarning } from '@legion-collective/core';
import {
  assertSessionName,
  MessageEntrySchema,
  type MessageHit,
  type MessageSearch,
  type SessionIndex,
  type SessionTally,
} from '@legion-collective/core/backend';
import type { Database } from './connection.js';
import { parseRecord, sourceOf } from './records.js';

interface TallyRow {
  found: boolean;
  conversations: { log_id: string; messages: string | number; last_message_at: string | null }[] | null;
  calls: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  unpriced_calls: string;
}

/**
 * The session index of the database: each conversation's count and newest time are columns of
 * its `legion.logs` row, moved on by the append that writes the message (schema version 3); usage
 * totals are summed by the database over the session's usage rows, so nothing crosses the wire
 * but the sums; a message's words are a `tsvector` with a GIN index (`entries_words`).
 */
export class PostgresSessionIndex implements SessionIndex {
  constructor(
    private readonly db: Database,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  async tally(sessionId: string): Promise<SessionTally> {
    assertSessionName(sessionId);
    const rows = await this.db.query<TallyRow>(
      `SELECT EXISTS (SELECT 1 FROM legion.sessions WHERE id = $1) AS found,
         (SELECT json_agg(json_build_object('log_id', log_id, 'messages', messages, 'last_message_at', last_message_at) ORDER BY log_id)
            FROM legion.logs WHERE session_id = $1 AND strpos(log_id, '__') > 0) AS conversations,
         usage.*
       FROM (SELECT count(*) AS calls,
               coalesce(sum((body->'usage'->>'inputTokens')::float8), 0) AS input_tokens,
               coalesce(sum((body->'usage'->>'outputTokens')::float8), 0) AS output_tokens,
               coalesce(sum((body->'usage'->>'cacheReadTokens')::float8), 0) AS cache_read_tokens,
               coalesce(sum((body->'usage'->>'cacheWriteTokens')::float8), 0) AS cache_write_tokens,
               coalesce(sum((body->>'costUsd')::float8), 0) AS cost_usd,
               count(*) FILTER (WHERE body->>'costUsd' IS NULL) AS unpriced_calls
             FROM legion.entries WHERE session_id = $1 AND log_id = 'usage') AS usage`,
      [sessionId],
      'legion-tally',
    );
    const row = rows[0];
    if (!row?.found) throw new SessionNotFoundError(sessionId);
    return {
      conversations: (row.conversations ?? []).map((conversation) => ({
        conversationId: conversation.log_id,
        messages: Number(conversation.messages),
        lastMessageAt: conversation.last_message_at ?? undefined,
      })),
      usage: {
        calls: Number(row.calls),
        inputTokens: row.input_tokens,
        outputTokens: row.output_tokens,
        cacheReadTokens: row.cache_read_tokens,
        cacheWriteTokens: row.cache_write_tokens,
        costUsd: row.cost_usd,
        unpricedCalls: Number(row.unpriced_calls),
      },
    };
  }

  async search(search: MessageSearch): Promise<MessageHit[]> {
    if (search.words.length === 0 || search.limit <= 0 || search.sessions.length === 0) return [];
    // The words are letters and digits only (`searchWords`), so the query is their conjunction, as typed.
    const rows = await this.db.query<{ session_id: string; log_id: string; seq: string; body: unknown }>(
      `SELECT session_id, log_id, seq, body FROM legion.entries
       WHERE kind = 'message' AND words @@ plainto_tsquery('simple', $1) AND session_id = ANY($2::text[])
       ORDER BY body->>'at' DESC, session_id DESC, log_id, seq DESC LIMIT $3`,
      [search.words.join(' '), search.sessions.map((session) => session.id), search.limit],
      'legion-search',
    );
    const hits: MessageHit[] = [];
    for (const row of rows) {
      const parsed = parseRecord(row.body, MessageEntrySchema);
      if (!parsed.ok) {
        this.warn({
          source: sourceOf(row.session_id, row.log_id),
          offset: Number(row.seq),
          problem: `skipped an unreadable entry (${parsed.problem})`,
        });
        continue;
      }
      const { kind: _kind, ...message } = parsed.value;
      hits.push({ sessionId: row.session_id, conversationId: row.log_id, message });
    }
    return hits;
  }
}
