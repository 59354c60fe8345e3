import { vitest } from './vitest-api.js';
import { answer, question, useHarness, withdrawn, type MakeHarness } from './harness.js';

export function questionsContract(makeHarness: MakeHarness): void {
  const { describe, expect, it } = vitest();
  describe('questions', () => {
    const { open } = useHarness(makeHarness);

    it('reads back questions and outcomes in the order they were made, from any instance', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      expect(await backend.questions.read(sessionId)).toEqual([]);
      const first = question('q_1');
      const second = question('q_2');
      await backend.questions.append(sessionId, first);
      await open().questions.append(sessionId, second);
      const answered = answer('q_2', 'PostgreSQL');
      expect(await open().questions.claim(sessionId, [answered])).toEqual({ ok: true });
      expect(await backend.questions.read(sessionId)).toEqual([first, second, answered]);
    });

    it('keeps the first outcome: a later answer or withdrawal is refused with the one that stands', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      await backend.questions.append(sessionId, question('q_1'));
      const winner = answer('q_1', 'yes', 'terminal');
      expect(await backend.questions.claim(sessionId, [winner])).toEqual({ ok: true });
      expect(await open().questions.claim(sessionId, [answer('q_1', 'no')])).toEqual({ ok: false, taken: [winner] });
      expect(await open().questions.claim(sessionId, [withdrawn('q_1')])).toEqual({ ok: false, taken: [winner] });
      expect((await backend.questions.read(sessionId)).filter((record) => record.kind !== 'question')).toEqual([winner]);
    });

    it('lets exactly one of many concurrent answerers win, across instances', async () => {
      const backend = open();
      const { id: sessionId } = await backend.sessions.create();
      await backend.questions.append(sessionId, question('q_race'));
      const answerers = Array.from({ length: 8 }, (_, index) => ({
        backend: open(),
        record: index === 3 ? withdrawn('q_race') : answer('q_race', `answer ${index}`, `surface-${index}`),
      }));
      const results = await Promise.all(answerers.map(({ backend: answerer, record }) => answerer.questions.claim(sessionId, [record])));
      const winners = results.flatMap((result, index) => (result.ok ? [answerers[index]!.record] : []));
      expect(winners).toHaveLength(1);
      for (const result of results) if (!result.ok) expect(result.taken).toEqual(winners);
      expect((await open().questions.read(sessionId)).filter((record) => record.kind !== 'question')).toEqual(winners);
    });

    it('wakes a watcher of the session when another instance asks or answers (if it offers watch)', async () => {
      const watcher = open();
      if (!watcher.watch) return;
      const { id: sessionId } = await watcher.sessions.create();
      await open().questions.append(sessionId, question('q_seen'));
      let stop: (() => void) | undefined;
      const woken = new Promise<void>((resolve) => {
        stop = watcher.watch!(sessionId, resolve);
      });
      await open().questions.claim(sessionId, [answer('q_seen', 'now')]);
      await woken;
      stop?.();
    });

    it("removes a session's questions with the session", async () => {
      const backend = open();
      const gone = await backend.sessions.create();
      await backend.questions.append(gone.id, question('q_gone'));
      await backend.questions.claim(gone.id, [answer('q_gone', 'bye')]);
      expect(await open().sessions.remove(gone.id)).toBe(true);
      expect(await backend.questions.read(gone.id)).toEqual([]);
    });

    it('refuses a session id that could leave its folder', async () => {
      await expect(open().questions.read('../outside')).rejects.toMatchObject({ code: 'invalid_session_id' });
    });
  });
}
