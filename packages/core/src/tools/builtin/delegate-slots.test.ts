import type { LegionEvent } from '../../kernel/events/event-types.js';
import { textOf, type Message } from '../../kernel/message.js';
import type { LLMProvider, ModelRequest, StreamPart } from '../../model/providers/llm-provider.js';
import { DelegateSlots } from './delegate-slots.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';

/**
 * A delegate's model that holds every call until the test releases it, so the
 * calls running at once can be counted through the real runtime.
 */
class HeldModel implements LLMProvider {
  readonly name = 'held';
  readonly model = 'held';
  readonly held: Array<{ task: string; release: () => void }> = [];
  running = 0;
  peak = 0;
  constructor(private readonly changed: () => void) {}

  async *stream(request: ModelRequest): AsyncIterable<StreamPart> {
    const task = textOf(request.messages.at(-1) as Message);
    this.running += 1;
    this.peak = Math.max(this.peak, this.running);
    await new Promise<void>((release) => {
      this.held.push({ task, release });
      this.changed();
    });
    this.running -= 1;
    yield { type: 'text-delta', text: `done: ${task}` };
    yield { type: 'finish', reason: 'stop' };
  }
}

describe('limits.maxParallelDelegates', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('runs at most 8 of 12 delegations of one response at once; the rest queue, none is dropped, results in call order', async () => {
    const tasks = Array.from({ length: 12 }, (_, index) => `task ${index + 1}`);
    const waiters: Array<{ ready: () => boolean; resolve: () => void }> = [];
    const changed = (): void => {
      for (const waiter of [...waiters]) if (waiter.ready()) waiters.splice(waiters.indexOf(waiter), 1) && waiter.resolve();
    };
    const until = (ready: () => boolean): Promise<void> =>
      ready() ? Promise.resolve() : new Promise((resolve) => waiters.push({ ready, resolve }));
    const model = new HeldModel(changed);
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead'), agentParticipant('dev', { delegation: 'none' })],
      entryAgent: 'lead',
      scripts: {
        lead: [
          {
            toolCalls: tasks.map((task, index) => ({
              id: `call_${index + 1}`,
              name: 'communicate',
              input: { to: 'dev', message: task, conversation: `c${index + 1}` },
            })),
          },
          {
            expect: (request) => {
              const results = request.messages.at(-1)!.content;
              expect(results.map((block) => (block.type === 'tool_result' ? [block.toolUseId, block.content] : block.type))).toEqual(
                tasks.map((task, index) => [`call_${index + 1}`, `done: ${task}`]),
              );
            },
            text: 'all twelve done',
          },
        ],
      },
    });
    test.legion.providers.useFor('dev', model);
    const queued: Array<Extract<LegionEvent, { type: 'delegation:queued' }>> = [];
    const dequeued: string[] = [];
    test.legion.events.on('delegation:queued', (event) => {
      queued.push(event);
      changed();
    });
    test.legion.events.on('delegation:dequeued', (event) => dequeued.push(event.toolUseId));

    const reply = test.legion.send(await test.legion.sessions.create(), 'Do the twelve tasks');
    // Every call has either reached the model or been told to wait.
    await until(() => model.held.length + queued.length >= 12);
    expect(model.running).toBe(8);
    expect(model.held.map((call) => call.task)).toEqual(tasks.slice(0, 8));
    expect(queued.map((event) => [event.toolUseId, event.position, event.limit])).toEqual(
      [9, 10, 11, 12].map((n, index) => [`call_${n}`, index + 1, 8]),
    );
    // Each slot freed starts the next waiting call, in call order; never more than 8 at once.
    for (let released = 0; released < 12; released++) {
      const next = model.held.find((call) => call.task === tasks[released])!;
      next.release();
      if (released + 8 < 12) await until(() => model.held.length === released + 9);
    }
    expect(await reply).toMatchObject({ status: 'success', reply: 'all twelve done' });
    expect(model.peak).toBe(8);
    expect(dequeued).toEqual(['call_9', 'call_10', 'call_11', 'call_12']);
    test.assertScriptsDone();
  });

  it('lets a waiting call that is cancelled leave the queue without taking a slot', async () => {
    const slots = new DelegateSlots(1);
    const running = new AbortController();
    expect(await slots.acquire(running.signal, () => undefined)).toBe('started');
    const cancelled = new AbortController();
    const positions: number[] = [];
    const waiting = slots.acquire(cancelled.signal, ({ position }) => positions.push(position));
    const next = slots.acquire(new AbortController().signal, ({ position }) => positions.push(position));
    expect(positions).toEqual([1, 2]);
    cancelled.abort();
    expect(await waiting).toBe('cancelled');
    slots.release();
    expect(await next).toBe('started');
    slots.release();
    expect(slots.idle).toBe(true);
  });
});
