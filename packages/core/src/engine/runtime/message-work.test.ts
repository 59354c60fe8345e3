import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParticipantInput } from '../../team/collective/participant.js';
import type { Legion } from '../../Legion.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import {
  startWindowLimitedServer,
  type WindowLimitedReply,
  type WindowLimitedRequest,
  type WindowLimitedServer,
} from '../../testing/window-limited-server.js';

type WireMessage = { role: string; content: string | Array<Record<string, unknown>> };

const FAN_OUT = 20;

/** Adds fields to the workspace config; the Legion opened next reads them. */
function configure(test: TestLegion, fields: Record<string, unknown>): void {
  const file = join(test.root, '.legion', 'config.json');
  writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), ...fields }));
}

const roleOf = (request: WindowLimitedRequest): string => /ROLE:(\w+)/.exec(JSON.stringify(request.body['system'] ?? ''))?.[1] ?? 'unknown';
const lastMessage = (request: WindowLimitedRequest): WireMessage => (request.body['messages'] as WireMessage[]).at(-1)!;
const blocksOf = (message: WireMessage): Array<Record<string, unknown>> =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
const resultTexts = (request: WindowLimitedRequest): string[] =>
  blocksOf(lastMessage(request))
    .filter((block) => block['type'] === 'tool_result')
    .map((block) => (typeof block['content'] === 'string' ? block['content'] : JSON.stringify(block['content'])));

/**
 * Each agent's model, as a server would answer it: the coordinator sends 20 tasks to workers (each in
 * its own thread), each worker sends 20 to helpers, helpers answer; once its tools answered, anyone
 * replies. Unbounded, one message makes 1 + 20 + 400 + 20 + 1 = 442 model calls and 420 delegations.
 */
function fanOut(request: WindowLimitedRequest): WindowLimitedReply {
  const last = lastMessage(request);
  if (blocksOf(last).some((block) => block['type'] === 'tool_result')) return { text: `${roleOf(request)} done` };
  const task =
    /task (\S+)/.exec(
      blocksOf(last)
        .map((block) => String(block['text'] ?? ''))
        .join(' '),
    )?.[1] ?? 'root';
  const calls = (to: string, prefix: string) =>
    Array.from({ length: FAN_OUT }, (_, index) => ({
      name: 'communicate',
      input: { to, message: `task ${prefix}${index + 1}`, conversation: `${prefix}${index + 1}` },
    }));
  if (roleOf(request) === 'coordinator') return { toolCalls: calls('worker', 'w') };
  if (roleOf(request) === 'worker') return { toolCalls: calls('helper', `${task}-h`) };
  return { text: `helper did ${task}` };
}

describe('the work one message may start (limits.maxModelCallsPerMessage, limits.maxDelegationsPerMessage)', () => {
  let server: WindowLimitedServer;
  let test: TestLegion | undefined;
  const opened: Legion[] = [];
  afterEach(async () => {
    for (const legion of opened.splice(0)) await legion.close();
    await test?.cleanup();
    test = undefined;
    await server?.close();
  });

  async function team(limits: Record<string, number>): Promise<{ legion: Legion; byRole: () => Record<string, number> }> {
    server = await startWindowLimitedServer({ window: 1_000_000, respond: fanOut, reportInputTokens: () => 10 });
    const agent = (id: string, delegation: string[] | 'none'): ParticipantInput =>
      ({
        ...agentParticipant(id, { systemPrompt: `ROLE:${id}`, tools: delegation === 'none' ? 'none' : ['communicate'], delegation }),
        model: { provider: 'anthropic', model: 'claude-test', baseURL: server.anthropicURL },
      }) as ParticipantInput;
    test = createTestLegion({
      participants: [userParticipant(), agent('coordinator', ['worker']), agent('worker', ['helper']), agent('helper', 'none')],
      entryAgent: 'coordinator',
      env: keyEnv(server.anthropicURL),
    });
    // All 20 of a response's delegations start at once, so which of them the bound refuses does not depend on timing.
    configure(test, { limits: { maxParallelDelegates: FAN_OUT, ...limits } });
    const legion = test.reopen();
    opened.push(legion);
    const byRole = () => {
      const counts: Record<string, number> = {};
      for (const request of server.requests) counts[roleOf(request)] = (counts[roleOf(request)] ?? 0) + 1;
      return counts;
    };
    return { legion, byRole };
  }

  it('by default, a 20 × 20 fan-out stops at 50 delegations: the rest are refused with a result naming the limit, and the coordinator still answers', async () => {
    const { legion, byRole } = await team({});
    const session = await legion.sessions.create();
    const result = await legion.send(session, 'Do everything');
    expect(result).toMatchObject({ status: 'success', reply: 'coordinator done' });
    // The coordinator's 20 delegations count first; 30 of the workers' 400 fit under the 50, the other 370 never start.
    expect(byRole()).toEqual({ coordinator: 2, worker: 40, helper: 30 });
    expect(server.requests).toHaveLength(72);
    const refusals = server.requests.flatMap(resultTexts).filter((text) => text.includes('limits.maxDelegationsPerMessage'));
    expect(refusals).toHaveLength(370);
    expect(refusals[0]).toContain(
      'has started 50 delegations across its whole delegation tree, its limit (limits.maxDelegationsPerMessage)',
    );
    expect(refusals[0]).toContain(
      'Raise limits.maxDelegationsPerMessage in .legion/config.json (legion config set limits.maxDelegationsPerMessage 100)',
    );
    // Usage is still counted, for every call that was made.
    expect((await session.usage()).total.calls).toBe(72);
  }, 120_000);

  it('with delegations allowed, the model-call bound (300 by default) stops the tree: exactly 300 requests, and the message ends with the named error', async () => {
    const { legion, byRole } = await team({ maxDelegationsPerMessage: 1_000 });
    const session = await legion.sessions.create();
    const result = await legion.send(session, 'Do everything');
    expect(result).toMatchObject({ status: 'error', code: 'message_work_limit' });
    const error = result.status === 'error' ? result.error : '';
    expect(error).toContain('has started 300 model calls across its whole delegation tree, its limit (limits.maxModelCallsPerMessage)');
    expect(error).toContain("coordinator's model was not called again");
    expect(error).toContain('legion config set limits.maxModelCallsPerMessage 600');
    // Not one request past the bound reached the server, though up to 400 delegates ran in parallel.
    expect(server.requests).toHaveLength(300);
    expect(byRole()['coordinator']).toBe(1);
    expect((await session.usage()).total.calls).toBe(300);
    // The next message is a new tree with a fresh count.
    server.requests.length = 0;
    configure(test!, { limits: { maxParallelDelegates: FAN_OUT, maxDelegationsPerMessage: 1_000, maxModelCallsPerMessage: 2 } });
    const small = test!.reopen();
    opened.push(small);
    const helperOnly = await small.send(await small.sessions.get(session.id), 'task solo', { to: 'helper' });
    expect(helperOnly).toMatchObject({ status: 'success', reply: 'helper did solo' });
  }, 120_000);

  it('raised in the workspace config, the bounds let the whole 442-call tree through', async () => {
    const { legion, byRole } = await team({ maxModelCallsPerMessage: 442, maxDelegationsPerMessage: 420 });
    const session = await legion.sessions.create();
    expect(await legion.send(session, 'Do everything')).toMatchObject({ status: 'success', reply: 'coordinator done' });
    expect(byRole()).toEqual({ coordinator: 2, worker: 40, helper: 400 });
  }, 120_000);
});
