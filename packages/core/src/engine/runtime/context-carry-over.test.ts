import { z } from 'zod';
import { CARRY_OVER_TAG } from '../../model/context/compaction-carry-over.js';
import { SUMMARY_SYSTEM_MARK } from '../../model/context/compaction-summary.js';
import { textOf, type Message } from '../../kernel/message.js';
import type { ModelRequest } from '../../model/providers/llm-provider.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/test-collective.js';
import { defineTool } from '../../tools/tool.js';

const opening = (request: ModelRequest): string => textOf(request.messages[0] as Message);

describe('the state carried over a compaction', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('lists the approvals the agent has to decide, while they wait, and drops them once decided', async () => {
    let seenPending = '';
    test = createTestLegion({
      participants: [
        userParticipant(),
        {
          ...agentParticipant('coordinator'),
          approvalAuthority: [{ requester: 'developer', tools: ['write_note'] }],
          context: { window: 100_000 },
        } as never,
        agentParticipant('developer', { delegation: 'none', tools: ['write_note'] }),
      ],
      entryAgent: 'coordinator',
      scripts: {
        coordinator: [
          { text: 'Noted the plan.' },
          { text: 'Noted the deadline.' },
          { expect: (request) => expect(request.system).toContain(SUMMARY_SYSTEM_MARK), text: 'Summary: the user planned a note.' },
          { toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'developer', message: 'write the note' } }] },
          (request) => {
            const text = opening(request);
            expect(text.startsWith(CARRY_OVER_TAG)).toBe(true);
            seenPending =
              /Approvals of this conversation still pending:\n- (apr_\S+): developer wants write_note \{"path":"note.txt","text":"hello"\} \(.*\); coordinator decides/.exec(
                text,
              )?.[1] ?? '';
            expect(seenPending).not.toBe('');
            return {
              toolCalls: [{ id: 'c2', name: 'approval_response', input: { decisions: [{ id: seenPending, decision: 'approve' }] } }],
            };
          },
          {
            expect: (request) => {
              expect(opening(request)).toContain('Summary: the user planned a note.');
              expect(opening(request)).not.toContain('still pending');
            },
            text: 'The note is written.',
          },
        ],
        developer: [
          { toolCalls: [{ id: 'd1', name: 'write_note', input: { path: 'note.txt', text: 'hello' } }] },
          { text: 'note written' },
        ],
      },
    });
    test.legion.tools.register(
      defineTool({
        name: 'write_note',
        description: 'Writes a note',
        effect: 'write',
        inputSchema: z.object({ path: z.string(), text: z.string() }),
        execute: async (input) => ({ status: 'success', data: `wrote ${input.path}` }),
      }),
    );
    const session = await test.legion.sessions.create();
    await test.legion.send(session, 'Plan: a note.');
    await test.legion.send(session, 'Deadline: today.');
    expect(await session.compact('user__coordinator')).toMatchObject({ status: 'compacted', entry: { keptMessages: 2 } });
    expect(await test.legion.send(session, 'Write it now.')).toMatchObject({ status: 'success', reply: 'The note is written.' });
    test.assertScriptsDone();
  });
});
