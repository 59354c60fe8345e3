import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LegionEvent } from '../../kernel/events/event-types.js';
import { createTestLegion, mockParticipant, userParticipant, type TestLegion } from '../../testing/index.js';

describe('finding the latest session', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  const EARLIER = '2001-01-01T00:00:00.000Z';
  const sessionFile = (id: string): string => join(test.root, '.legion', 'sessions', id, 'session.json');
  const setLastActive = (id: string, at: string): void => {
    const meta = JSON.parse(readFileSync(sessionFile(id), 'utf8')) as Record<string, unknown>;
    writeFileSync(sessionFile(id), JSON.stringify({ ...meta, lastActiveAt: at }));
  };

  beforeEach(() => {
    test = createTestLegion({ participants: [userParticipant(), mockParticipant('echo', [{ trigger: '*', response: 'heard' }])] });
  });

  it('follows activity across processes: the session used last is the one resumed', async () => {
    const first = await test.legion.sessions.create({ title: 'first' });
    const second = await test.legion.sessions.create({ title: 'second' });
    // Two sessions created within one millisecond tie; the test wants an order.
    setLastActive(first.id, EARLIER);
    expect((await test.reopen().sessions.latest())?.id).toBe(second.id);

    // Another Legion on the same workspace (as another process would) talks in the first session.
    const other = test.reopen();
    await (await other.sessions.get(first.id)).send({ from: 'user', to: 'echo', message: 'back to the first' });
    other.close();
    expect((await test.reopen().sessions.latest())?.id).toBe(first.id);
  });

  it('a long listing lets the event loop run between its reads (a REPL keeps taking keys meanwhile)', async () => {
    const sessions = await Promise.all(Array.from({ length: 60 }, (_, index) => test.legion.sessions.create({ title: `s${index}` })));
    const reopened = test.reopen();
    // Counts the turns of the event loop while the listing runs: its check phase, once a turn.
    let turns = 0;
    let next: NodeJS.Immediate;
    const count = (): void => {
      turns++;
      next = setImmediate(count);
    };
    next = setImmediate(count);
    try {
      expect(await reopened.sessions.list()).toHaveLength(sessions.length);
    } finally {
      clearImmediate(next);
    }
    // Read in one stretch, the listing would end before the loop turned once.
    expect(turns).toBeGreaterThan(1);
  });

  it('does not read every session to find the latest', async () => {
    const older = await test.legion.sessions.create({ title: 'older' });
    const newest = await test.legion.sessions.create({ title: 'newest' });
    setLastActive(older.id, EARLIER);
    expect((await test.reopen().sessions.latest())?.id).toBe(newest.id);
    // A broken session.json is reported whenever it is read; finding the latest must not read it.
    writeFileSync(sessionFile(older.id), '{ not json');
    const fresh = test.reopen();
    const warnings: LegionEvent[] = [];
    fresh.events.on('storage:warning', (event) => warnings.push(event));
    expect((await fresh.sessions.latest())?.id).toBe(newest.id);
    expect(warnings).toEqual([]);
    // A listing still reads (and reports) it.
    await fresh.sessions.list();
    expect(warnings).toHaveLength(1);
  });

  it('notices sessions added or removed behind its back', async () => {
    const kept = await test.legion.sessions.create({ title: 'kept' });
    const dropped = await test.legion.sessions.create({ title: 'dropped' });
    setLastActive(kept.id, EARLIER);
    expect((await test.reopen().sessions.latest())?.id).toBe(dropped.id);

    // A session folder copied in by hand, active later than any other.
    const copied = '20991231-235959-abcdef';
    cpSync(join(test.root, '.legion', 'sessions', kept.id), join(test.root, '.legion', 'sessions', copied), { recursive: true });
    writeFileSync(
      sessionFile(copied),
      JSON.stringify({ version: 1, id: copied, createdAt: '2099-12-31T23:59:59.000Z', lastActiveAt: '2099-12-31T23:59:59.000Z' }),
    );
    expect((await test.reopen().sessions.latest())?.id).toBe(copied);

    rmSync(join(test.root, '.legion', 'sessions', copied), { recursive: true });
    rmSync(join(test.root, '.legion', 'sessions', dropped.id), { recursive: true });
    expect((await test.reopen().sessions.latest())?.id).toBe(kept.id);
  });

  it('survives a damaged index by scanning', async () => {
    const a = await test.legion.sessions.create({ title: 'a' });
    const b = await test.legion.sessions.create({ title: 'b' });
    setLastActive(a.id, EARLIER);
    expect((await test.reopen().sessions.latest())?.id).toBe(b.id);
    const index = join(test.root, '.legion', 'run', 'latest-session.json');
    for (const content of ['', '{"id": 7}', JSON.stringify({ id: '../../etc', lastActiveAt: 'x', sessionsMtimeNs: '0' })]) {
      writeFileSync(index, content);
      expect((await test.reopen().sessions.latest())?.id).toBe(b.id);
    }
    // An index that names a valid session but is out of date with the folder is not trusted either.
    setLastActive(b.id, '2000-01-01T00:00:00.000Z');
    writeFileSync(index, JSON.stringify({ id: b.id, lastActiveAt: '2099-01-01T00:00:00.000Z', sessionsMtimeNs: '1' }));
    expect((await test.reopen().sessions.latest())?.id).not.toBe(b.id);
  });
});
