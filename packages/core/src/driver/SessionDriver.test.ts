import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelConfig, ParticipantInput } from '../team/collective/participant.js';
import { keyEnv } from '../model/providers/__fixtures__/llm-server.js';
import { useLlmServer } from '../model/providers/__fixtures__/use-llm-server.js';
import { agentParticipant, userParticipant, writeNoteTool } from '../testing/index.js';
import { SessionDriver } from './SessionDriver.js';

describe('SessionDriver: what every surface drives', () => {
  const { server, createTestLegion } = useLlmServer();
  const claude = (model: string): ModelConfig => ({ provider: 'anthropic', model, baseURL: server.anthropicURL });
  const agent = (id: string, model: string, extra: Parameters<typeof agentParticipant>[1] = {}): ParticipantInput =>
    ({ ...agentParticipant(id, extra), model: claude(model) }) as ParticipantInput;

  function team() {
    const test = createTestLegion({
      participants: [
        userParticipant(),
        agent('coordinator', 'claude-coordinator', { tools: ['communicate'], delegation: ['developer'] }),
        agent('developer', 'claude-developer', { tools: ['write_note'], delegation: 'none' }),
        agent('reviewer', 'claude-reviewer', { tools: 'none', delegation: 'none' }),
      ],
      entryAgent: 'coordinator',
      env: keyEnv(server.anthropicURL),
      backend: 'memory',
    });
    // A write: it needs approval by default.
    test.legion.tools.register(writeNoteTool(test.root));
    const touched = (): boolean => existsSync(join(test.root, 'door.txt'));
    server.mock.on(
      { model: 'claude-coordinator', hasToolResult: false },
      {
        toolCalls: [
          { id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify({ to: 'developer', message: 'touch the door' }) },
        ],
        usage: { input_tokens: 100, output_tokens: 10 },
      },
    );
    server.mock.on(
      { model: 'claude-coordinator', hasToolResult: true },
      { content: 'The door is touched.', usage: { input_tokens: 200, output_tokens: 20 } },
    );
    server.mock.on(
      { model: 'claude-developer', hasToolResult: false },
      {
        toolCalls: [{ id: 'toolu_touch', name: 'write_note', arguments: '{"path":"door.txt","text":"touched"}' }],
        usage: { input_tokens: 30, output_tokens: 3 },
      },
    );
    server.mock.on(
      { model: 'claude-developer', hasToolResult: true },
      { content: 'door touched', usage: { input_tokens: 40, output_tokens: 4 } },
    );
    server.mock.on({ model: 'claude-reviewer' }, { content: 'Looks fine.', usage: { input_tokens: 7000, output_tokens: 700 } });
    return { test, touched };
  }

  it('sends as the user, pauses with one explanation, and resumes on a choice; each work counts its own tree, per participant', async () => {
    const { test, touched } = team();
    const driver = await SessionDriver.open(test.legion, { medium: 'terminal', session: { newSession: true, title: 'Touching' } });
    expect(driver.you).toBe('user');
    expect(driver.session.info.title).toBe('Touching');

    const sent = driver.send('Touch the door');
    // Another turn in the same session at the same time (another surface's): not this work's.
    const beside = await driver.session.send({ from: 'user', to: 'reviewer', message: 'Review it' });
    expect(beside).toMatchObject({ status: 'success', reply: 'Looks fine.' });
    const paused = await sent.done;
    if (paused.status !== 'paused') throw new Error(`expected a pause, got ${JSON.stringify(paused)}`);
    expect([...sent.conversations].sort()).toEqual(['coordinator__developer', 'user__coordinator']);
    expect(sent.usage.total).toMatchObject({ calls: 2, inputTokens: 130, outputTokens: 13 });
    expect(sent.usage.summary.byParticipant['coordinator']).toMatchObject({
      own: { calls: 1 },
      withDelegates: { calls: 2, inputTokens: 130 },
    });
    expect(sent.usage.summary.byParticipant['developer']).toMatchObject({
      own: { calls: 1, inputTokens: 30 },
      withDelegates: { calls: 1 },
    });

    const [request] = paused.requests;
    const explanation = driver.explainPause(paused.requests);
    expect(explanation.headline).toBe('Paused: waiting for approval of 1 call (saved; answer any time, from any surface)');
    expect(touched()).toBe(false);
    expect(explanation.lines).toEqual([
      `${request!.id}: developer wants to run write_note (${request!.reason}); ${request!.approver} decides`,
    ]);
    expect(explanation.approveCommand).toBe(`legion approve --session ${driver.session.id} ${request!.id}`);
    expect(await driver.pendingApprovals()).toHaveLength(1);

    const answered = driver.answer([{ id: request!.id, choice: 'session' }]);
    const outcome = await answered.done;
    expect(outcome).toMatchObject({ status: 'answered', resumed: [{ status: 'success', reply: 'The door is touched.' }] });
    expect(touched()).toBe(true);
    // The resumed developer's and coordinator's calls; not the reviewer's 7,000 tokens.
    expect(answered.usage.total).toMatchObject({ calls: 2, inputTokens: 240, outputTokens: 24 });
    const decided = await driver.session.approvals.list({ status: 'approved' });
    expect(decided).toMatchObject([{ id: request!.id, decidedBy: 'user', decisionMedium: 'terminal' }]);
    expect((await driver.session.approvals.state()).decision(request!.id)).toMatchObject({ always: true });
  });

  it("follows the session it switched to, and tells only that session's events", async () => {
    const { test } = team();
    const driver = await SessionDriver.open(test.legion, { medium: 'terminal' });
    const first = driver.session;
    const seen: string[] = [];
    driver.onEvent((event) => seen.push(`${event.type} ${'sessionId' in event ? event.sessionId : ''}`));
    const other = await driver.switchTo({ newSession: true });
    expect(other.id).not.toBe(first.id);
    await first.send({ from: 'user', to: 'reviewer', message: 'in the first' });
    expect(seen).toEqual([]);
    await driver.send('Review it', { to: 'reviewer' }).done;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((line) => line.endsWith(other.id))).toBe(true);
    expect(() => driver.send('hello', { to: 'nobody' })).toThrow('No participant "nobody"');
  });

  it('chooses the session every surface would: the latest, a named one, a new one; refuses a choice that contradicts itself', async () => {
    const { test } = team();
    const latest = await test.legion.sessions.resumeOrCreate();
    expect((await SessionDriver.open(test.legion, { medium: 'web' })).session.id).toBe(latest.id);
    expect((await SessionDriver.open(test.legion, { medium: 'web', session: { session: latest.id } })).session.id).toBe(latest.id);
    await expect(SessionDriver.open(test.legion, { medium: 'web', session: { session: latest.id, newSession: true } })).rejects.toThrow(
      'Use either a session id or a new session, not both.',
    );
    await expect(SessionDriver.open(test.legion, { medium: 'web', session: { title: 'Named' } })).rejects.toThrow(
      'A title is given to a new session',
    );
    await expect(SessionDriver.open(test.legion, { medium: 'web', session: { session: 'nope' } })).rejects.toThrow('No session "nope"');
    await expect(SessionDriver.open(test.legion, { medium: 'web', as: 'ghost', session: latest })).rejects.toThrow(
      'No participant "ghost" to talk as',
    );
    await expect(SessionDriver.open(test.legion, { medium: 'web', as: 'reviewer', session: latest })).resolves.toMatchObject({
      you: 'reviewer',
    });
  });
  it("gives the session the editor's files while the driver works in it: a switch takes them along, close takes them away", async () => {
    const { test } = team();
    const first = await test.legion.sessions.create();
    const second = await test.legion.sessions.create();
    const files = { readText: async () => undefined };
    const driver = await SessionDriver.open(test.legion, { medium: 'acp', session: first, editorFiles: files });
    expect(first.editorFiles).toBe(files);

    await driver.switchTo(second);
    expect(first.editorFiles).toBeUndefined();
    expect(second.editorFiles).toBe(files);

    driver.close();
    expect(second.editorFiles).toBeUndefined();
    // A driver without them gives none.
    await SessionDriver.open(test.legion, { medium: 'web', session: first });
    expect(first.editorFiles).toBeUndefined();
  });
});
