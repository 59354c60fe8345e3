import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { ParticipantInput } from '../../team/collective/participant.js';
import type { Legion } from '../../Legion.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';

/** Adds fields to the workspace config; the Legion opened next reads them. */
function configure(test: TestLegion, fields: Record<string, unknown>): void {
  const file = join(test.root, '.legion', 'config.json');
  writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), ...fields }));
}

const todo = (text: string) => ({ toolCalls: [{ name: 'todo_write', input: { items: [{ id: '1', text, status: 'in_progress' }] } }] });

describe('session budgets (limits.maxSessionCostUsd, limits.maxSessionTokens)', () => {
  let test: TestLegion;
  const opened: Legion[] = [];
  afterEach(async () => {
    for (const legion of opened.splice(0)) await legion.close();
    await test?.cleanup();
  });
  const open = (): Legion => {
    const legion = test.reopen();
    opened.push(legion);
    return legion;
  };

  it('stops the next model call once the session has spent its budget, mid-turn, leaving nothing half-done; another instance stops too', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead', { delegation: 'none' })],
      entryAgent: 'lead',
      // A third step would be a call the budget should have stopped: the script fails loudly on it.
      scripts: {
        lead: [
          { ...todo('plan'), usage: { inputTokens: 1_000, outputTokens: 100 } },
          { ...todo('build'), usage: { inputTokens: 1_000, outputTokens: 100 } },
        ],
      },
    });
    // Scripted models are free unless the config prices them: $1.10 a call here.
    configure(test, { pricing: { 'scripted/lead': { input: 1_000, output: 1_000 } }, limits: { maxSessionCostUsd: 2 } });
    const legion = open();
    const session = await legion.sessions.create();
    const result = await legion.send(session, 'Plan and build it');
    expect(result).toMatchObject({ status: 'error', code: 'session_budget_exceeded' });
    const error = result.status === 'error' ? result.error : '';
    expect(error).toContain(`Session ${session.id} has used $2.20, reaching its budget of $2.00 (limits.maxSessionCostUsd)`);
    expect(error).toContain("lead's model was not called and nothing was added to the conversation");
    expect(error).toContain('Raise limits.maxSessionCostUsd in .legion/config.json');
    expect(error).toContain('start a new session');
    expect(test.providers['lead']!.callCount).toBe(2);
    // On disk: both calls' usage, and the conversation's last tool result (no partial reply), then the turn's ending.
    expect((await session.usage()).total).toMatchObject({ calls: 2, costUsd: 2.2 });
    const [lastResult, ending] = (await session.recentMessages(2)).map((entry) => entry.message);
    expect(lastResult!.role).toBe('user');
    expect(lastResult!.content.map((block) => block.type)).toEqual(['tool_result']);
    expect(ending).toMatchObject({ role: 'assistant', ending: { status: 'failed', code: 'session_budget_exceeded' } });

    // A second instance on the same workspace knows what was spent before it opened.
    const other = open();
    const again = await other.send(await other.sessions.get(session.id), 'Go on');
    expect(again).toMatchObject({ status: 'error', code: 'session_budget_exceeded' });
    expect(test.providers['lead']!.callCount).toBe(2);
    expect((await session.usage()).total.calls).toBe(2);
    test.assertScriptsDone();
  });

  it("an agent's own limits lower the workspace's budget but cannot raise it (a model may write them with create_agent)", async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        { ...agentParticipant('lead', { delegation: 'none' }), limits: { maxSessionTokens: 1_000_000_000 } } as ParticipantInput,
      ],
      entryAgent: 'lead',
      scripts: { lead: [{ text: 'one', usage: { inputTokens: 1_000, outputTokens: 100 } }] },
    });
    configure(test, { limits: { maxSessionTokens: 1_000 } });
    const legion = open();
    const session = await legion.sessions.create();
    expect(await legion.send(session, 'one')).toMatchObject({ status: 'success', reply: 'one' });
    const second = await legion.send(session, 'two');
    expect(second).toMatchObject({ status: 'error', code: 'session_budget_exceeded' });
    expect(second.status === 'error' && second.error).toContain('reaching its budget of 1,000 tokens (limits.maxSessionTokens)');
    test.assertScriptsDone();
  });

  it('counts what another instance spent in the same session since this one last looked (maxSessionTokens)', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead', { delegation: 'none' })],
      entryAgent: 'lead',
      scripts: {
        lead: [
          { text: 'one', usage: { inputTokens: 1_000, outputTokens: 100 } },
          { text: 'two', usage: { inputTokens: 800, outputTokens: 50, cacheReadTokens: 100 } },
        ],
      },
    });
    configure(test, { limits: { maxSessionTokens: 2_000 } });
    const first = open();
    const second = open();
    const session = await first.sessions.create();
    expect(await first.send(session, 'one')).toMatchObject({ status: 'success', reply: 'one' });
    // 1,100 tokens so far: the other instance may still call; its call brings the session to 2,050.
    expect(await second.send(await second.sessions.get(session.id), 'two')).toMatchObject({ status: 'success', reply: 'two' });
    const third = await first.send(session, 'three');
    expect(third).toMatchObject({ status: 'error', code: 'session_budget_exceeded' });
    expect(third.status === 'error' && third.error).toContain(
      'has used 2,050 tokens, reaching its budget of 2,000 tokens (limits.maxSessionTokens)',
    );
    test.assertScriptsDone();
  });

  it('counts a call whose server reports nonsense usage (negative, fractional, astronomical) instead of losing it', async () => {
    let requests = 0;
    // An Anthropic stream whose usage no real provider would send.
    const server: Server = createServer((request, response) => {
      requests++;
      request.resume();
      request.on('end', () => {
        const events: Array<[string, unknown]> = [
          [
            'message_start',
            {
              type: 'message_start',
              message: {
                id: 'msg_1',
                type: 'message',
                role: 'assistant',
                model: 'claude-test',
                content: [],
                stop_reason: null,
                usage: { input_tokens: -1_000_000, output_tokens: 0, cache_read_input_tokens: 2.5 },
              },
            },
          ],
          ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
          ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } }],
          ['content_block_stop', { type: 'content_block_stop', index: 0 }],
          ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1e300 } }],
          ['message_stop', { type: 'message_stop' }],
        ];
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const writer = {
        ...agentParticipant('writer', { delegation: 'none', tools: 'none' }),
        model: { provider: 'anthropic', model: 'claude-test', baseURL: url },
      } as ParticipantInput;
      test = createTestLegion({ participants: [userParticipant(), writer], entryAgent: 'writer', env: keyEnv(url) });
      configure(test, { limits: { maxSessionTokens: 1_000_000 } });
      const legion = open();
      const session = await legion.sessions.create();
      expect(await legion.send(session, 'one')).toMatchObject({ status: 'success', reply: 'hi' });
      expect((await session.usage()).total).toMatchObject({
        calls: 1,
        inputTokens: 0,
        outputTokens: Number.MAX_SAFE_INTEGER,
        cacheReadTokens: 3,
      });
      expect(await legion.send(session, 'two')).toMatchObject({ status: 'error', code: 'session_budget_exceeded' });
      expect(requests).toBe(1);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
