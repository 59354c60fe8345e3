import { readFileSync } from 'node:fs';
import type { ParticipantInput } from '../../team/collective/participant.js';
import type { LegionEvents } from '../../kernel/events/event-types.js';
import type { TurnResult } from '../../session/turn.js';
import { CARRY_OVER_TAG } from '../../model/context/compaction-carry-over.js';
import { SUMMARY_SYSTEM_MARK } from '../../model/context/compaction-summary.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/test-collective.js';
import {
  startWindowLimitedServer,
  type WindowLimitedReply,
  type WindowLimitedRequest,
  type WindowLimitedServer,
} from '../../testing/window-limited-server.js';

type Body = Record<string, unknown>;
type WireMessage = { role: string; content: string | Array<Record<string, unknown>> };

const FILLER = 'The parser keeps a table of token kinds and walks the input once, noting positions for error messages. ';
const filler = (sentences: number): string => FILLER.repeat(sentences);
const PIN = 'PINNED: the deploy key lives in vault path secret/deploy, never in the repository.';
const TODO = 'Port the parser to zod schemas';

/** A summarizer's request: its system prompt (Anthropic's `system`, OpenAI's first message) is the summary prompt. */
const isSummary = (body: Body): boolean =>
  JSON.stringify(body['system'] ?? (body['messages'] as WireMessage[])[0] ?? '').includes(SUMMARY_SYSTEM_MARK);
/** The conversation's messages (OpenAI's system message left out). */
const messagesOf = (body: Body): WireMessage[] => (body['messages'] as WireMessage[]).filter((message) => message.role !== 'system');
const blocksOf = (message: WireMessage): Array<Record<string, unknown>> =>
  typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
const textOfWire = (message: WireMessage): string =>
  blocksOf(message)
    .map((block) => String(block['text'] ?? block['content'] ?? ''))
    .join('\n');

/** A turn that did not succeed fails the test with its error, not just its status. */
function expectSuccess(result: TurnResult): void {
  if (result.status !== 'success')
    throw new Error(`the turn ended ${result.status}: ${result.status === 'error' ? `${result.code}: ${result.error}` : 'paused'}`);
}

/** Every tool_use answered in the very next message, and no tool_result without its call right before it. */
function expectToolPairsIntact(body: Body): void {
  const messages = messagesOf(body);
  messages.forEach((message, index) => {
    const uses = blocksOf(message)
      .filter((block) => block['type'] === 'tool_use')
      .map((block) => block['id']);
    const results = blocksOf(message)
      .filter((block) => block['type'] === 'tool_result')
      .map((block) => block['tool_use_id']);
    const before =
      index > 0
        ? blocksOf(messages[index - 1]!)
            .filter((block) => block['type'] === 'tool_use')
            .map((block) => block['id'])
        : [];
    if (results.length > 0) expect(before).toEqual(results);
    if (uses.length > 0)
      expect(
        blocksOf(messages[index + 1] ?? { role: 'user', content: [] })
          .filter((block) => block['type'] === 'tool_result')
          .map((block) => block['tool_use_id']),
      ).toEqual(uses);
  });
}

/** A model that plans (todos and a pinned note) on "plan", reads its notes on "check", and otherwise answers at length. */
function scriptedModel(summaries: { count: number }) {
  return (request: WindowLimitedRequest): WindowLimitedReply => {
    const { body } = request;
    if (isSummary(body)) {
      summaries.count++;
      return { text: `Summary ${summaries.count}: user asked worker to port the parser (src/parser.ts); decided to use zod.` };
    }
    const messages = messagesOf(body);
    const last = messages.at(-1)!;
    if (blocksOf(last).some((block) => block['type'] === 'tool_result')) return { text: 'Done with the tools.' };
    const text = textOfWire(last);
    if (text.includes('plan')) {
      return {
        toolCalls: [
          {
            name: 'todo_write',
            input: {
              items: [
                { id: '1', text: TODO, status: 'in_progress' },
                { id: '2', text: 'Delete the old parser', status: 'done' },
              ],
            },
          },
          { name: 'scratch_add', input: { text: PIN, pinned: true } },
        ],
      };
    }
    if (text.includes('check')) return { toolCalls: [{ name: 'scratch_read', input: {} }] };
    return { text: `Answer: ${filler(8)}` };
  };
}

function worker(
  model: string,
  url: string,
  context: Record<string, unknown>,
  extra: Parameters<typeof agentParticipant>[1] = {},
  provider = 'anthropic',
): ParticipantInput {
  return {
    ...agentParticipant('worker', {
      systemPrompt: 'You port parsers.',
      tools: ['todo_write', 'scratch_add', 'scratch_read'],
      delegation: 'none',
      ...extra,
    }),
    model: { provider, model, baseURL: url },
    context,
  } as ParticipantInput;
}

describe.each(['file', 'memory'] as const)(
  'compaction through the Anthropic SDK against a server that enforces its window (%s backend)',
  (backend) => {
    let server: WindowLimitedServer;
    let test: TestLegion | undefined;
    const summaries = { count: 0 };
    beforeEach(async () => {
      summaries.count = 0;
      server = await startWindowLimitedServer({ window: 4_000, respond: scriptedModel(summaries) });
    });
    afterEach(async () => {
      await test?.cleanup();
      test = undefined;
      await server.close();
    });

    function collect<Name extends keyof LegionEvents>(name: Name): Array<LegionEvents[Name]> {
      const seen: Array<LegionEvents[Name]> = [];
      test!.legion.events.on(name, (event) => seen.push(event));
      return seen;
    }

    it('summarizes older turns past summarizeAtTokens, carries todos, pins and recent messages over three compactions, and loses nothing on disk', async () => {
      const context = { window: 4_000, outputReserve: 1_000, summarizeAtTokens: 1_800, protectRecentTokens: 400, keepRecentMessages: 2 };
      test = createTestLegion({
        participants: [userParticipant(), worker('claude-test', server.anthropicURL, context)],
        entryAgent: 'worker',
        env: keyEnv(server.anthropicURL),
        backend,
      });
      const compacted = collect('context:compacted');
      const session = await test.legion.sessions.create();
      const sent: string[] = [];
      const send = async (text: string): Promise<void> => {
        sent.push(text);
        expectSuccess(await test!.legion.send(session, text));
      };
      await send('Please plan the work.');
      for (let turn = 1; compacted.length < 3 && turn < 40; turn++)
        await send(turn % 4 === 0 ? `Turn ${turn}: check your notes.` : `Turn ${turn}: ${filler(6)}`);
      await send('Last question: where is the deploy key?');
      expect(compacted.length).toBeGreaterThanOrEqual(3);

      // Never a request over the window, never a provider 400.
      expect(server.requests.filter((request) => request.rejected)).toEqual([]);
      const agentBodies = server.requests.filter((request) => !isSummary(request.body)).map((request) => request.body);
      agentBodies.forEach(expectToolPairsIntact);

      // After every compaction, the context opens with the newest summary and the carried-over state, verbatim.
      const firstCompactedAt = server.requests.findIndex((request) => isSummary(request.body));
      const after = server.requests.slice(firstCompactedAt).filter((request) => !isSummary(request.body));
      expect(after.length).toBeGreaterThan(3);
      for (const request of after) {
        const opening = textOfWire(messagesOf(request.body)[0]!);
        expect(opening.startsWith(CARRY_OVER_TAG)).toBe(true);
        expect(opening).toContain(TODO);
        expect(opening).not.toContain('Delete the old parser');
        expect(opening).toContain(PIN);
        expect(opening).toContain('You are working for: user → worker.');
        expect(messagesOf(request.body)[0]!.role).toBe('user');
      }
      const last = server.requests.at(-1)!.body;
      expect(textOfWire(messagesOf(last)[0]!)).toContain(`Summary ${summaries.count}:`);
      expect(textOfWire(messagesOf(last).at(-1)!)).toContain('Last question');

      // The summarizer gets the previous summary and who asked for what; the third folds in the second.
      const summaryBodies = server.requests.filter((request) => isSummary(request.body)).map((request) => request.body);
      expect(JSON.stringify(summaryBodies[0]!['system'])).toContain(
        'user sent the messages; the delegation chain it works for is user → worker',
      );
      expect(textOfWire(messagesOf(summaryBodies[0]!)[0]!)).toContain('Please plan the work.');
      expect(textOfWire(messagesOf(summaryBodies[2]!)[0]!)).toContain('Summary 2:');

      // Events and entries say what was compacted.
      for (const event of compacted) {
        expect(event).toMatchObject({
          conversationId: 'user__worker',
          participantId: 'worker',
          reason: 'auto',
          summarizer: { provider: 'anthropic', model: 'claude-test' },
        });
        expect(event.messageIds.count).toBeGreaterThan(0);
        expect(event.tokensAfter).toBeLessThan(event.tokensBefore);
      }

      // Nothing is lost: every message stays in the log, compaction entries beside them.
      const reader = test.openBackend();
      const address = { sessionId: session.id, conversationId: 'user__worker' };
      const all = (await reader.conversations.readSince(address, undefined)).messages;
      const userTexts = all
        .filter((message) => message.role === 'user' && message.content.some((block) => block.type === 'text'))
        .map((message) => message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
      expect(userTexts).toEqual(sent);
      const latest = await reader.conversations.context(address);
      expect(latest.compaction).toMatchObject({
        kind: 'compaction',
        reason: 'auto',
        summary: `Summary ${summaries.count}: user asked worker to port the parser (src/parser.ts); decided to use zod.`,
      });
      expect(latest.compaction!.keptMessages).toBeGreaterThan(0);
      expect(latest.compaction!.compacted!.lastMessageId).toBe(latest.compaction!.throughMessageId);
      if (backend === 'file') {
        const lines = readFileSync(`${test.root}/.legion/sessions/${session.id}/conversations/user__worker.jsonl`, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(lines[0]).toMatchObject({ kind: 'header', version: 2 });
        const entries = lines.filter((line) => line['kind'] === 'compaction');
        expect(entries).toHaveLength(compacted.length);
        expect(entries[0]).toMatchObject({
          compacted: { firstMessageId: all[0]!.id },
          summarizer: { provider: 'anthropic', model: 'claude-test' },
        });
      }
      await reader.close();
    });

    it('refuses before sending a request that cannot fit even cut to its newest turn, naming the agent, the sizes and the fix', async () => {
      test = createTestLegion({
        participants: [userParticipant(), worker('claude-test', server.anthropicURL, { window: 2_000, outputReserve: 500 })],
        entryAgent: 'worker',
        env: keyEnv(server.anthropicURL),
        backend,
      });
      const session = await test.legion.sessions.create();
      const result = await test.legion.send(session, `Read this: ${filler(120)}`);
      expect(result).toMatchObject({ status: 'error', code: 'context_overflow' });
      const error = (result as { error: string }).error;
      expect(error).toMatch(
        /^worker's next model request needs \d+ tokens even cut to its newest turn, but its window is 2000 tokens with 500 kept for the reply/,
      );
      expect(error).toContain('Nothing was sent');
      expect(error).toContain('a model with a bigger window');
      expect(error).toContain('context.window');
      expect(error).toContain('split the message');
      expect(server.requests).toEqual([]);
    });

    it('leaves out whole old turns when compaction cannot bring the request under the window (the summarizer fails)', async () => {
      const context = { window: 2_200, outputReserve: 500, summarizeAtTokens: 1_500, protectRecentTokens: 300 };
      const failing = startWindowLimitedServer;
      await server.close();
      server = await failing({
        window: 2_200,
        respond: (request) => (isSummary(request.body) ? { text: '' } : scriptedModel(summaries)(request)),
      });
      test = createTestLegion({
        participants: [userParticipant(), worker('claude-test', server.anthropicURL, context)],
        entryAgent: 'worker',
        env: keyEnv(server.anthropicURL),
        backend,
      });
      const errors = collect('error:raised');
      const session = await test.legion.sessions.create();
      for (let turn = 0; turn < 12; turn++) expectSuccess(await test.legion.send(session, `Turn ${turn}: ${filler(6)}`));
      expect(errors.some((event) => event.code === 'compaction_failed')).toBe(true);
      expect(server.requests.filter((request) => request.rejected)).toEqual([]);
      const last = server.requests.filter((request) => !isSummary(request.body)).at(-1)!.body;
      expect(textOfWire(messagesOf(last)[0]!)).toMatch(
        /^\[\d+ earlier messages of this conversation left out: they did not fit the model's window\.\]/,
      );
      expect(textOfWire(messagesOf(last).at(-1)!)).toContain('Turn 11:');
      expectToolPairsIntact(last);
    });

    it('compacts once and retries once when the provider says the prompt is too long, and does not loop when the retry fails too', async () => {
      // The table is wrong: Legion believes in 100k tokens, the server takes 1,200.
      server.window = 1_200;
      test = createTestLegion({
        participants: [
          userParticipant(),
          worker('claude-test', server.anthropicURL, { window: 100_000, outputReserve: 1_000 }, { tools: 'none' }),
        ],
        entryAgent: 'worker',
        env: keyEnv(server.anthropicURL),
        backend,
      });
      const compacted = collect('context:compacted');
      const session = await test.legion.sessions.create();
      let turn = 0;
      while (!server.requests.some((request) => request.rejected))
        expectSuccess(await test.legion.send(session, `Turn ${turn++}: ${filler(4)}`));
      const rejectedAt = server.requests.findIndex((request) => request.rejected);
      const kind = (request: WindowLimitedRequest): string =>
        isSummary(request.body) ? 'summary' : request.rejected ? 'rejected' : 'accepted';
      // The summarizer keeps to the window the error named (1,200): its requests are accepted, in pieces if need be.
      const recovery = server.requests.slice(rejectedAt).map(kind);
      expect(recovery[0]).toBe('rejected');
      expect(recovery.slice(1, -1).length).toBeGreaterThan(0);
      expect(recovery.slice(1, -1).every((what) => what === 'summary')).toBe(true);
      expect(recovery.at(-1)).toBe('accepted');
      const retry = server.requests.at(-1)!;
      expect(textOfWire(messagesOf(retry.body)[0]!).startsWith(CARRY_OVER_TAG)).toBe(true);
      expect(textOfWire(messagesOf(retry.body).at(-1)!)).toContain(`Turn ${turn - 1}:`);
      expect(compacted).toEqual([expect.objectContaining({ reason: 'overflow', participantId: 'worker' })]);

      // The newest turn alone is over the real window: one compaction, then, the window learnt from the
      // error, the retry is refused before sending with the budget error; never a second 400, never a loop.
      const before = server.requests.length;
      const result = await test.legion.send(session, `Turn ${turn}: ${filler(60)}`);
      expect(result).toMatchObject({ status: 'error', code: 'context_overflow' });
      expect((result as { error: string }).error).toContain('its window is 1200 tokens');
      const kinds = server.requests.slice(before).map(kind);
      expect(kinds[0]).toBe('rejected');
      expect(kinds.slice(1).length).toBeGreaterThan(0);
      expect(kinds.slice(1).every((what) => what === 'summary')).toBe(true);
      expect(compacted.map((event) => event.reason)).toEqual(['overflow', 'overflow']);
    });

    it("recognises OpenAI's context_length_exceeded through the OpenAI SDK: one compaction, one retry", async () => {
      server.window = 1_200;
      test = createTestLegion({
        participants: [
          userParticipant(),
          worker('gpt-test', server.openaiURL, { window: 100_000, outputReserve: 1_000 }, { tools: 'none' }, 'openai'),
        ],
        entryAgent: 'worker',
        env: keyEnv(server.anthropicURL, server.openaiURL),
        backend,
      });
      const compacted = collect('context:compacted');
      const session = await test.legion.sessions.create();
      let turn = 0;
      while (!server.requests.some((request) => request.rejected))
        expectSuccess(await test.legion.send(session, `Turn ${turn++}: ${filler(4)}`));
      const rejectedAt = server.requests.findIndex((request) => request.rejected);
      const recovery = server.requests
        .slice(rejectedAt)
        .map((request) => (isSummary(request.body) ? 'summary' : request.rejected ? 'rejected' : 'accepted'));
      expect(recovery[0]).toBe('rejected');
      expect(recovery.slice(1, -1).length).toBeGreaterThan(0);
      expect(recovery.slice(1, -1).every((what) => what === 'summary')).toBe(true);
      expect(recovery.at(-1)).toBe('accepted');
      expect(server.requests.every((request) => request.protocol === 'openai')).toBe(true);
      expect(textOfWire(messagesOf(server.requests.at(-1)!.body)[0]!).startsWith(CARRY_OVER_TAG)).toBe(true);
      expect(compacted).toEqual([expect.objectContaining({ reason: 'overflow', summarizer: { provider: 'openai', model: 'gpt-test' } })]);
    });

    it("keeps a delegate's compaction out of its caller's context", async () => {
      const context = { window: 4_000, outputReserve: 1_000, summarizeAtTokens: 1_500, protectRecentTokens: 300 };
      await server.close();
      const base = scriptedModel(summaries);
      server = await startWindowLimitedServer({
        window: 4_000,
        respond: (request) => {
          if (request.body['model'] !== 'claude-coordinator' || isSummary(request.body)) return base(request);
          const last = messagesOf(request.body).at(-1)!;
          if (blocksOf(last).some((block) => block['type'] === 'tool_result')) return { text: 'The worker answered.' };
          return { toolCalls: [{ name: 'communicate', input: { to: 'worker', message: `${textOfWire(last)} ${filler(5)}` } }] };
        },
      });
      const coordinator = {
        ...agentParticipant('coordinator', { systemPrompt: 'You coordinate.', tools: ['communicate'], delegation: ['worker'] }),
        model: { provider: 'anthropic', model: 'claude-coordinator', baseURL: server.anthropicURL },
      } as ParticipantInput;
      test = createTestLegion({
        participants: [userParticipant(), coordinator, worker('claude-test', server.anthropicURL, context)],
        entryAgent: 'coordinator',
        env: keyEnv(server.anthropicURL),
        backend,
      });
      const compacted = collect('context:compacted');
      const session = await test.legion.sessions.create();
      for (let turn = 0; compacted.length < 2 && turn < 30; turn++) expectSuccess(await test.legion.send(session, `Question ${turn}`));
      expect(compacted.length).toBe(2);
      expect(compacted.every((event) => event.conversationId === 'coordinator__worker' && event.participantId === 'worker')).toBe(true);
      // The delegate's own context says whom it works for: the whole chain above it.
      const workerAfter = server.requests.filter(
        (request) =>
          request.body['model'] === 'claude-test' &&
          !isSummary(request.body) &&
          textOfWire(messagesOf(request.body)[0]!).startsWith(CARRY_OVER_TAG),
      );
      expect(workerAfter.length).toBeGreaterThan(0);
      for (const request of workerAfter)
        expect(textOfWire(messagesOf(request.body)[0]!)).toContain('You are working for: user → coordinator → worker.');
      const coordinatorBodies = server.requests
        .filter((request) => request.body['model'] === 'claude-coordinator')
        .map((request) => JSON.stringify(request.body));
      expect(coordinatorBodies.length).toBeGreaterThan(4);
      for (const body of coordinatorBodies) {
        expect(body).not.toContain('context-carried-over');
        expect(body).not.toContain('Summary ');
      }
      const reader = test.openBackend();
      expect(
        (await reader.conversations.context({ sessionId: session.id, conversationId: 'user__coordinator' })).compaction,
      ).toBeUndefined();
      await reader.close();
    });

    it('sees a compaction another process made (legion compact beside a running REPL) at its next turn', async () => {
      test = createTestLegion({
        participants: [userParticipant(), worker('claude-test', server.anthropicURL, { window: 8_000, outputReserve: 1_000 })],
        entryAgent: 'worker',
        env: keyEnv(server.anthropicURL),
        backend,
      });
      const session = await test.legion.sessions.create();
      for (let turn = 0; turn < 3; turn++) expectSuccess(await test.legion.send(session, `Turn ${turn}`));
      const other = test.reopen();
      const elsewhere = await other.sessions.get(session.id);
      expect(await elsewhere!.compact('user__worker')).toMatchObject({ status: 'compacted' });
      await other.close();
      expectSuccess(await test.legion.send(session, 'After the other process compacted'));
      const messages = messagesOf(server.requests.at(-1)!.body);
      expect(textOfWire(messages[0]!).startsWith(CARRY_OVER_TAG)).toBe(true);
      expect(messages.map((message) => textOfWire(message).replace(/^[\s\S]*<\/context-carried-over>\n?/, ''))).toEqual([
        'Turn 2',
        expect.stringMatching(/^Answer:/),
        'After the other process compacted',
      ]);
    });

    it('compacts on demand through session.compact, holding the lease like a turn: refused while a turn runs', async () => {
      const context = { window: 8_000, outputReserve: 1_000, protectRecentTokens: 100_000, keepRecentMessages: 3 };
      test = createTestLegion({
        participants: [userParticipant(), worker('claude-test', server.anthropicURL, context)],
        entryAgent: 'worker',
        env: keyEnv(server.anthropicURL),
        backend,
      });
      const compacted = collect('context:compacted');
      const session = await test.legion.sessions.create();
      expect(await session.compact('user__worker')).toEqual({ status: 'nothing', why: 'user__worker has no messages yet' });
      for (let turn = 0; turn < 3; turn++) await test.legion.send(session, `Turn ${turn}: ${filler(2)}`);
      expect(compacted).toEqual([]);
      const outcome = await session.compact('user__worker');
      // The last three messages the agent was sent: Turn 2 is still in the context, Turns 0 and 1 are carried verbatim.
      expect(outcome).toMatchObject({
        status: 'compacted',
        entry: {
          reason: 'manual',
          keptMessages: 2,
          compacted: { count: 4 },
          carried: [{ text: `Turn 0: ${filler(2)}` }, { text: `Turn 1: ${filler(2)}` }],
        },
      });
      expect(compacted).toEqual([expect.objectContaining({ reason: 'manual', messageIds: expect.objectContaining({ count: 4 }) })]);
      await test.legion.send(session, 'After the compaction');
      const last = server.requests.at(-1)!.body;
      expect(messagesOf(last)).toHaveLength(3);
      expect(textOfWire(messagesOf(last)[0]!)).toContain('Summary 1:');
      expect(textOfWire(messagesOf(last)[0]!)).toContain('Turn 2:');
      expect(textOfWire(messagesOf(last)[0]!)).toContain(`The latest messages you were sent before the compaction (verbatim):\n[`);
      expect(textOfWire(messagesOf(last)[0]!)).toContain(`] Turn 1: ${filler(2)}`);

      // While a turn holds the conversation, compaction is refused with a clear message.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      test.legion.events.on('turn:start', () => {
        void session.compact('user__worker').then(
          () => release(),
          (error: unknown) => {
            expect(error).toMatchObject({
              code: 'conversation_busy',
              message: expect.stringContaining('Cannot compact user__worker while a turn runs in it'),
            });
            release();
          },
        );
      });
      const turn = test.legion.send(session, 'One more');
      await held;
      await turn;
      expect(compacted).toHaveLength(1);
    });
  },
);
