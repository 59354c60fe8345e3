import { z } from 'zod';
import type { LegionEvent } from '../../kernel/events/event-types.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { defineTool } from '../../tools/tool.js';
import type { Message } from '../../kernel/message.js';
import type { ModelRequest } from '../../model/providers/llm-provider.js';

const lastResult = (messages: readonly Message[]) => {
  const block = messages.at(-1)!.content[0]!;
  if (block.type !== 'tool_result') throw new Error(`expected a tool_result, got ${block.type}`);
  return block;
};

/**
 * Resolves when `event` happens, or after 10 s at most. Turns that must overlap wait for each other's events, not
 * for a time (a loaded machine may start one turn later than another ends); if the event never comes, the
 * test's own assertions then say what went wrong.
 */
function atMost10s(event: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([event, new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000)))]).finally(() => clearTimeout(timer));
}

/** A promise and the function that resolves it. */
function signal(): { happened: Promise<void>; happen: () => void } {
  let happen!: () => void;
  const happened = new Promise<void>((resolve) => (happen = resolve));
  return { happened, happen };
}

describe('AgentRuntime and communicate', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('refuses circular delegation with a result the model can act on', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('developer')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [{ toolCalls: [{ name: 'communicate', input: { to: 'developer', message: 'do it' } }] }, { text: 'done' }],
        developer: [
          { toolCalls: [{ name: 'communicate', input: { to: 'coordinator', message: 'what exactly?' } }] },
          {
            expect: (request) => {
              const result = lastResult(request.messages);
              expect(result.isError).toBe(true);
              expect(result.content).toContain('"coordinator" is already working on this request');
              expect(result.content).toContain('user → coordinator → developer → coordinator');
            },
            text: 'I will decide myself',
          },
        ],
      },
    });
    const result = await test.legion.send(await test.legion.sessions.create(), 'go');
    expect(result).toMatchObject({ status: 'success', reply: 'done' });
    test.assertScriptsDone();
  });

  it('enforces the depth limit', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator', { limits: { maxDepth: 1 } }), agentParticipant('developer')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'developer', message: 'do it' } }] },
          {
            expect: (request) => expect(lastResult(request.messages).content).toMatch(/depth limit reached \(2 > 1\)/),
            text: 'did it myself',
          },
        ],
      },
    });
    expect(await test.legion.send(await test.legion.sessions.create(), 'go')).toMatchObject({ reply: 'did it myself' });
    test.assertScriptsDone();
  });

  it("refuses delegation outside the agent's delegation permission and hides communicate when nobody is allowed", async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('coordinator', { delegation: ['reviewer'] }),
        agentParticipant('developer'),
        agentParticipant('reviewer', { delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          {
            expect: (request) => {
              expect(request.system).toContain('- reviewer');
              expect(request.system).not.toContain('- developer');
            },
            toolCalls: [{ name: 'communicate', input: { to: 'developer', message: 'x' } }],
          },
          {
            expect: (request) =>
              expect(lastResult(request.messages).content).toBe('coordinator may not communicate with "developer". Allowed: reviewer.'),
            text: 'ok',
          },
        ],
      },
    });
    await test.legion.send(await test.legion.sessions.create(), 'go');
    test.assertScriptsDone();

    const reviewer = createTestLegion({
      participants: [userParticipant(), agentParticipant('reviewer', { delegation: 'none' })],
      scripts: {
        reviewer: [{ expect: (request) => expect(request.tools.map((tool) => tool.name)).not.toContain('communicate'), text: 'hi' }],
      },
    });
    await reviewer.legion.send(await reviewer.legion.sessions.create(), 'hello', { to: 'reviewer' });
    reviewer.assertScriptsDone();
    reviewer.cleanup();
  });

  it('runs several communicate calls of one response concurrently and returns results in call order', async () => {
    // beta answers once both turns have started; alpha once beta's turn has ended, so results arrive out of call order.
    const bothStarted = signal();
    const betaEnded = signal();
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('alpha'), agentParticipant('beta')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          {
            toolCalls: [
              { id: 'a', name: 'communicate', input: { to: 'alpha', message: 'part A' } },
              { id: 'b', name: 'communicate', input: { to: 'beta', message: 'part B' } },
            ],
          },
          {
            expect: (request) =>
              expect(request.messages.at(-1)!.content).toEqual([
                { type: 'tool_result', toolUseId: 'a', content: 'A done' },
                { type: 'tool_result', toolUseId: 'b', content: 'B done' },
              ]),
            text: 'both done',
          },
        ],
        alpha: [async () => (await atMost10s(betaEnded.happened), { text: 'A done' })],
        beta: [async () => (await atMost10s(bothStarted.happened), { text: 'B done' })],
      },
    });
    const order: string[] = [];
    test.legion.events.onAny((event: LegionEvent) => {
      if ((event.type === 'turn:start' || event.type === 'turn:end') && event.participantId !== 'coordinator')
        order.push(`${event.type} ${event.participantId}`);
      if (order.filter((entry) => entry.startsWith('turn:start')).length === 2) bothStarted.happen();
      if (event.type === 'turn:end' && event.participantId === 'beta') betaEnded.happen();
    });
    expect(await test.legion.send(await test.legion.sessions.create(), 'go')).toMatchObject({ reply: 'both done' });
    expect(order.slice(0, 2).sort()).toEqual(['turn:start alpha', 'turn:start beta']);
    expect(order.slice(2)).toEqual(['turn:end beta', 'turn:end alpha']);
    test.assertScriptsDone();
  });

  it('a second communicate to a busy conversation gets a busy result instead of interleaving', async () => {
    // alpha's first turn answers only once the second call has its result: the conversation is busy until then.
    const secondAnswered = signal();
    const answerAlpha = async (request: ModelRequest): Promise<{ text: string }> => {
      const asked = request.messages.at(-1)?.content.find((block) => block.type === 'text');
      if (asked?.type === 'text' && asked.text === 'one') {
        await atMost10s(secondAnswered.happened);
        return { text: 'first' };
      }
      return { text: 'second' };
    };
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('alpha')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          {
            toolCalls: [
              { id: 'a', name: 'communicate', input: { to: 'alpha', message: 'one' } },
              { id: 'b', name: 'communicate', input: { to: 'alpha', message: 'two' } },
              { id: 'c', name: 'communicate', input: { to: 'alpha', message: 'three', conversation: 'side' } },
            ],
          },
          {
            expect: (request) => {
              const [a, b, c] = request.messages.at(-1)!.content;
              expect(a).toMatchObject({ content: 'first' });
              expect(b).toMatchObject({ isError: true });
              expect(b?.type === 'tool_result' && b.content).toContain('busy');
              expect(c).toMatchObject({ content: 'second' });
            },
            text: 'ok',
          },
        ],
        // Answered by what was asked, not by which call comes first: 'one' and 'three' reach alpha's model in either order.
        alpha: [answerAlpha, answerAlpha],
      },
    });
    test.legion.events.on('tool:result', (event) => {
      if (event.toolUse.id === 'b') secondAnswered.happen();
    });
    // The coordinator's second step checks the results: a failed check there ends the turn with an error.
    const result = await test.legion.send(await test.legion.sessions.create(), 'go');
    expect(result, JSON.stringify(result)).toMatchObject({ status: 'success', reply: 'ok' });
    test.assertScriptsDone();
  });

  it('stops at maxIterations with its own error and leaves every tool_use answered', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('looper', { limits: { maxIterations: 3 } })],
      scripts: {
        looper: (_request, index) => ({ toolCalls: [{ name: 'list_participants', input: { type: index % 2 ? 'agent' : 'user' } }] }),
      },
    });
    const session = await test.legion.sessions.create();
    const result = await test.legion.send(session, 'go', { to: 'looper' });
    expect(result).toMatchObject({ status: 'error', code: 'max_iterations' });
    expect(test.providers.looper!.callCount).toBe(3);
    const history = await session.conversation({ initiator: 'user', responder: 'looper' }).history();
    // Every call answered, then the turn's ending in the agent's place: the next message is not merged with 'go'.
    expect(history.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(history.at(-1)).toMatchObject({ ending: { status: 'failed', code: 'max_iterations' } });
  });

  it('detects a tool loop: the same call with the same input repeated is refused with a reason', async () => {
    let runs = 0;
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })],
      scripts: {
        solo: [
          { toolCalls: [{ name: 'probe', input: { x: 1 } }] },
          { toolCalls: [{ name: 'probe', input: { x: 1 } }] },
          { toolCalls: [{ name: 'probe', input: { x: 1 } }] },
          {
            expect: (request) =>
              expect(lastResult(request.messages).content).toMatch(/^Loop detected: you called probe with the same input 3 times/),
            text: 'stopping',
          },
        ],
      },
    });
    test.legion.tools.register(
      defineTool({
        name: 'probe',
        effect: 'read',
        description: 'p',
        inputSchema: z.object({ x: z.number() }),
        execute: async () => ({ status: 'success', data: ++runs }),
      }),
    );
    expect(await test.legion.send(await test.legion.sessions.create(), 'go', { to: 'solo' })).toMatchObject({ reply: 'stopping' });
    expect(runs).toBe(2);
    test.assertScriptsDone();
  });

  it('turns tool failures into error results and the loop continues', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('solo', { delegation: 'none', tools: ['boom', 'slow', 'strict', 'huge'], context: { toolSchemas: 'full' } }),
      ],
      scripts: {
        solo: [
          {
            toolCalls: [
              { id: '1', name: 'boom', input: {} },
              { id: '2', name: 'slow', input: {} },
              { id: '3', name: 'strict', input: { count: 'three' } },
              { id: '4', name: 'list_participants', input: {} },
              { id: '5', name: 'huge', input: {} },
            ],
          },
          {
            expect: (request) => {
              const results = request.messages.at(-1)!.content;
              expect(results.map((block) => block.type === 'tool_result' && block.toolUseId)).toEqual(['1', '2', '3', '4', '5']);
              const [boom, slow, strict, hidden, huge] = results.map((block) => (block.type === 'tool_result' ? block : undefined));
              expect(boom).toMatchObject({ isError: true, content: 'boom failed: disk on fire' });
              expect(slow).toMatchObject({ isError: true, content: 'slow timed out after 50 ms and was abandoned.' });
              expect(strict?.isError).toBe(true);
              expect(strict?.content).toMatch(/^Invalid input for strict: "count" expected a number/);
              expect(hidden?.content).toBe('Tool "list_participants" is not available to you. Available tools: boom, slow, strict, huge.');
              expect(huge?.isError).toBeUndefined();
              // The flood reaches the model as a bounded preview; the whole of it is the session's artifact.
              expect(huge!.content.length).toBeLessThan(101_000);
              expect(huge!.content).toMatch(/^\[Evicted to artifact "tool-5\.txt"/);
            },
            text: 'handled',
          },
        ],
      },
    });
    const tools = test.legion.tools;
    tools.register(
      defineTool({
        name: 'boom',
        effect: 'read',
        description: 'throws',
        inputSchema: z.object({}),
        execute: async () => {
          throw new Error('disk on fire');
        },
      }),
    );
    tools.register(
      defineTool({
        name: 'slow',
        effect: 'read',
        description: 'hangs',
        inputSchema: z.object({}),
        timeoutMs: 50,
        execute: () => new Promise(() => {}),
      }),
    );
    tools.register(
      defineTool({
        name: 'strict',
        effect: 'read',
        description: 'typed',
        inputSchema: z.object({ count: z.number() }),
        execute: async () => ({ status: 'success', data: 'ok' }),
      }),
    );
    tools.register(
      defineTool({
        name: 'huge',
        effect: 'read',
        description: 'floods',
        inputSchema: z.object({}),
        execute: async () => ({ status: 'success', data: 'x'.repeat(5_000_000) }),
      }),
    );
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'go', { to: 'solo' })).toMatchObject({ reply: 'handled' });
    expect((await session.artifacts.getText('tool-5.txt'))?.length).toBe(5_000_000);
    test.assertScriptsDone();
  });

  it('lets an agent ask the user even though the user is in the chain', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { toolCalls: [{ name: 'communicate', input: { to: 'user', message: 'Which port?' } }] },
          { expect: (request) => expect(lastResult(request.messages).content).toBe('8080'), text: 'Using 8080' },
        ],
      },
    });
    const questions: string[] = [];
    test.legion.attachUser({
      medium: 'test',
      ask: async (question) => {
        questions.push(`${question.chain.join('>')}: ${question.text}`);
        return '8080';
      },
    });
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'start the server')).toMatchObject({ reply: 'Using 8080' });
    expect(questions).toEqual(['user>coordinator: Which port?']);
    expect((await session.listConversations()).map((ref) => ref.conversationId)).toEqual(['coordinator__user', 'user__coordinator']);
  });

  it('ends the turn with an error naming the provider when the model call fails, keeping the log consistent', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })],
      scripts: { solo: [{ error: new Error('connection refused') }, { text: 'back again' }] },
    });
    const session = await test.legion.sessions.create();
    const failed = await test.legion.send(session, 'hi', { to: 'solo' });
    expect(failed).toMatchObject({ status: 'error', code: 'model_failed' });
    expect(failed.status === 'error' && failed.error).toContain('connection refused');
    expect(await test.legion.send(session, 'hi again', { to: 'solo' })).toMatchObject({ status: 'success', reply: 'back again' });
    test.assertScriptsDone();
  });
});
