import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ParticipantInput } from '../../team/collective/participant.js';
import type { Legion } from '../../Legion.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion } from '../../testing/index.js';
import { startWindowLimitedServer, type WindowLimitedReply, type WindowLimitedServer } from '../../testing/window-limited-server.js';
import { defineTool } from '../../tools/tool.js';

/** Adds fields to the workspace config; the Legion opened next reads them. */
function configure(test: TestLegion, fields: Record<string, unknown>): void {
  const file = join(test.root, '.legion', 'config.json');
  writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>), ...fields }));
}

// On every backend (vitest.config.ts): the recount reads the usage ledger wherever it is kept.
describe('limits.maxModelCallsPerMessage across a pause', () => {
  let server: WindowLimitedServer | undefined;
  let test: TestLegion | undefined;
  const opened: Legion[] = [];
  afterEach(async () => {
    for (const legion of opened.splice(0)) await legion.close();
    await test?.cleanup();
    test = undefined;
    await server?.close();
    server = undefined;
  });

  it('a tree resumed after an approval, in another process, goes on counting from what the usage ledger holds', async () => {
    let step = 0;
    server = await startWindowLimitedServer({
      window: 1_000_000,
      reportInputTokens: () => 10,
      // solo: a write that needs approval, then two more steps of its own; a fourth call is over the bound of 3.
      respond: (): WindowLimitedReply => {
        step++;
        return step === 1
          ? { toolCalls: [{ name: 'write_note', input: { text: 'one' } }] }
          : { toolCalls: [{ name: 'todo_write', input: { items: [{ id: `${step}`, text: `step ${step}`, status: 'in_progress' }] } }] };
      },
    });
    const solo = {
      ...agentParticipant('solo', { systemPrompt: 'ROLE:solo', delegation: 'none' }),
      model: { provider: 'anthropic', model: 'claude-test', baseURL: server.anthropicURL },
    } as ParticipantInput;
    test = createTestLegion({ participants: [userParticipant(), solo], entryAgent: 'solo', env: keyEnv(server.anthropicURL) });
    configure(test, { limits: { maxModelCallsPerMessage: 3 } });
    const writeNote = defineTool({
      name: 'write_note',
      description: 'Writes a note',
      effect: 'write',
      inputSchema: z.object({ text: z.string() }),
      execute: async () => ({ status: 'success', data: 'written' }),
    });
    const first = test.reopen();
    opened.push(first);
    first.tools.register(writeNote);
    const session = await first.sessions.create();
    const paused = await first.send(session, 'Write and plan');
    expect(paused).toMatchObject({ status: 'paused' });
    expect(server!.requests).toHaveLength(1);

    const other = test.reopen();
    opened.push(other);
    other.tools.register(writeNote);
    const answered = await (
      await other.sessions.get(session.id)
    ).answerApprovals(
      paused.status === 'paused' ? paused.requests.map((request) => ({ id: request.id, decision: 'approve' as const })) : [],
      'user',
    );
    expect(answered).toMatchObject({ status: 'answered', resumed: [{ status: 'error', code: 'message_work_limit' }] });
    // One call before the pause and two after it: the count went on from the ledger, not from zero.
    expect(server!.requests).toHaveLength(3);
  }, 60_000);
});
