import { z } from 'zod';
import type { Message } from '../../kernel/message.js';
import type { ModelRequest } from '../../model/providers/llm-provider.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { defineTool } from '../../tools/tool.js';

const echo = defineTool({
  name: 'echo',
  description: 'Returns its input',
  effect: 'read',
  inputSchema: z.object({ text: z.string() }),
  async execute(input) {
    return { status: 'success', data: input.text };
  },
});

describe('the model request of each step', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('is built anew: a request a provider keeps is not changed by later steps, and a provider changing its request changes nothing else', async () => {
    const kept: Array<{ request: ModelRequest; messages: Message[]; tools: number }> = [];
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('worker', { tools: ['echo'], delegation: 'none' })],
      entryAgent: 'worker',
      scripts: {
        worker: (request, index) => {
          kept.push({ request, messages: [...request.messages], tools: request.tools.length });
          // A careless provider: it edits the request it was given (as a context trimmer might).
          (request.messages as Message[]).push({ id: 'injected', at: '', role: 'user', content: [{ type: 'text', text: 'injected' }] });
          (request.tools as unknown[]).length = 0;
          if (index < 2) return { toolCalls: [{ id: `e${index}`, name: 'echo', input: { text: `step ${index}` } }] };
          return { text: 'done' };
        },
      },
    });
    test.legion.tools.register(echo);
    const session = await test.legion.sessions.create();
    expect(await test.legion.send(session, 'go', { to: 'worker' })).toMatchObject({ status: 'success', reply: 'done' });

    expect(kept.map((step) => step.messages.length)).toEqual([1, 3, 5]);
    for (const step of kept) {
      // What the provider was handed is what it saw at its step, plus only its own edit.
      expect(step.request.messages).toEqual([...step.messages, expect.objectContaining({ id: 'injected' })]);
      expect(step.tools).toBe(1);
    }
    // Each step got the history without the previous step's edit, and the log holds none of them.
    expect(kept.flatMap((step) => step.messages).some((message) => message.id === 'injected')).toBe(false);
    const stored = await session.conversation({ initiator: 'user', responder: 'worker' }).history();
    expect(stored).toHaveLength(6);
    expect(stored.some((message) => message.id === 'injected')).toBe(false);
  });
});
