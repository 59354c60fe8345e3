import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LegionEvent } from '../../kernel/events/event-types.js';
import type { ParticipantInput } from '../../team/collective/participant.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { useLlmServer } from '../../model/providers/__fixtures__/use-llm-server.js';
import { agentParticipant, userParticipant, type TestLegion } from '../../testing/index.js';
import { SessionDriver } from '../../driver/SessionDriver.js';
import { Worktrees } from './Worktrees.js';
import { git, notesRepository, useGitCeiling } from './__fixtures__/git-ceiling.js';

const NOTES = 'one\ntwo\nthree\n';
const EDITED = 'one\nTWO, said the developer\nthree\n';

/** A git repository in the temporary folder with notes.txt (worktree fixtures). */
const repository = (): string => notesRepository('legion-direct-worktree-', NOTES);

describe('a message sent straight to an isolated agent runs in its worktree (real SDK, wire-protocol model server)', () => {
  useGitCeiling();
  const { server, createTestLegion } = useLlmServer();

  /** dev (OpenAI wire protocol), isolated by its participant file: "Improve the notes" edits notes.txt; "Add a health check" adds a file. */
  function isolatedDev(root: string, policies: Record<string, string> = { file_write: 'auto' }): TestLegion {
    const dev = {
      ...agentParticipant('dev'),
      model: { provider: 'openai', model: 'gpt-test', baseURL: server.openaiURL },
      delegation: 'none',
      isolation: 'worktree',
      policies,
    } as ParticipantInput;
    const test = createTestLegion({ root, participants: [userParticipant(), dev], entryAgent: 'dev', env: keyEnv(server.anthropicURL) });
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'start');
    server.mock.on(
      { userMessage: 'Improve the notes', hasToolResult: false },
      { toolCalls: [{ id: 'call_notes', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: EDITED }) }] },
    );
    server.mock.on({ userMessage: 'Improve the notes', hasToolResult: true }, { content: 'Edited notes.txt.' });
    server.mock.on(
      { userMessage: 'Add a health check', hasToolResult: false },
      {
        toolCalls: [
          { id: 'call_read', name: 'file_read', arguments: JSON.stringify({ path: 'notes.txt' }) },
          { id: 'call_new', name: 'file_write', arguments: JSON.stringify({ path: 'src/health.ts', content: 'export const ok = 1;\n' }) },
        ],
      },
    );
    server.mock.on({ userMessage: 'Add a health check', hasToolResult: true }, { content: 'Added src/health.ts.' });
    return test;
  }

  /** What the model was given back for a tool call of the latest request. */
  function toolResultOf(callId: string): string {
    const body = server.openaiBodies().at(-1) as { messages: Array<{ role: string; tool_call_id?: string; content: unknown }> };
    const found = body.messages.find((message) => message.role === 'tool' && message.tool_call_id === callId);
    if (!found) throw new Error(`no result for ${callId}`);
    return JSON.stringify(found.content);
  }

  it('turns from a surface leave the main tree unchanged and keep one worktree for the conversation until it is applied', async () => {
    const root = repository();
    const test = isolatedDev(root);
    const ready: Array<Extract<LegionEvent, { type: 'worktree:ready' }>> = [];
    test.legion.events.on('worktree:ready', (event) => ready.push(event));
    const driver = await SessionDriver.open(test.legion, { medium: 'terminal' });

    const first = await driver.send('Improve the notes').done;

    expect(first).toMatchObject({ status: 'success', reply: 'Edited notes.txt.' });
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(NOTES);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(ready).toEqual([expect.objectContaining({ participantId: 'dev', callerId: 'user', files: ['notes.txt'] })]);
    expect(ready[0]).not.toHaveProperty('toolUseId');
    const worktrees = new Worktrees(root);
    expect(await worktrees.list()).toEqual([expect.objectContaining({ id: ready[0]!.worktreeId, state: 'review' })]);

    const second = await driver.send('Add a health check').done;

    expect(second).toMatchObject({ status: 'success', reply: 'Added src/health.ts.' });
    // The second turn worked in the same tree: it read the first turn's edit, and one change holds both.
    expect(toolResultOf('call_read')).toContain('TWO, said the developer');
    expect(ready.map((event) => event.worktreeId)).toEqual([ready[0]!.worktreeId, ready[0]!.worktreeId]);
    expect(ready[1]!.files).toEqual(['notes.txt', 'src/health.ts']);
    expect(existsSync(join(root, 'src/health.ts'))).toBe(false);
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(NOTES);

    const applied = await worktrees.apply(ready[0]!.worktreeId);

    expect(applied).toEqual({ ok: true, outcome: { status: 'applied', files: ['notes.txt', 'src/health.ts'] } });
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(EDITED);
    // Applied, the conversation's next message starts a fresh worktree.
    await driver.send('Improve the notes').done;
    expect(ready.at(-1)!.worktreeId).not.toBe(ready[0]!.worktreeId);
    driver.close();
  });

  it('a direct turn paused on approval resumes in its worktree and then awaits review', async () => {
    const root = repository();
    // No policy of its own: the write waits on the user, and nobody is attached to ask.
    const test = isolatedDev(root, {});
    const ready: Array<Extract<LegionEvent, { type: 'worktree:ready' }>> = [];
    test.legion.events.on('worktree:ready', (event) => ready.push(event));
    const session = await test.legion.sessions.create();

    expect(await test.legion.send(session, 'Improve the notes')).toMatchObject({ status: 'paused' });
    const [request] = await session.approvals.list();
    const [entry] = await new Worktrees(root).list();
    expect(request).toMatchObject({ tool: 'file_write', requester: 'dev', worktree: entry!.id });
    expect(ready).toEqual([]);

    const answered = await session.answerApprovals([{ id: request!.id, decision: 'approve' }], 'user');

    expect(answered).toMatchObject({ status: 'answered', resumed: [{ status: 'success' }] });
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(NOTES);
    expect(ready).toEqual([expect.objectContaining({ worktreeId: entry!.id, files: ['notes.txt'] })]);
    expect(await new Worktrees(root).list()).toEqual([expect.objectContaining({ id: entry!.id, state: 'review' })]);
  });

  it('outside a git repository, a message to an isolated agent is refused and no model is called', async () => {
    const root = mkdtempSync(join(tmpdir(), 'legion-direct-no-git-'));
    const dev = {
      ...agentParticipant('dev'),
      model: { provider: 'openai', model: 'gpt-test', baseURL: server.openaiURL },
      isolation: 'worktree',
    };
    const test = createTestLegion({ root, participants: [userParticipant(), dev as ParticipantInput], entryAgent: 'dev' });

    await expect(test.legion.send(await test.legion.sessions.create(), 'Improve the notes')).rejects.toMatchObject({
      code: 'worktree_refused',
      message: expect.stringContaining('is not in a git repository'),
    });
    expect(server.openaiBodies()).toEqual([]);
  });
});
