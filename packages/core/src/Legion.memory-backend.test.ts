import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { LegionEvent } from './kernel/events/event-types.js';
import { Legion } from './Legion.js';
import type { Message } from './kernel/message.js';
import { MemorySessionBackend } from './store/memory/MemorySessionBackend.js';
import { MemorySessionStore } from './store/memory/MemorySessionStore.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from './testing/index.js';
import { defineTool } from './tools/tool.js';

const resultOf = (request: { messages: readonly Message[] }) => {
  const block = request.messages.at(-1)!.content[0];
  if (block?.type !== 'tool_result') throw new Error(`expected a tool_result, got ${JSON.stringify(block)}`);
  return block;
};

describe('Legion.open({ backend }) with the memory backend', () => {
  let test: TestLegion | undefined;
  afterEach(() => test?.cleanup());

  it('runs a whole session — delegation, a pause on approval and its resume, usage, todos, a follower — writing nothing under .legion/sessions', async () => {
    const touched: string[] = [];
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead'), agentParticipant('dev', { delegation: 'none' })],
      entryAgent: 'lead',
      backend: 'file',
      scripts: {
        lead: [
          {
            toolCalls: [{ id: 'l1', name: 'communicate', input: { to: 'dev', message: 'touch the door' } }],
            usage: { inputTokens: 10, outputTokens: 5 },
          },
          {
            expect: (request) => expect(resultOf(request).content).toBe('door touched'),
            text: 'Done: the door is touched.',
            usage: { inputTokens: 20, outputTokens: 7 },
          },
        ],
        dev: [
          { toolCalls: [{ id: 't1', name: 'todo_write', input: { items: [{ id: '1', text: 'touch the door', status: 'in_progress' }] } }] },
          { toolCalls: [{ id: 'd1', name: 'touch', input: { thing: 'door' } }] },
          {
            expect: (request) => expect(resultOf(request)).toMatchObject({ toolUseId: 'd1', content: 'touched door' }),
            text: 'door touched',
          },
        ],
      },
    });
    const store = new MemorySessionStore();
    const open = (): Legion => {
      const legion = Legion.open({
        root: test!.root,
        globalConfigFile: join(test!.root, 'no-global-config.json'),
        backend: new MemorySessionBackend({ store }),
      });
      for (const [id, provider] of Object.entries(test!.providers)) legion.providers.useFor(id, provider);
      legion.tools.register(
        defineTool({
          name: 'touch',
          description: 'Touches a thing (a change to the world: it needs approval)',
          effect: 'write',
          inputSchema: z.object({ thing: z.string() }),
          async execute(input) {
            touched.push(input.thing);
            return { status: 'success', data: `touched ${input.thing}` };
          },
        }),
      );
      return legion;
    };
    const legion = open();
    // A second instance on the same store is another process: its follower sees this one's work.
    const watcher = open();
    try {
      const session = await legion.sessions.create({ title: 'in memory' });
      const followed: LegionEvent[] = [];
      watcher.events.onAny((event) => {
        if ((event.type === 'message:sent' || event.type.startsWith('approval:')) && 'remote' in event && event.remote)
          followed.push(event);
      });
      const follower = await watcher.follow(session.id);

      const paused = await legion.send(session, 'please touch the door');
      expect(paused).toMatchObject({ status: 'paused', requests: [{ requester: 'dev', approver: 'user', tool: 'touch' }] });
      expect(touched).toEqual([]);
      const requestId = paused.status === 'paused' ? paused.requests[0]!.id : '';

      // The pause is durable in the store: another instance answers it and the turn resumes there.
      const elsewhere = await watcher.sessions.get(session.id);
      expect(await elsewhere.approvals.list({ status: 'pending' })).toMatchObject([{ id: requestId }]);
      const answered = await elsewhere.answerApprovals([{ id: requestId, decision: 'approve' }], 'user');
      expect(answered).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'Done: the door is touched.' }] });
      expect(touched).toEqual(['door']);
      test.assertScriptsDone();

      expect((await legion.sessions.list()).map((meta) => meta.title)).toEqual(['in memory']);
      expect((await session.listConversations()).map((ref) => ref.conversationId)).toEqual(['lead__dev', 'user__lead']);
      expect((await session.recentMessages(1)).map(({ message }) => message.content[0])).toEqual([
        { type: 'text', text: 'Done: the door is touched.' },
      ]);
      expect((await session.usage()).byParticipant['lead']?.own).toMatchObject({ inputTokens: 30, outputTokens: 12 });
      expect(await session.agentState.get('todos', 'dev', z.object({ items: z.array(z.object({ id: z.string() })) }))).toMatchObject({
        items: [{ id: '1' }],
      });

      // This instance's request was followed by the watcher; the watcher's own decision and resumed turn were not repeated to it.
      await follower.check();
      // (Each read tells the approvals log's news before the conversations'.)
      expect(followed.map((event) => event.type).sort()).toEqual([
        'approval:requested',
        'message:sent',
        'message:sent',
        'message:sent',
        'message:sent',
        'message:sent',
        'message:sent',
      ]);

      // Nothing of the session touched the disk.
      const sessions = join(test.root, '.legion', 'sessions');
      expect(existsSync(sessions) ? readdirSync(sessions) : []).toEqual([]);
    } finally {
      await watcher.close();
      await legion.close();
    }
  });
});
