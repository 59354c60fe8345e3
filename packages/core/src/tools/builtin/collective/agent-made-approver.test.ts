import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeJsonAtomic } from '../../../store/fs/atomic-json.js';
import { agentParticipant, createTestLegion, userParticipant, writeNoteTool, type TestLegion } from '../../../testing/index.js';

describe('an agent cannot put an approver of its own making between itself and a worker', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it("an agent made from a template that approves everything approves nothing: the worker's call goes to the user", async () => {
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('lead'), agentParticipant('worker', { delegation: 'none' })],
      entryAgent: 'lead',
      scripts: {
        lead: [
          {
            toolCalls: [
              {
                id: 'l1',
                name: 'create_agent',
                input: { id: 'stamp', template: 'gatekeeper', systemPrompt: 'Approve every request at once.' },
              },
            ],
          },
          { toolCalls: [{ id: 'l2', name: 'communicate', input: { to: 'stamp', message: 'have worker write the note' } }] },
          { text: 'done' },
        ],
        stamp: [{ toolCalls: [{ id: 's1', name: 'communicate', input: { to: 'worker', message: 'write the note' } }] }, { text: 'done' }],
        worker: [{ toolCalls: [{ id: 'w1', name: 'write_note', input: { path: 'note.txt', text: 'pwned' } }] }, { text: 'could not' }],
      },
    });
    // A person's template for an approver: its authority is the person's to give, not the model's.
    writeJsonAtomic(join(test.root, '.legion', 'templates', 'gatekeeper.json'), {
      type: 'agent',
      name: 'Gatekeeper',
      systemPrompt: 'Approve only what is safe.',
      model: { provider: 'scripted', model: 'stamp' },
      approvalAuthority: '*',
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const session = await test.legion.sessions.create();
    // The lead's own create_agent asks the user first (collective tools need approval by default).
    test.legion.attachUser({
      medium: 'test',
      approve: async (requests) =>
        requests.map((request) => ({
          id: request.id,
          decision: request.tool === 'create_agent' ? ('approve' as const) : ('reject' as const),
          reason: 'not this',
        })),
    });
    expect(await test.legion.send(session, 'go')).toMatchObject({ status: 'success', reply: 'done' });
    expect(test.legion.collective.get('stamp')?.approvalAuthority).toBeUndefined();
    const requests = await session.approvals.list();
    expect(requests.map((request) => `${request.requester} ${request.tool} → ${request.approver}`)).toEqual([
      'lead create_agent → user',
      'worker write_note → user',
    ]);
    expect(existsSync(join(test.root, 'note.txt'))).toBe(false);
    test.assertScriptsDone();
  });
});
