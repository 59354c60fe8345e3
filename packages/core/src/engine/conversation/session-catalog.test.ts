import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/test-collective.js';

describe('sessions.find: session ids by prefix, most recently active first, from memory after the first listing', () => {
  let test: TestLegion;
  afterEach(async () => test?.cleanup());

  it('keeps up with this process (created, used, removed) and with the latest session of another, without listing again', async () => {
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('solo')],
      entryAgent: 'solo',
      scripts: { solo: [{ text: 'ok' }] },
    });
    const { legion } = test;
    const [first, second, third] = [await legion.sessions.create(), await legion.sessions.create(), await legion.sessions.create()];
    const ids = async (prefix = '', limit?: number): Promise<string[]> =>
      (await legion.sessions.find(prefix, limit === undefined ? {} : { limit })).map((meta) => meta.id);
    expect(await ids()).toEqual([third.id, second.id, first.id]);
    expect(await ids('', 2)).toEqual([third.id, second.id]);
    expect(await ids(first.id.slice(0, -2))).toEqual([first.id]);

    // A record that breaks now is not read again: later lookups come from memory (a listing would warn and skip it).
    const warnings: string[] = [];
    legion.events.on('storage:warning', (event) => warnings.push(event.path));
    writeFileSync(join(test.root, '.legion', 'sessions', second.id, 'session.json'), '{ broken');

    await legion.send(first, 'hello');
    expect(await ids()).toEqual([first.id, third.id, second.id]);
    const made = await legion.sessions.create();
    expect(await ids()).toEqual([made.id, first.id, third.id, second.id]);
    expect(warnings).toEqual([]);
    // A removal moves the sessions folder on, so the latest-session index is rebuilt by a scan, which does tell of the broken record.
    await legion.sessions.remove(third.id);
    expect(await ids()).toEqual([made.id, first.id, second.id]);

    // Another process creates a session: the latest, found at the next lookup.
    const other = test.reopen();
    const elsewhere = await other.sessions.create();
    await other.close();
    expect(await ids()).toEqual([elsewhere.id, made.id, first.id, second.id]);
    test.assertScriptsDone();
  });
});
