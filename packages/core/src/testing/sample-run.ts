import type { LegionEvent } from '../kernel/index.js';
import { writeNoteTool } from './note-tool.js';
import { agentParticipant, createTestLegion, mockParticipant, userParticipant } from './test-collective.js';

/**
 * A real run that emits most kinds of Legion's events, recorded from the first: `lead` delegates to
 * `echo` (communicate), then writes a note, approved by an attached user surface, then replies. For
 * tests of whatever is derived from the events (the wire, stream-json lines): what they receive is
 * what the engine emits. The workspace is gone when it resolves.
 */
export async function recordSampleRun(): Promise<LegionEvent[]> {
  const test = createTestLegion({
    participants: [
      userParticipant(),
      agentParticipant('lead', { delegation: ['echo'] }),
      mockParticipant('echo', [{ trigger: '*', response: 'pong' }]),
    ],
    entryAgent: 'lead',
    scripts: {
      lead: [
        {
          toolCalls: [{ id: 'c1', name: 'communicate', input: { to: 'echo', message: 'ping' } }],
          usage: { inputTokens: 10, outputTokens: 3 },
        },
        { toolCalls: [{ id: 't1', name: 'write_note', input: { path: 'note.txt', text: 'hello' } }] },
        { text: 'done', usage: { inputTokens: 20, outputTokens: 1 } },
      ],
    },
  });
  try {
    const events: LegionEvent[] = [];
    test.legion.events.onAny((event) => events.push(event));
    test.legion.tools.register(writeNoteTool(test.root));
    test.legion.attachUser({
      medium: 'test',
      approve: async (requests) => requests.map((request) => ({ id: request.id, decision: 'approve' as const })),
    });
    const session = await test.legion.sessions.create({ title: 'Sample run' });
    const result = await test.legion.send(session, 'go');
    if (result.status !== 'success') throw new Error(`the sample run did not succeed: ${JSON.stringify(result)}`);
    test.assertScriptsDone();
    return events;
  } finally {
    await test.cleanup();
  }
}
