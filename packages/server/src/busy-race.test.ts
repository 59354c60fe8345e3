import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '@legion-collective/core/testing';
import { ApiClient } from './server-test-support.js';
import { startServer, type RunningServer } from './start-server.js';

// Runs on every session backend (vitest.config.ts): on PostgreSQL the liveness probe between the busy check and the send truly awaits.
describe('legion serve, two messages into one conversation at the same moment', () => {
  let test: TestLegion;
  let server: RunningServer;
  let api: ApiClient;
  afterEach(async () => {
    await server?.close();
    await test?.cleanup();
    expect(api.mismatches).toEqual([]);
  });

  it('lets exactly one in and refuses the other with 409', async () => {
    // The first turn holds until both answers are in: whichever message got in, its turn is still running when the other is judged.
    let release!: () => void;
    const bothAnswered = new Promise<void>((resolve) => (release = resolve));
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead')],
      entryAgent: 'lead',
      scripts: { lead: [async () => (await bothAnswered, { text: 'first' })] },
    });
    server = await startServer({ legion: test.legion, heartbeatMs: 100, followPollMs: 50 });
    api = new ApiClient(server.port, server.token);
    const id = ((await api.post('/api/sessions', {})).json as { id: string }).id;
    const stream = api.events({ session: id });
    try {
      await stream.opened;
      let statuses: number[];
      try {
        const answers = await api.postTogether(`/api/sessions/${id}/messages`, [{ text: 'one' }, { text: 'two' }]);
        statuses = answers.map((answer) => answer.status).sort();
        expect(answers.find((answer) => answer.status === 409)?.json).toMatchObject({ error: { code: 'conversation_busy' } });
      } finally {
        release();
      }
      expect(statuses).toEqual([202, 409]);
      await stream.until(
        (s) => s.legion().some((event) => event.type === 'turn:end' && event.participantId === 'lead') || undefined,
        'the turn of lead to end',
      );
      // The one let in ran alone, and nothing failed behind a 202.
      expect(stream.legion().filter((event) => event.type === 'error:raised')).toEqual([]);
      test.assertScriptsDone();
    } finally {
      stream.close();
    }
  });
});
