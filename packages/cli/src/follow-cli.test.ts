import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Legion, type LegionEvent } from '@legion-collective/core';

// A UI process (this test) follows `legion run`s that the built binary makes in other processes.
const LEGION = fileURLToPath(new URL('../dist/legion.js', import.meta.url));

const ORACLE = {
  id: 'oracle',
  type: 'mock',
  name: 'Oracle',
  responses: [
    // Answers only after a minute: the run is still going while its first message is followed.
    { trigger: '/^hold/', response: 'too late', delayMs: 60_000 },
    { trigger: 'ping', response: 'pong' },
  ],
  fallback: 'no idea',
};

type Sent = Extract<LegionEvent, { type: 'message:sent' }>;

describe("following another process's `legion run`", () => {
  let dir: string;
  let ui: Legion | undefined;
  let child: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'legion-follow-'));
  });
  afterEach(async () => {
    child?.kill('SIGKILL');
    await ui?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: '1', XDG_CONFIG_HOME: join(dir, '.xdg') });
  const runSync = (args: string[]): void => {
    const result = spawnSync(process.execPath, [LEGION, ...args], { cwd: dir, encoding: 'utf8', env: env() });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  };
  const start = (args: string[]): Promise<number | null> => {
    child = spawn(process.execPath, [LEGION, ...args], { cwd: dir, env: env(), stdio: 'ignore' });
    return new Promise((resolve) => child!.on('close', (status) => resolve(status)));
  };

  /** Remote message:sent events, and a promise for the first `count` of them. */
  function follow(legion: Legion): { remote: Sent[]; until(count: number): Promise<Sent[]> } {
    const remote: Sent[] = [];
    const waiting: Array<{ count: number; resolve: (events: Sent[]) => void }> = [];
    legion.events.on('message:sent', (event) => {
      if (!event.remote) return;
      remote.push(event);
      for (const waiter of waiting.filter((candidate) => remote.length >= candidate.count)) waiter.resolve(remote.slice(0, waiter.count));
    });
    return {
      remote,
      until: (count) =>
        new Promise((resolve) => (remote.length >= count ? resolve(remote.slice(0, count)) : waiting.push({ count, resolve }))),
    };
  }

  const texts = (events: Sent[]): string[] =>
    events.map((event) => event.message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
  const loggedIds = (sessionId: string): string[] =>
    readFileSync(join(dir, '.legion/sessions', sessionId, 'conversations/user__oracle.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; id?: string })
      .filter((entry) => entry.kind === 'message')
      .map((entry) => entry.id!);

  it('shows what a `legion run` in another terminal appends, as it appends it, from the end of what was there', async () => {
    runSync(['init']);
    writeFileSync(join(dir, '.legion/collective/participants/oracle.json'), JSON.stringify(ORACLE));
    // History from before the UI started: not repeated as new events.
    runSync(['run', '--to', 'oracle', '--new-session', 'ping']);
    ui = Legion.open({ root: dir, globalConfigFile: join(dir, 'no-global-config.json') });
    const session = (await ui.sessions.latest())!;
    const followed = follow(ui);
    const stop = await ui.follow(session.id);

    // The run cannot answer for a minute; its user message is seen while it still runs.
    let exited = false;
    const held = start(['run', '--to', 'oracle', '--session', session.id, 'hold on']).then((status) => {
      exited = true;
      return status;
    });
    const [arrived] = await followed.until(1);
    expect(exited).toBe(false);
    expect(arrived).toMatchObject({
      sessionId: session.id,
      conversationId: 'user__oracle',
      author: 'user',
      initiator: 'user',
      responder: 'oracle',
      remote: true,
    });
    expect(texts([arrived!])).toEqual(['hold on']);
    child!.kill('SIGTERM');
    await held;

    // The stopped run's turn ends in the log (its ending, in the oracle's place); then a whole run: its message and the reply, with the ids in the log.
    await start(['run', '--to', 'oracle', '--session', session.id, 'ping']);
    const all = await followed.until(4);
    expect(texts(all)).toEqual(['hold on', expect.stringContaining('[This turn was cancelled before it finished.'), 'ping', 'pong']);
    expect(all[1]!.message.ending).toMatchObject({ status: 'cancelled' });
    expect(all.map((event) => event.author)).toEqual(['user', 'oracle', 'user', 'oracle']);
    expect(all.map((event) => event.message.id)).toEqual(loggedIds(session.id).slice(2));
    expect(all.map((event) => event.seq)).toEqual([...all.map((event) => event.seq)].sort((a, b) => a - b));

    // This process's own turn in the same conversation is told once, by this process, not again by the follower.
    const local: Sent[] = [];
    ui.events.on('message:sent', (event) => {
      if (!event.remote) local.push(event);
    });
    await ui.send(session, 'ping', { to: 'oracle' });
    await stop.check();
    expect(texts(local)).toEqual(['ping', 'pong']);
    expect(followed.remote).toHaveLength(4);
    stop();
  }, 30_000);
});
