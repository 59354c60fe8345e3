// The record logs (approvals, questions, usage) in a database the earlier per-log code wrote: read as
// they were, and written in rows of the same shape, so Legion versions before and after share one database.
import type { UsageRecord } from '@legion-collective/core';
import type { ApprovalDecisionRecord, ApprovalRequestRecord } from '@legion-collective/core/backend';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { SCHEMA_VERSION } from './migrations.js';
import { createTestDatabase, postgresSkipped, sql } from './test-support/test-database.js';

const skipped = postgresSkipped();

function approvalRequest(id: string): ApprovalRequestRecord {
  return {
    kind: 'request',
    version: 2,
    id,
    at: '2026-01-01T00:00:00.000Z',
    batchId: 'batch-1',
    requester: 'dev',
    approver: 'user',
    tool: 'file_write',
    input: { path: 'a.txt' },
    toolUseId: `toolu_${id}`,
    conversationId: 'user__dev',
    reason: 'writes need approval',
    frames: [{ participantId: 'user', conversationId: 'user__dev' }],
  };
}

function decision(requestId: string, decidedBy: string, verdict: 'approved' | 'rejected' = 'approved'): ApprovalDecisionRecord {
  return { kind: 'decision', version: 1, requestId, at: '2026-01-01T00:00:01.000Z', decision: verdict, decidedBy };
}

function usageRecord(participantId: string, inputTokens: number): UsageRecord {
  return {
    version: 1,
    at: '2026-01-01T00:00:02.000Z',
    participantId,
    conversationId: `user__${participantId}`,
    chain: ['user'],
    provider: 'scripted',
    model: 'test',
    usage: { inputTokens, outputTokens: 1 },
    costUsd: null,
  };
}

/** A row as the earlier code stored it: the log's next number, the kind, the claimed key of a decision or an outcome, the body. */
async function storeRow(url: string, sessionId: string, log: string, kind: string, claim: string | null, body: unknown): Promise<void> {
  await sql(
    url,
    `WITH next AS (
       INSERT INTO legion.logs AS log (session_id, log_id, last_seq) VALUES ($1, $2, 1)
       ON CONFLICT (session_id, log_id) DO UPDATE SET last_seq = log.last_seq + 1 RETURNING last_seq)
     INSERT INTO legion.entries (session_id, log_id, seq, kind, claim, body) SELECT $1, $2, last_seq, $3, $4, $5::jsonb FROM next`,
    [sessionId, log, kind, claim, JSON.stringify(body)],
  );
}

describe.skipIf(skipped !== undefined)('record logs in a database the earlier code wrote', () => {
  it('reads its approvals, questions and usage, keeps its claims, and writes rows of the shape it wrote', async () => {
    const url = await createTestDatabase('records');
    const first = new PostgresSessionBackend({ url });
    const { id: sessionId } = await first.sessions.create();
    await first.close();
    // The record rows' shape is version 1's; later schema steps added tables (file claims), not columns to these.
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);

    const request = approvalRequest('apr_old');
    const decided = decision('apr_old', 'user');
    const question = {
      kind: 'question',
      version: 1,
      id: 'q_old',
      at: '2026-01-01T00:00:00.000Z',
      conversationId: 'dev__user',
      user: 'user',
      from: 'dev',
      chain: ['user', 'dev'],
      text: 'Which database?',
    } as const;
    const answered = {
      kind: 'answer',
      version: 1,
      questionId: 'q_old',
      at: '2026-01-01T00:00:01.000Z',
      text: 'PostgreSQL',
      answeredBy: 'user',
    } as const;
    const usage = usageRecord('dev', 5);
    await storeRow(url, sessionId, 'approvals', 'request', null, request);
    await storeRow(url, sessionId, 'approvals', 'decision', 'apr_old', decided);
    await storeRow(url, sessionId, 'questions', 'question', null, question);
    await storeRow(url, sessionId, 'questions', 'answer', 'q_old', answered);
    await storeRow(url, sessionId, 'usage', 'usage', null, usage);

    const backend = new PostgresSessionBackend({ url });
    try {
      expect(await backend.approvals.read(sessionId)).toEqual([request, decided]);
      expect(await backend.questions.read(sessionId)).toEqual([question, answered]);
      expect(await backend.usage.read(sessionId)).toEqual([usage]);
      // The claims it stored still hold.
      expect(await backend.approvals.claim(sessionId, [decision('apr_old', 'lead')])).toEqual({ ok: false, taken: [decided] });
      expect(await backend.questions.claim(sessionId, [{ ...answered, text: 'SQLite' }])).toEqual({ ok: false, taken: [answered] });

      const request2 = approvalRequest('apr_new');
      const decided2 = decision('apr_new', 'user', 'rejected');
      await backend.approvals.append(sessionId, request2);
      expect(await backend.approvals.claim(sessionId, [decided2])).toEqual({ ok: true });
      const usage2 = usageRecord('qa', 7);
      await backend.usage.append(sessionId, usage2);
      const rows = await sql(
        url,
        "SELECT log_id, seq::int AS seq, kind, claim, body FROM legion.entries WHERE session_id = $1 AND log_id IN ('approvals', 'usage') ORDER BY log_id, seq",
        [sessionId],
      );
      expect(rows.rows).toEqual([
        { log_id: 'approvals', seq: 1, kind: 'request', claim: null, body: request },
        { log_id: 'approvals', seq: 2, kind: 'decision', claim: 'apr_old', body: decided },
        { log_id: 'approvals', seq: 3, kind: 'request', claim: null, body: request2 },
        { log_id: 'approvals', seq: 4, kind: 'decision', claim: 'apr_new', body: decided2 },
        { log_id: 'usage', seq: 1, kind: 'usage', claim: null, body: usage },
        { log_id: 'usage', seq: 2, kind: 'usage', claim: null, body: usage2 },
      ]);
    } finally {
      await backend.close();
    }
  });
});
