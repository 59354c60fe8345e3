import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConversationBusyError } from '../../kernel/errors.js';
import type { LegionEvents } from '../../kernel/events/event-types.js';
import type { Legion } from '../../Legion.js';
import {
  agentParticipant,
  createTestLegion,
  mockParticipant,
  runNodeChild,
  userParticipant,
  type ChildRun,
  type TestLegion,
} from '../../testing/index.js';
import { textOf, toolResultsOf, toolUsesOf, type Message } from '../../kernel/message.js';
import { CONVERSATION_FORMAT_VERSION } from '../../store/records/log-entry.js';

// The crash tests run the engine in real child processes (the fixtures import the
// built package), kill them with SIGKILL, and reopen the same workspace here.
const FIXTURES = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
const BUILT_ENTRY = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));
/** A safety net against a hung child, far above what any step needs; never a timing assertion. */
const CHILD_WAIT_MS = 20_000;

type Warning = LegionEvents['storage:warning'];

const children: ChildRun[] = [];

function runFixture(name: string, args: string[]): ChildRun {
  const run = runNodeChild(join(FIXTURES, name), args, { waitLimitMs: CHILD_WAIT_MS });
  children.push(run);
  return run;
}

async function kill(run: ChildRun): Promise<void> {
  run.child.kill('SIGKILL');
  expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });
}

interface LogFile {
  entries: Array<Record<string, unknown>>;
  /** Bytes after the last newline, if any: a line whose write was cut off. */
  tornTail: string | undefined;
}

/** Reads a conversation file the way a strict reader would: every complete line must be JSON. */
function readLogFile(file: string): LogFile {
  const lines = readFileSync(file, 'utf8').split('\n');
  const last = lines.pop() ?? '';
  const entries = lines.map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`${file}:${index + 1} is not valid JSON: ${JSON.stringify(line.slice(0, 200))}`);
    }
  });
  return { entries, tornTail: last === '' ? undefined : last };
}

function messagesOf(file: string): Message[] {
  return readLogFile(file)
    .entries.filter((entry) => entry.kind === 'message')
    .map(({ kind: _kind, ...message }) => message as unknown as Message);
}

/** Every assistant tool_use is answered, in order, by the very next message: what providers insist on. */
function expectEveryToolUseAnswered(messages: readonly Message[]): void {
  messages.forEach((message, index) => {
    const uses = toolUsesOf(message).map((toolUse) => toolUse.id);
    if (uses.length === 0) return;
    const next = messages[index + 1];
    const answered = next?.role === 'user' ? toolResultsOf(next).map((result) => result.toolUseId) : [];
    expect(answered, `results for the tool_use(s) of message ${index}`).toEqual(uses);
  });
}

function collectWarnings(legion: Legion): Warning[] {
  const warnings: Warning[] = [];
  legion.events.on('storage:warning', ({ type: _type, seq: _seq, sessionId: _sessionId, ...warning }) => warnings.push(warning));
  return warnings;
}

describe('crash safety of conversations', () => {
  let test: TestLegion | undefined;
  const opened: Legion[] = [];

  /** A fresh Legion on the test workspace, as a new process would open it; closed after the test. */
  function reopen(): Legion {
    const legion = test!.reopen();
    opened.push(legion);
    return legion;
  }

  function sessionDir(sessionId: string): string {
    return join(test!.root, '.legion', 'sessions', sessionId);
  }

  function conversationFile(sessionId: string, conversationId: string): string {
    return join(sessionDir(sessionId), 'conversations', `${conversationId}.jsonl`);
  }

  beforeAll(() => {
    if (!existsSync(BUILT_ENTRY)) {
      throw new Error(
        `The crash tests run the built package in child processes: run "npm run build --workspace @legion-collective/core" first (${BUILT_ENTRY} is missing).`,
      );
    }
  });

  afterEach(async () => {
    for (const run of children.splice(0)) {
      if (run.child.exitCode === null && run.child.signalCode === null) {
        run.child.kill('SIGKILL');
        await run.exited;
      }
    }
    for (const legion of opened.splice(0)) legion.close();
    test?.cleanup();
    test = undefined;
  });

  it('a turn killed while a tool runs resumes: nothing committed is lost and the dangling tool_use is answered as interrupted', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
      scripts: { worker: [{ text: 'Back after the crash.' }] },
    });
    const session = await test.legion.sessions.create();
    const file = conversationFile(session.id, 'user__worker');
    const lockFile = join(sessionDir(session.id), 'locks', 'user__worker.lock');

    const run = runFixture('hang-in-tool.mjs', [test.root, session.id]);
    await run.waitFor((line) => line === 'TOOL_STARTED', 'TOOL_STARTED');

    // While the child holds the turn, a sender that will not wait is refused at once, and told who holds it.
    await expect(session.send({ from: 'user', to: 'worker', message: 'Are you there?', ifBusy: 'fail' })).rejects.toMatchObject({
      code: 'conversation_busy',
      message: expect.stringContaining(`pid ${run.pid}`),
    });
    const committed = messagesOf(file);
    expect(committed.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(committed[1]!.content).toEqual([
      { type: 'text', text: 'Starting the long job.' },
      { type: 'tool_use', id: 'hang-1', name: 'hang', input: { job: 'forever' } },
    ]);

    await kill(run);
    test.legion.close();
    const legion = reopen();
    const warnings = collectWarnings(legion);
    const resumed = (await legion.sessions.latest())!;
    expect(resumed.id).toBe(session.id);
    expect(await resumed.conversation({ initiator: 'user', responder: 'worker' }).recent(10)).toEqual(committed);

    const result = await legion.send(resumed, 'Did the job finish?');

    expect(result).toMatchObject({ status: 'success', reply: 'Back after the crash.' });
    test.assertScriptsDone();
    const messages = messagesOf(file);
    expect(messages.slice(0, 2)).toEqual(committed);
    expect(messages.slice(2).map(({ role, content }) => ({ role, content }))).toEqual([
      {
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 'hang-1', content: expect.stringMatching(/^interrupted: .*hang/), isError: true }],
      },
      { role: 'user', content: [{ type: 'text', text: 'Did the job finish?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Back after the crash.' }] },
    ]);
    // The model saw the whole history, with the interrupted result before the new message.
    const request = test.providers.worker!.requests[0]!;
    expect(request.messages).toEqual(messages.slice(0, 4));
    expectEveryToolUseAnswered(request.messages);
    expect(warnings).toEqual([]);
    // The dead child's lock was taken over and released.
    expect(existsSync(lockFile)).toBe(false);
  });

  it('survives SIGKILL at many points of busy multi-step turns: the files stay readable and the next turn appends cleanly', async () => {
    const stepsPerTurn = 20;
    const rounds = 8;
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), mockParticipant('echo', [{ trigger: '*', response: 'echoed' }])],
      entryAgent: 'coordinator',
      scripts: {
        // The parent's turns only answer, after checking that the history it is given is consistent.
        coordinator: (request) => {
          expectEveryToolUseAnswered(request.messages);
          return { text: `resumed after ${textOf(request.messages.at(-1)!)}` };
        },
      },
    });
    const session = await test.legion.sessions.create();
    test.legion.close();
    const conversationsDir = join(sessionDir(session.id), 'conversations');
    // A child killed right after it opened the workspace may not have created any yet.
    const conversationFiles = (): string[] =>
      existsSync(conversationsDir) ? readdirSync(conversationsDir).filter((name) => name.endsWith('.jsonl')) : [];

    for (let round = 0; round < rounds; round++) {
      // Round 0 kills as soon as the workspace is open; the others after a random amount of progress,
      // over the first few turns. The child runs on while the parent reads its output, so the kill
      // lands somewhere in the middle of its work.
      const killAfterStep = round === 0 ? 0 : 1 + Math.floor(Math.random() * stepsPerTurn * 2.5);
      const label = `round ${round} (killed after STEP ${killAfterStep})`;
      const run = runFixture('busy-turns.mjs', [test.root, session.id, String(stepsPerTurn)]);
      await run.waitFor((line) => line === 'READY', 'READY');
      if (killAfterStep > 0)
        await run.waitFor((line) => Number(/^STEP (\d+)$/.exec(line)?.[1] ?? 0) >= killAfterStep, `STEP ${killAfterStep}`);
      await kill(run);
      expect(
        run.lines().filter((line) => line.startsWith('TURN_FAILED')),
        label,
      ).toEqual([]);

      // The dead child's locks stay behind (some may even be empty, if it died between creating and
      // writing one); the next turn must take them over rather than wait forever.
      const torn = new Map<string, string>();
      for (const entry of conversationFiles()) {
        const { entries, tornTail } = readLogFile(join(conversationsDir, entry));
        expect(entries[0], `${label}: ${entry} starts with its header`).toMatchObject({
          kind: 'header',
          version: CONVERSATION_FORMAT_VERSION,
        });
        if (tornTail !== undefined) torn.set(entry, tornTail);
      }

      const legion = reopen();
      const warnings = collectWarnings(legion);
      const reopened = await legion.sessions.get(session.id);
      for (const ref of await reopened.listConversations()) await reopened.conversation(ref).recent(5);
      // A torn last line is reported, never a failure; nothing else is.
      expect(new Set(warnings.map((warning) => warning.path.split('/').at(-1))), label).toEqual(new Set(torn.keys()));

      const result = await legion.send(reopened, `resume ${round}`);
      expect(result, label).toMatchObject({ status: 'success', reply: `resumed after resume ${round}` });
      legion.close();

      // Read back as the next process will: the new turn is the last thing in the file, intact.
      const file = conversationFile(session.id, 'user__coordinator');
      const { tornTail } = readLogFile(file);
      expect(tornTail, label).toBeUndefined();
      expect(
        messagesOf(file)
          .slice(-2)
          .map((message) => [message.role, textOf(message)]),
        label,
      ).toEqual([
        ['user', `resume ${round}`],
        ['assistant', `resumed after resume ${round}`],
      ]);
    }

    // Over all the crashes, no tool_use was left without its result, and every file reads cleanly.
    expectEveryToolUseAnswered(messagesOf(conversationFile(session.id, 'user__coordinator')));
    expect(conversationFiles()).toEqual(['coordinator__echo.jsonl', 'user__coordinator.jsonl']);
    for (const entry of conversationFiles()) {
      expect(readLogFile(join(conversationsDir, entry)).tornTail).toBeUndefined();
    }
    const final = reopen();
    const warnings = collectWarnings(final);
    expect((await (await final.sessions.get(session.id)).recentMessages(4)).map(({ message }) => textOf(message))).toContain(
      `resumed after resume ${rounds - 1}`,
    );
    expect(warnings).toEqual([]);
  }, 90_000);

  it('drops a torn last line with a warning on load, keeps its bytes in a .torn- file at the next append, and reads on cleanly', async () => {
    test = createTestLegion({ participants: [userParticipant(), mockParticipant('echo', [{ trigger: '*', response: 'pong' }])] });
    const session = await test.legion.sessions.create();
    await test.legion.send(session, 'one', { to: 'echo' });
    test.legion.close();
    const file = conversationFile(session.id, 'user__echo');
    const conversationsDir = join(sessionDir(session.id), 'conversations');
    const intact = readFileSync(file);
    const fullLine = JSON.stringify({
      kind: 'message',
      id: 'torn-1',
      role: 'user',
      content: [{ type: 'text', text: 'cut off by a crash' }],
      at: new Date().toISOString(),
    });
    const tornBytes = fullLine.slice(0, Math.floor(fullLine.length / 2));
    appendFileSync(file, tornBytes);

    const legion = reopen();
    const warnings = collectWarnings(legion);
    const reopened = await legion.sessions.get(session.id);
    expect((await reopened.recentMessages(10)).map(({ message }) => textOf(message))).toEqual(['one', 'pong']);
    expect(warnings).toEqual([
      { path: expect.stringMatching(/user__echo\.jsonl$/), offset: intact.length, problem: expect.stringContaining('torn last line') },
    ]);
    // Loading only reads.
    expect(readFileSync(file)).toEqual(Buffer.concat([intact, Buffer.from(tornBytes)]));
    expect(readdirSync(conversationsDir)).toEqual(['user__echo.jsonl']);

    const result = await legion.send(reopened, 'two', { to: 'echo' });

    expect(result).toMatchObject({ status: 'success', reply: 'pong' });
    const sideFiles = readdirSync(conversationsDir).filter((entry) => entry !== 'user__echo.jsonl');
    expect(sideFiles).toEqual([expect.stringMatching(/^user__echo\.jsonl\.torn-/)]);
    expect(readFileSync(join(conversationsDir, sideFiles[0]!), 'utf8')).toBe(tornBytes);
    expect(warnings.at(-1)).toMatchObject({ offset: intact.length, problem: expect.stringContaining(sideFiles[0]!) });
    const { entries, tornTail } = readLogFile(file);
    expect(tornTail).toBeUndefined();
    expect(readFileSync(file).subarray(0, intact.length)).toEqual(intact);
    expect(entries.map((entry) => (entry.kind === 'message' ? entry.role : entry.kind))).toEqual([
      'header',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);

    const again = reopen();
    const laterWarnings = collectWarnings(again);
    expect((await (await again.sessions.get(session.id)).recentMessages(10)).map(({ message }) => textOf(message))).toEqual([
      'one',
      'pong',
      'two',
      'pong',
    ]);
    expect(laterWarnings).toEqual([]);
  });

  it('a process that loaded the history while a torn line was present still sees what another process appends after cutting it', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'worker',
      scripts: {
        worker: [
          { text: 'first answer' },
          { text: 'second answer' },
          {
            expect: (request) => expect(request.messages.map(textOf)).toEqual(['one', 'first answer', 'two', 'second answer', 'three']),
            text: 'third answer',
          },
        ],
      },
    });
    const session = await test.legion.sessions.create();
    await test.legion.send(session, 'one');
    test.legion.close();
    appendFileSync(conversationFile(session.id, 'user__worker'), '{"kind":"message","id":"torn-1","role":"assist');

    // One process shows the conversation's context (outside a turn) while the torn line is there…
    const viewer = reopen();
    const viewed = await viewer.sessions.get(session.id);
    expect((await viewed.conversation({ initiator: 'user', responder: 'worker' }).history()).map(textOf)).toEqual(['one', 'first answer']);
    // …another one takes a turn, which cuts the torn line and appends…
    const other = reopen();
    expect(await other.send(await other.sessions.get(session.id), 'two')).toMatchObject({ status: 'success', reply: 'second answer' });
    // …and the first one's next turn gives its model everything, in order.
    expect(await viewer.send(viewed, 'three')).toMatchObject({ status: 'success', reply: 'third answer' });
    test.assertScriptsDone();
  });

  it('two processes sending to one conversation at once take turns: the file is well-formed and strictly alternates', async () => {
    const perProcess = 10;
    const prefixes = ['alpha', 'beta'];
    const texts = prefixes.flatMap((prefix) => Array.from({ length: perProcess }, (_, index) => `${prefix}-${index}`));
    test = createTestLegion({
      participants: [
        userParticipant(),
        // A distinct reply per message, and a delay so that turns take long enough to overlap.
        mockParticipant(
          'echo',
          texts.map((text) => ({ trigger: `/^${text}$/`, response: `ack ${text}`, delayMs: 10 })),
        ),
      ],
    });
    const session = await test.legion.sessions.create();
    test.legion.close();

    const runs = prefixes.map((prefix) => runFixture('send-many.mjs', [test!.root, session.id, prefix, String(perProcess)]));
    await Promise.all(runs.map((run) => run.waitFor((line) => line === 'READY', 'READY')));
    for (const run of runs) run.child.stdin.write('go\n');
    const done = await Promise.all(runs.map((run) => run.waitFor((line) => line.startsWith('DONE '), 'DONE')));
    for (const run of runs) expect(await run.exited).toEqual({ code: 0, signal: null });

    // Each process got the reply to each of its own messages.
    done.forEach((line, index) => {
      const prefix = prefixes[index]!;
      expect(JSON.parse(line.slice('DONE '.length))).toEqual(Array.from({ length: perProcess }, (_, n) => `ack ${prefix}-${n}`));
    });
    const file = conversationFile(session.id, 'user__echo');
    const { entries, tornTail } = readLogFile(file);
    expect(tornTail).toBeUndefined();
    expect(entries[0]).toMatchObject({ kind: 'header', conversationId: 'user__echo' });
    expect(entries.filter((entry) => entry.kind === 'header')).toHaveLength(1);
    const messages = messagesOf(file);
    expect(messages).toHaveLength(entries.length - 1);
    expect(messages).toHaveLength(4 * perProcess);
    // Turn by turn: a user message, then the reply to exactly that message.
    const turns = [];
    for (let index = 0; index < messages.length; index += 2) {
      turns.push([messages[index]!.role, textOf(messages[index]!), messages[index + 1]!.role, textOf(messages[index + 1]!)]);
    }
    expect(turns).toEqual(turns.map(([, text]) => ['user', text, 'assistant', `ack ${text}`]));
    expect(turns.map(([, text]) => text).sort()).toEqual([...texts].sort());
    // Each process's own messages are in its sending order.
    for (const prefix of prefixes) {
      const own = turns.map(([, text]) => text as string).filter((text) => text.startsWith(`${prefix}-`));
      expect(own).toEqual(texts.filter((text) => text.startsWith(`${prefix}-`)));
    }
    expect(readdirSync(join(sessionDir(session.id), 'locks'))).toEqual([]);
  });

  it('in one process, a second concurrent send refuses with ifBusy "fail" and queues with "wait"', async () => {
    test = createTestLegion({
      participants: [userParticipant(), mockParticipant('slow', [{ trigger: '*', response: 'done', delayMs: 20 }])],
    });
    const session = await test.legion.sessions.create();
    const send = (message: string, ifBusy: 'fail' | 'wait') => session.send({ from: 'user', to: 'slow', message, ifBusy });

    const [first, second] = await Promise.allSettled([send('first', 'fail'), send('second', 'fail')]);

    expect(first).toEqual({
      status: 'fulfilled',
      value: { status: 'success', reply: 'done', message: undefined, conversationId: 'user__slow' },
    });
    expect(second.status).toBe('rejected');
    const busy = (second as PromiseRejectedResult).reason as unknown;
    expect(busy).toBeInstanceOf(ConversationBusyError);
    expect(busy).toMatchObject({ code: 'conversation_busy', conversationId: 'user__slow' });

    const queued = await Promise.all([send('third', 'wait'), send('fourth', 'wait')]);

    expect(queued.map((result) => result.status === 'success' && result.reply)).toEqual(['done', 'done']);
    const messages = messagesOf(conversationFile(session.id, 'user__slow'));
    expect(messages.map((message) => `${message.role}: ${textOf(message)}`)).toEqual([
      'user: first',
      'assistant: done',
      'user: third',
      'assistant: done',
      'user: fourth',
      'assistant: done',
    ]);
  });
});
