// The database restarts (an immediate shutdown: a crash, then recovery) while a turn runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { Legion, defineTool, initWorkspace } from '@legion-collective/core';
import { ScriptedProvider, agentParticipant, userParticipant } from '@legion-collective/core/testing';
import { PostgresSessionBackend } from './PostgresSessionBackend.js';
import { findPostgres, startPostgresServer, type PostgresServer } from './test-support/postgres-server.js';
import { postgresSkipped, sql } from './test-support/test-database.js';

describe.skipIf(postgresSkipped() !== undefined)('a database restart in the middle of a turn', () => {
  // A server of its own: restarting the run's shared one would fail the other files' tests.
  let server: PostgresServer;
  let root: string;
  beforeAll(async () => {
    const found = findPostgres();
    if (!found.ok) throw new Error(found.reason);
    server = await startPostgresServer(found);
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'legion-pg-restart-'));
    initWorkspace(root, { participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })], entryAgent: 'worker' });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('fails the turn cleanly or finishes it: every entry whole and numbered without a gap, and the next turn works', async () => {
    const url = await server.createDatabase('restart');
    const legion = Legion.open({
      root,
      globalConfigFile: join(root, 'no-global-config.json'),
      backend: new PostgresSessionBackend({ url }),
    });
    let started!: () => void;
    const toolStarted = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    legion.tools.register(
      defineTool({
        name: 'wait_for_gate',
        effect: 'read',
        description: 'Waits until the test lets it go.',
        inputSchema: z.object({}),
        execute: async () => {
          started();
          await gate;
          return { status: 'success', data: 'let go' };
        },
      }),
    );
    legion.providers.useFor(
      'worker',
      new ScriptedProvider(
        [
          { text: 'Waiting.', toolCalls: [{ id: 'gate-1', name: 'wait_for_gate', input: {} }] },
          { text: 'Done after the restart.' },
          { text: 'Here again.' },
        ],
        'worker',
      ),
    );
    try {
      const session = await legion.sessions.create();
      // The test server runs with synchronous_commit off: what was set up before the turn (the schema's two
      // migrations, the session) is made durable first, so the crash below tests the turn's entries alone.
      await sql(url, 'CHECKPOINT');
      const turn = legion.send(session, 'Wait for the gate', { to: 'worker' });
      await toolStarted;
      await server.restart();
      finish();
      // A refused append rejects the send with its LegionError (no half-written turn to report on).
      const result = await turn.catch((error: Error) => ({ status: 'error' as const, error: error.message }));
      // Either way is allowed: the pool reconnects and the turn goes on when nothing was lost, or
      // the append after a lost entry is refused and the turn ends with that error, or the crash
      // took the holder's advisory lock with it and the turn's lease counts as taken over.
      if (result.status === 'error') expect(result.error).toMatch(/log_lost_entries|no longer holds entry|terminat|connect|taken over/i);
      else expect(result).toMatchObject({ status: 'success', reply: 'Done after the restart.' });

      // One statement, so one snapshot: numbered 1..n without a gap, the log's counter at n.
      const state = await sql(
        url,
        "SELECT (SELECT coalesce(max(last_seq), 0) FROM legion.logs WHERE log_id = 'user__worker')::int AS last, (SELECT coalesce(array_agg(seq::int ORDER BY seq), '{}') FROM legion.entries WHERE log_id = 'user__worker') AS seqs",
      );
      const { last, seqs } = state.rows[0] as { last: number; seqs: number[] };
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
      expect(last).toBe(seqs.length);
      const backend = new PostgresSessionBackend({ url });
      const warnings: string[] = [];
      const reader = new PostgresSessionBackend({ url, onWarning: (warning) => warnings.push(warning.problem) });
      await reader.conversations.recent({ sessionId: session.id, conversationId: 'user__worker' }, 100);
      expect(warnings).toEqual([]);
      await reader.close();
      await backend.close();

      // The conversation goes on from what it holds (a dangling call, if any, is answered as interrupted).
      const next = await legion.send(session, 'Are you there?', { to: 'worker' });
      expect(next.status).toBe('success');
      const log = await legion.sessions
        .get(session.id)
        .then((reopened) => reopened.conversation({ initiator: 'user', responder: 'worker' }).recent(100));
      const toolUses = log.flatMap((message) => message.content.filter((block) => block.type === 'tool_use'));
      const toolResults = log.flatMap((message) => message.content.filter((block) => block.type === 'tool_result'));
      expect(toolResults.length).toBe(toolUses.length);
    } finally {
      finish();
      await legion.close();
    }
  });
});
