import { z } from 'zod';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { SUMMARY_SYSTEM_MARK } from '../../model/context/compaction-summary.js';
import type { LLMProvider } from '../../model/providers/llm-provider.js';
import { defineTool } from '../../tools/tool.js';

/** Counts the AbortControllers made while `work` runs (Node's global, instrumented; nothing of Legion is replaced). */
async function countControllers(work: () => Promise<void>): Promise<number> {
  const Original = globalThis.AbortController;
  let made = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      made++;
    }
  };
  try {
    await work();
  } finally {
    globalThis.AbortController = Original;
  }
  return made;
}

describe('signals of turns and tool calls', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('makes one AbortController per tool call and none for turns and model calls in a long-lived process: their signals are reused once clean', async () => {
    const turns = 20;
    const script = [];
    for (let turn = 0; turn < turns; turn++)
      script.push({ toolCalls: [{ name: 'lookup', input: { word: `w${turn}` } }] }, { text: `done ${turn}` });
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: ['lookup'] })],
      entryAgent: 'worker',
      scripts: { worker: script },
    });
    test.legion.tools.register(
      defineTool({
        name: 'lookup',
        effect: 'read',
        description: 'Looks a word up.',
        inputSchema: z.object({ word: z.string() }),
        execute: async (input) => ({ status: 'success', data: `${input.word}: a word` }),
      }),
    );
    const session = await test.legion.sessions.create();
    const made = await countControllers(async () => {
      for (let turn = 0; turn < turns; turn++) {
        const result = await session.send({ from: 'user', to: 'worker', message: `request ${turn}`, conversation: `r${turn}` });
        expect(result).toMatchObject({ status: 'success', reply: `done ${turn}` });
      }
    });
    // Before: three per turn (the turn's, the model call's, the tool call's), each outliving young-generation GCs. Now the
    // turn's and the model call's are reused; a tool call's is always new (a tool may tie it to work that outlives the call).
    expect(made).toBeGreaterThanOrEqual(turns);
    expect(made).toBeLessThanOrEqual(turns + 2);
    test.assertScriptsDone();
  });

  it('a tool that reads its signal after its timeout, or after the turn was cancelled, finds it aborted with the reason', async () => {
    const seen: { tool: string; aborted: boolean; reason: unknown }[] = [];
    const controller = new AbortController();
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: ['late', 'watcher'] })],
      entryAgent: 'worker',
      scripts: {
        worker: [{ toolCalls: [{ id: '1', name: 'late', input: {} }] }, { toolCalls: [{ id: '2', name: 'watcher', input: {} }] }],
      },
    });
    let timedOut!: () => void;
    const afterTimeout = new Promise<void>((resolve) => (timedOut = resolve));
    test.legion.tools.register(
      defineTool({
        name: 'late',
        effect: 'read',
        description: 'Looks at its signal only after its timeout.',
        inputSchema: z.object({}),
        timeoutMs: 20,
        execute: async (_input, context) => {
          await new Promise((resolve) => setTimeout(resolve, 60));
          seen.push({ tool: 'late', aborted: context.signal.aborted, reason: context.signal.reason });
          timedOut();
          return { status: 'success', data: 'too late' };
        },
      }),
    );
    test.legion.tools.register(
      defineTool({
        name: 'watcher',
        effect: 'read',
        description: 'Reads its signal at once, then waits for the turn to be cancelled.',
        inputSchema: z.object({}),
        execute: (_input, context) =>
          new Promise((resolve) => {
            const signal = context.signal;
            signal.addEventListener('abort', () => {
              seen.push({ tool: 'watcher', aborted: signal.aborted, reason: signal.reason });
              resolve({ status: 'error', error: 'stopped' });
            });
            void afterTimeout.then(() => controller.abort('user pressed Ctrl-C'));
          }),
      }),
    );
    const session = await test.legion.sessions.create();
    const result = await session.send({ from: 'user', to: 'worker', message: 'go', signal: controller.signal });
    expect(result).toMatchObject({ status: 'error', code: 'cancelled' });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ tool: 'late', aborted: true });
    expect(String(seen[0]!.reason)).toContain('timeout');
    expect(seen[1]).toEqual({ tool: 'watcher', aborted: true, reason: 'user pressed Ctrl-C' });
  });
  it("a finished call's signal that its tool still listens on never carries a later call's cancellation", async () => {
    const controller = new AbortController();
    const stale = vi.fn();
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: ['keeper', 'hang'] })],
      entryAgent: 'worker',
      scripts: { worker: [{ toolCalls: [{ id: '1', name: 'keeper', input: {} }] }, { toolCalls: [{ id: '2', name: 'hang', input: {} }] }] },
    });
    test.legion.tools.register(
      defineTool({
        name: 'keeper',
        effect: 'read',
        description: 'Leaves a listener on its signal and returns.',
        inputSchema: z.object({}),
        execute: async (_input, context) => {
          context.signal.addEventListener('abort', stale);
          return { status: 'success', data: 'kept' };
        },
      }),
    );
    test.legion.tools.register(
      defineTool({
        name: 'hang',
        effect: 'read',
        description: 'Waits until cancelled.',
        inputSchema: z.object({}),
        execute: (_input, context) =>
          new Promise((resolve) => {
            context.signal.addEventListener('abort', () => resolve({ status: 'error', error: 'stopped' }));
            setImmediate(() => controller.abort('stop'));
          }),
      }),
    );
    const session = await test.legion.sessions.create();
    expect(await session.send({ from: 'user', to: 'worker', message: 'go', signal: controller.signal })).toMatchObject({
      status: 'error',
      code: 'cancelled',
    });
    expect(stale).not.toHaveBeenCalled();
  });

  it("a provider's work left tied to a finished model call's signal (AbortSignal.any, no listener to see) is never aborted by another conversation's cancel", async () => {
    const controller = new AbortController();
    let leftover: AbortSignal | undefined;
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: 'none' })],
      entryAgent: 'worker',
    });
    // A provider Legion does not own (providers.register / useFor take any LLMProvider): its first call leaves background
    // work on a signal derived from the call's; its second waits until cancelled.
    const provider: LLMProvider = {
      name: 'custom',
      model: 'custom-1',
      async *stream(_request, options) {
        const signal = options?.signal as AbortSignal;
        if (!leftover) {
          leftover = AbortSignal.any([signal]);
          yield { type: 'text-delta', text: 'first' };
          yield { type: 'finish', reason: 'stop' };
          return;
        }
        setImmediate(() => controller.abort('stop'));
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw signal.reason;
      },
    };
    test.legion.providers.useFor('worker', provider);
    const session = await test.legion.sessions.create();
    expect(await session.send({ from: 'user', to: 'worker', message: 'one', conversation: 'a' })).toMatchObject({
      status: 'success',
      reply: 'first',
    });
    expect(await session.send({ from: 'user', to: 'worker', message: 'two', conversation: 'b', signal: controller.signal })).toMatchObject({
      status: 'error',
      code: 'cancelled',
    });
    expect(leftover?.aborted).toBe(false);
  });

  it("a summarizer's work left tied to a compaction's signal is never aborted by another conversation's cancel", async () => {
    const controller = new AbortController();
    let leftover: AbortSignal | undefined;
    const context = { window: 8_000, outputReserve: 1_000, protectRecentTokens: 100_000, keepRecentMessages: 1 };
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { delegation: 'none', tools: 'none', context })],
      entryAgent: 'worker',
    });
    // The agent's own provider summarizes too (no summarizer model set): a provider Legion does not own.
    const provider: LLMProvider = {
      name: 'custom',
      model: 'custom-1',
      async *stream(request, options) {
        const signal = options?.signal as AbortSignal;
        if (JSON.stringify(request.system).includes(SUMMARY_SYSTEM_MARK)) leftover = AbortSignal.any([signal]);
        else if (controller.signal.aborted === false && leftover) {
          setImmediate(() => controller.abort('stop'));
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          throw signal.reason;
        }
        yield { type: 'text-delta', text: 'answer' };
        yield { type: 'finish', reason: 'stop' };
      },
    };
    test.legion.providers.useFor('worker', provider);
    const session = await test.legion.sessions.create();
    for (let turn = 0; turn < 3; turn++)
      expect(await session.send({ from: 'user', to: 'worker', message: `turn ${turn}` })).toMatchObject({ status: 'success' });
    expect(await session.compact('user__worker')).toMatchObject({ status: 'compacted' });
    expect(leftover?.aborted).toBe(false);
    expect(await session.send({ from: 'user', to: 'worker', message: 'two', conversation: 'b', signal: controller.signal })).toMatchObject({
      status: 'error',
      code: 'cancelled',
    });
    expect(leftover?.aborted).toBe(false);
  });
});
