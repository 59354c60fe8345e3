import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { agentParticipant, createTestLegion, mockParticipant, userParticipant, type TestLegion } from './testing/index.js';
import { defineTool } from './tools/tool.js';
import type { LegionEvent } from './kernel/events/event-types.js';

describe('a collective at work', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('runs user → coordinator → developer with a tool call and persists each directional conversation', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        agentParticipant('coordinator', { useFor: 'planning' }),
        agentParticipant('developer', { useFor: 'writing code', delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          {
            expect: (request) => {
              expect(request.system).toContain('- developer (developer, agent): writing code');
              expect(request.tools.map((tool) => tool.name)).toContain('communicate');
              expect(request.messages.at(-1)?.content).toEqual([{ type: 'text', text: 'Add a health check' }]);
            },
            toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'developer', message: 'Write GET /health' } }],
          },
          {
            expect: (request) => {
              const last = request.messages.at(-1)!;
              expect(last.role).toBe('user');
              expect(last.content).toEqual([{ type: 'tool_result', toolUseId: 'c1', content: 'Done: /health returns 200' }]);
            },
            text: 'The developer added /health.',
          },
        ],
        developer: [
          {
            expect: (request) => {
              expect(request.tools.map((tool) => tool.name)).not.toContain('communicate');
              expect(request.messages).toHaveLength(1);
            },
            toolCalls: [{ id: 'd1', name: 'word_count', input: { text: 'GET /health returns 200' } }],
          },
          { text: 'Done: /health returns 200' },
        ],
      },
    });
    test.legion.tools.register(
      defineTool({
        name: 'word_count',
        description: 'Counts words',
        effect: 'read',
        inputSchema: z.object({ text: z.string() }),
        async execute(input) {
          return { status: 'success', data: { words: input.text.split(/\s+/).length } };
        },
      }),
    );
    const events: LegionEvent[] = [];
    test.legion.events.onAny((event) => events.push(event));
    const session = await test.legion.sessions.create();

    const result = await test.legion.send(session, 'Add a health check');

    expect(result).toMatchObject({ status: 'success', reply: 'The developer added /health.', conversationId: 'user__coordinator' });
    test.assertScriptsDone();
    expect(test.providers.developer!.requests[1]!.messages.at(-1)!.content).toEqual([
      { type: 'tool_result', toolUseId: 'd1', content: '{"words":4}' },
    ]);
    expect((await session.listConversations()).map((ref) => ref.conversationId)).toEqual(['coordinator__developer', 'user__coordinator']);
    if (test.backend === 'file') {
      const lines = readFileSync(`${test.root}/.legion/sessions/${session.id}/conversations/coordinator__developer.jsonl`, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { kind: string; role?: string });
      expect(lines.map((line) => (line.kind === 'message' ? line.role : line.kind))).toEqual([
        'header',
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
    }
    expect(
      (await session.conversation({ initiator: 'coordinator', responder: 'developer' }).recent(10)).map((message) => message.role),
    ).toEqual(['user', 'assistant', 'user', 'assistant']);
    const turns = events
      .filter((event) => event.type === 'turn:start')
      .map((event) => event.type === 'turn:start' && `${event.chain.join('>')}>${event.participantId}`);
    expect(turns).toEqual(['user>coordinator', 'user>coordinator>developer']);
    expect(events.filter((event) => event.type === 'tool:call').map((event) => event.type === 'tool:call' && event.toolUse.name)).toEqual([
      'communicate',
      'word_count',
    ]);
  });

  it('resumes: a reopened workspace continues the latest session with the full history', async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('solo', { delegation: 'none' })],
      scripts: {
        solo: [
          { text: 'first answer' },
          {
            expect: (request) => expect(request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']),
            text: 'second answer',
          },
        ],
      },
    });
    const session = await test.legion.sessions.create();
    await test.legion.send(session, 'one');
    test.legion.close();

    const again = test.reopen();
    const resumed = (await again.sessions.latest())!;
    expect(resumed.id).toBe(session.id);
    expect((await resumed.recentMessages(10)).map(({ message }) => message.content[0])).toEqual([
      { type: 'text', text: 'one' },
      { type: 'text', text: 'first answer' },
    ]);
    const result = await again.send(resumed, 'two');
    expect(result).toMatchObject({ status: 'success', reply: 'second answer' });
    test.assertScriptsDone();
    again.close();
  });

  it('answers with a mock participant by trigger', async () => {
    test = createTestLegion({
      participants: [
        userParticipant(),
        mockParticipant('oracle', [
          { trigger: '/^ping$/i', response: 'pong' },
          { trigger: 'weather', response: 'sunny' },
        ]),
      ],
    });
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'PING', { to: 'oracle' })).toMatchObject({ reply: 'pong' });
    expect(await test.legion.send(session, 'How is the Weather?', { to: 'oracle' })).toMatchObject({ reply: 'sunny' });
    expect(await test.legion.send(session, 'something else', { to: 'oracle' })).toMatchObject({ status: 'error', code: 'mock_no_match' });
  });
});
