import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { ParticipantInput } from '../../../team/index.js';
import type { Legion } from '../../../Legion.js';
import { keyEnv } from '../../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../../testing/index.js';
import {
  a2aAgentMessage,
  A2aAgentEvent,
  A2aTaskState,
  a2aText,
  startA2aAgentServer,
  type A2aAgentServer,
} from '../../../testing/a2a-agent-server.js';
import {
  startWindowLimitedServer,
  type WindowLimitedReply,
  type WindowLimitedRequest,
  type WindowLimitedServer,
} from '../../../testing/window-limited-server.js';

type WireMessage = { role: string; content: string | Array<Record<string, unknown>> };
const lastMessage = (request: WindowLimitedRequest): WireMessage => (request.body['messages'] as WireMessage[]).at(-1)!;
const blocksOf = (message: WireMessage): Array<Record<string, unknown>> =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
/** The tool result the coordinator's model reads in this request, or undefined when the request carries a user's message. */
const toolResult = (request: WindowLimitedRequest): string | undefined => {
  const block = blocksOf(lastMessage(request)).find((item) => item['type'] === 'tool_result');
  if (!block) return undefined;
  return typeof block['content'] === 'string' ? block['content'] : JSON.stringify(block['content']);
};
const userText = (request: WindowLimitedRequest): string =>
  blocksOf(lastMessage(request))
    .map((block) => String(block['text'] ?? ''))
    .join(' ');
const communicate = (message: string): WindowLimitedReply => ({ toolCalls: [{ name: 'communicate', input: { to: 'painter', message } }] });

/** What the remote painter was sent: each message's text, its task and its context. */
interface Seen {
  text: string;
  taskId: string;
  contextId: string;
  continued: boolean;
}

/**
 * The remote painter, as any A2A agent would answer: it streams its painting in two chunks and reports
 * usage; it asks which colour before painting a fence, and paints once told; it works slowly until
 * cancelled; it fails when out of paint.
 */
class Painter implements AgentExecutor {
  readonly seen: Seen[] = [];
  readonly cancelled: string[] = [];
  private readonly waiting = new Map<string, () => void>();
  private startedSlow: (() => void) | undefined;
  readonly slowStarted = new Promise<void>((resolve) => (this.startedSlow = resolve));

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = context.userMessage.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
    const { taskId, contextId } = context;
    this.seen.push({ text, taskId, contextId, continued: context.task !== undefined });
    const status = (state: A2aTaskState, said?: string, metadata?: Record<string, unknown>) =>
      bus.publish(
        A2aAgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: said === undefined ? undefined : a2aAgentMessage(said, taskId, contextId),
            timestamp: new Date().toISOString(),
          },
          metadata,
        }),
      );
    const artifact = (chunk: string, append: boolean) =>
      bus.publish(
        A2aAgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: 'painting',
            name: 'painting',
            description: '',
            parts: [a2aText(chunk)],
            metadata: undefined,
            extensions: [],
          },
          append,
          lastChunk: append,
          metadata: undefined,
        }),
      );
    bus.publish(
      A2aAgentEvent.task(
        context.task ?? {
          id: taskId,
          contextId,
          status: { state: A2aTaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [context.userMessage],
          metadata: undefined,
        },
      ),
    );
    status(A2aTaskState.TASK_STATE_WORKING);
    if (context.task) {
      artifact(`Painted the fence ${text}.`, false);
      status(A2aTaskState.TASK_STATE_COMPLETED);
    } else if (text.includes('fence')) {
      status(A2aTaskState.TASK_STATE_INPUT_REQUIRED, 'Which colour should the fence be?');
    } else if (text.includes('slowly')) {
      await new Promise<void>((resolve) => {
        this.waiting.set(taskId, resolve);
        this.startedSlow?.();
      });
      status(A2aTaskState.TASK_STATE_CANCELED, 'Stopped.');
    } else if (text.includes('mural')) {
      artifact('A mural, wall to wall, '.repeat(10), false);
      await new Promise<void>((resolve) => this.waiting.set(taskId, resolve));
      status(A2aTaskState.TASK_STATE_CANCELED);
    } else if (text.includes('no paint')) {
      status(A2aTaskState.TASK_STATE_FAILED, 'I am out of paint.');
    } else {
      artifact('A cat, ', false);
      artifact('painted in oils.', true);
      status(A2aTaskState.TASK_STATE_COMPLETED, undefined, { usage: { inputTokens: 12, outputTokens: 34 } });
    }
    bus.finished();
  }

  async cancelTask(taskId: string): Promise<void> {
    this.cancelled.push(taskId);
    this.waiting.get(taskId)?.();
  }
}

describe('a remote A2A agent as a participant', () => {
  let model: WindowLimitedServer;
  let remote: A2aAgentServer;
  let painter: Painter;
  let test: TestLegion | undefined;
  const opened: Legion[] = [];

  afterEach(async () => {
    for (const legion of opened.splice(0)) await legion.close();
    await test?.cleanup();
    test = undefined;
    await model?.close();
    await remote?.close();
  });

  /** A coordinator whose model answers with `respond`, and the painter at the remote's card URL; credentials in the global config. */
  async function team(
    respond: (request: WindowLimitedRequest) => WindowLimitedReply,
    options: { streaming?: boolean; limits?: Record<string, number> } = {},
  ): Promise<Legion> {
    painter = new Painter();
    remote = await startA2aAgentServer({ executor: painter, ...(options.streaming === undefined ? {} : { streaming: options.streaming }) });
    model = await startWindowLimitedServer({ window: 1_000_000, respond, reportInputTokens: () => 10 });
    test = createTestLegion({
      participants: [
        userParticipant(),
        {
          ...agentParticipant('coordinator', { tools: ['communicate'], delegation: ['painter'], limits: { maxReplyBytes: 1_048_576 } }),
          model: { provider: 'anthropic', model: 'claude-test', baseURL: model.anthropicURL },
        } as ParticipantInput,
        { id: 'painter', type: 'a2a', name: 'Painter', url: remote.cardUrl } as ParticipantInput,
      ],
      entryAgent: 'coordinator',
      env: keyEnv(model.anthropicURL),
    });
    // The global config (createTestLegion's is this file): the one place a remote's credentials may be written.
    writeFileSync(
      join(test.root, 'no-global-config.json'),
      JSON.stringify({ remoteAgents: { [remote.origin]: { headers: { Authorization: 'Bearer s3cret' } } } }),
    );
    if (options.limits) {
      const workspaceConfig = join(test.root, '.legion', 'config.json');
      const fields = JSON.parse(readFileSync(workspaceConfig, 'utf8')) as { limits?: Record<string, number> };
      writeFileSync(workspaceConfig, JSON.stringify({ ...fields, limits: { ...fields.limits, ...options.limits } }));
    }
    const legion = test.reopen();
    opened.push(legion);
    return legion;
  }

  it("delegates to it: the message goes as an A2A message with the global config's credentials, the streamed answer is the result, its usage is counted", async () => {
    const legion = await team((request) => {
      const result = toolResult(request);
      return result === undefined ? communicate('paint a cat') : { text: `The painter says: ${result}` };
    });
    const session = await legion.sessions.create();
    const deltas: string[] = [];
    legion.events.on('text:delta', (event) => {
      if (event.participantId === 'painter') deltas.push(event.text);
    });

    const result = await legion.send(session, 'Get me a painting of a cat');

    expect(result).toMatchObject({ status: 'success', reply: 'The painter says: A cat, painted in oils.' });
    expect(deltas).toEqual(['A cat, ', 'painted in oils.']);
    expect(JSON.stringify(model.requests[0]!.body['system'])).toContain('- painter (Painter, a remote agent)');
    expect(painter.seen).toEqual([expect.objectContaining({ text: 'paint a cat', continued: false })]);
    const calls = remote.requests.filter((request) => request.path === '/a2a');
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call.headers['authorization']).toBe('Bearer s3cret');
    expect((await session.usage()).byParticipant['painter']?.own).toMatchObject({ inputTokens: 12, outputTokens: 34 });
  });

  it('its question comes back to the asker, who passes it up to the user; the answer, after a restart, continues the same task', async () => {
    const legion = await team((request) => {
      const result = toolResult(request);
      if (result === undefined) return communicate(userText(request).includes('fence') ? 'paint the fence' : userText(request));
      if (result.includes('question from Painter')) return { text: `Painter asks: ${result}` };
      return { text: `Done: ${result}` };
    });
    const session = await legion.sessions.create();

    const asked = await legion.send(session, 'Have the fence painted');
    expect(asked.status).toBe('success');
    const question = asked.status === 'success' ? asked.reply : '';
    expect(question).toContain('Which colour should the fence be?');
    expect(question).toContain('communicate with "painter"');

    // Another process takes the answer: the task and context come from the conversation's log.
    const reopened = test!.reopen();
    opened.push(reopened);
    const answered = await reopened.send(await reopened.sessions.get(session.id), 'blue');

    expect(answered).toMatchObject({ status: 'success', reply: 'Done: Painted the fence blue.' });
    expect(painter.seen).toHaveLength(2);
    const [first, second] = painter.seen;
    expect(second).toMatchObject({ text: 'blue', continued: true, taskId: first!.taskId, contextId: first!.contextId });
  });

  it('a failed remote task is an error result that says so', async () => {
    const legion = await team((request) => {
      const result = toolResult(request);
      return result === undefined ? communicate('paint with no paint') : { text: `Heard: ${result}` };
    });
    const result = await legion.send(await legion.sessions.create(), 'Try it');
    expect(result.status).toBe('success');
    expect(result.status === 'success' ? result.reply : '').toMatch(
      /^Heard: .*painter could not answer: Painter's task was failed: I am out of paint\./,
    );
  });

  it('cancelling the turn reaches the remote: its executor is asked to cancel the task, and the turn settles', async () => {
    const legion = await team((request) => (toolResult(request) === undefined ? communicate('paint slowly') : { text: 'unexpected' }));
    const session = await legion.sessions.create();
    const stop = new AbortController();
    const sending = legion.send(session, 'Paint, slowly', { signal: stop.signal });
    await painter.slowStarted;
    stop.abort();

    expect(await sending).toMatchObject({ status: 'error', code: 'cancelled' });
    expect(painter.cancelled).toEqual([painter.seen[0]!.taskId]);
  });

  it('a remote whose card does not stream is sent the message whole, and its answer is the result', async () => {
    const legion = await team(
      (request) => {
        const result = toolResult(request);
        return result === undefined ? communicate('paint a cat') : { text: `The painter says: ${result}` };
      },
      { streaming: false },
    );
    const result = await legion.send(await legion.sessions.create(), 'Get me a painting of a cat');
    expect(result).toMatchObject({ status: 'success', reply: 'The painter says: A cat, painted in oils.' });
  });

  it('an answer past limits.maxReplyBytes is cut there and marked, and the remote task is cancelled', async () => {
    const legion = await team(
      (request) => {
        const result = toolResult(request);
        return result === undefined ? communicate('paint a mural') : { text: `Got: ${result}` };
      },
      { limits: { maxReplyBytes: 100 } },
    );
    const result = await legion.send(await legion.sessions.create(), 'A mural, please');
    expect(result.status).toBe('success');
    const reply = result.status === 'success' ? result.reply : '';
    expect(reply).toContain(`Got: ${'A mural, wall to wall, '.repeat(10).slice(0, 100)}`);
    expect(reply).toContain('[Painter was stopped here: its answer passed limits.maxReplyBytes (100 bytes).]');
    expect(painter.cancelled).toEqual([painter.seen[0]!.taskId]);
  });
});
