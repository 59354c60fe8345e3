import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LegionEvent } from '../../kernel/events/event-types.js';
import type { ModelConfig, ParticipantInput } from '../../team/collective/participant.js';
import { keyEnv } from '../../model/providers/__fixtures__/llm-server.js';
import { useLlmServer } from '../../model/providers/__fixtures__/use-llm-server.js';
import { agentParticipant, userParticipant, type TestLegion } from '../../testing/index.js';
import { fileChange } from '../../hitl/file-change.js';
import { Worktrees } from './Worktrees.js';
import { git, notesRepository, useGitCeiling } from './__fixtures__/git-ceiling.js';

const NOTES = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const EDITED = 'one\nTWO, said the developer\nthree\nfour\nfive\nsix\nseven\n';

/** A git repository in the temporary folder with notes.txt (worktree fixtures). */
const repository = (): string => notesRepository('legion-worktree-', NOTES);

function commitAll(root: string): void {
  git(root, 'add', '-A');
  git(root, 'commit', '--quiet', '-m', 'start');
}

describe('isolation: "worktree" through real SDKs and a wire-protocol model server', () => {
  useGitCeiling();
  const { server, createTestLegion } = useLlmServer();

  const claude = (): ModelConfig => ({ provider: 'anthropic', model: 'claude-test', baseURL: server.anthropicURL });
  const gpt = (): ModelConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: server.openaiURL });
  const agent = (id: string, model: ModelConfig, extra: Record<string, unknown> = {}): ParticipantInput =>
    ({ ...agentParticipant(id), model, ...extra }) as ParticipantInput;

  /** lead (Anthropic) delegates with `delegation`; dev (OpenAI) writes two files in one response, then answers. */
  function collective(root: string | undefined, delegation: Record<string, unknown>, devExtra: Record<string, unknown> = {}): TestLegion {
    const test = createTestLegion({
      ...(root ? { root } : {}),
      participants: [
        userParticipant(),
        agent('lead', claude()),
        agent('dev', gpt(), { delegation: 'none', policies: { file_write: 'auto' }, ...devExtra }),
      ],
      entryAgent: 'lead',
      env: keyEnv(server.anthropicURL),
    });
    server.mock.on(
      { model: 'claude-test', hasToolResult: false },
      { toolCalls: [{ id: 'toolu_delegate', name: 'communicate', arguments: JSON.stringify({ to: 'dev', ...delegation }) }] },
    );
    server.mock.on({ model: 'claude-test', hasToolResult: true }, { content: 'The developer has a change for you to review.' });
    server.mock.on(
      { model: 'gpt-test', hasToolResult: false },
      {
        toolCalls: [
          { id: 'call_notes', name: 'file_write', arguments: JSON.stringify({ path: 'notes.txt', content: EDITED }) },
          { id: 'call_new', name: 'file_write', arguments: JSON.stringify({ path: 'src/health.ts', content: 'export const ok = 1;\n' }) },
        ],
      },
    );
    server.mock.on({ model: 'gpt-test', hasToolResult: true }, { content: 'Edited notes.txt and added src/health.ts.' });
    return test;
  }

  /** What lead's model was told for its communicate call. */
  function delegationResult(): string {
    const body = server.anthropicBodies().at(-1) as { messages: Array<{ content: string | Array<Record<string, unknown>> }> };
    for (const message of body.messages)
      if (typeof message.content !== 'string')
        for (const block of message.content) if (block['tool_use_id'] === 'toolu_delegate') return JSON.stringify(block['content']);
    throw new Error('no result for toolu_delegate');
  }

  it('a delegate changes two files in its worktree: the main tree is unchanged until the diff is applied, then it holds both', async () => {
    const root = repository();
    const test = collective(root, { message: 'Improve the notes', isolation: 'worktree' });
    commitAll(root);
    const ready: Array<Extract<LegionEvent, { type: 'worktree:ready' }>> = [];
    test.legion.events.on('worktree:ready', (event) => ready.push(event));

    const result = await test.legion.send(await test.legion.sessions.create(), 'Improve the notes');

    expect(result).toMatchObject({ status: 'success', reply: 'The developer has a change for you to review.' });
    // The main tree is as committed: the delegate wrote only in its worktree.
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(NOTES);
    expect(existsSync(join(root, 'src/health.ts'))).toBe(false);
    expect(git(root, 'status', '--porcelain')).toBe('');
    // The caller got the reply, the files and a unified diff, and how a human applies it.
    const told = delegationResult();
    expect(told).toContain('Edited notes.txt and added src/health.ts.');
    expect(told).toContain('notes.txt');
    expect(told).toContain('src/health.ts');
    expect(told).toContain('+TWO, said the developer');
    expect(told).toContain('legion worktrees apply dev-');
    expect(ready).toEqual([
      expect.objectContaining({
        participantId: 'dev',
        callerId: 'lead',
        toolUseId: 'toolu_delegate',
        files: ['notes.txt', 'src/health.ts'],
      }),
    ]);
    const worktrees = new Worktrees(root);
    const [entry] = await worktrees.list();
    expect(entry).toMatchObject({ id: ready[0]!.worktreeId, state: 'review', record: { agentId: 'dev', callerId: 'lead' } });

    const applied = await worktrees.apply(entry!.id);

    expect(applied).toEqual({ ok: true, outcome: { status: 'applied', files: ['notes.txt', 'src/health.ts'] } });
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(EDITED);
    expect(readFileSync(join(root, 'src/health.ts'), 'utf8')).toBe('export const ok = 1;\n');
    // Cleaned up: no record, no tree, nothing left in git's list.
    expect(await worktrees.list()).toEqual([]);
    expect(existsSync(entry!.path)).toBe(false);
    expect(git(root, 'worktree', 'list')).not.toContain('worktrees');
  });

  it("an editor's files are not an isolated delegate's: it writes in its worktree, and the editor is not asked", async () => {
    const root = repository();
    const test = collective(root, { message: 'Improve the notes', isolation: 'worktree' });
    commitAll(root);
    const asked: string[] = [];
    const session = await test.legion.sessions.create();
    // The editor shows the main tree; the worktree's files are not its buffers.
    session.useEditorFiles({
      readText: async (path) => {
        asked.push(`read ${path}`);
        return 'the editor buffer\n';
      },
      writeText: async (path) => {
        asked.push(`write ${path}`);
      },
    });

    const result = await test.legion.send(session, 'Improve the notes');

    expect(result).toMatchObject({ status: 'success' });
    expect(asked).toEqual([]);
    expect(delegationResult()).toContain('+TWO, said the developer');
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(NOTES);
  });

  it('a change the main tree overlapped meanwhile is reported by file and not applied; other edits of the human are merged', async () => {
    const root = repository();
    // An agent whose file says isolation: worktree is isolated without asking.
    const test = collective(root, { message: 'Improve the notes' }, { isolation: 'worktree' });
    commitAll(root);
    await test.legion.send(await test.legion.sessions.create(), 'Improve the notes');
    const worktrees = new Worktrees(root);
    const [entry] = await worktrees.list();
    expect(entry?.state).toBe('review');
    // The human edits the same line, uncommitted.
    const human = 'one\ntwo, said the human\nthree\nfour\nfive\nsix\nseven\n';
    writeFileSync(join(root, 'notes.txt'), human);

    const refused = await worktrees.apply(entry!.id);

    expect(refused).toEqual({
      ok: true,
      outcome: {
        status: 'conflict',
        conflicts: [{ path: 'notes.txt', reason: 'the main tree changed the same lines since the worktree was made' }],
      },
    });
    // Nothing applied: not the conflicting file, not the one that would have gone in cleanly, no markers.
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(human);
    expect(existsSync(join(root, 'src/health.ts'))).toBe(false);
    expect((await worktrees.list()).map((listed) => listed.id)).toEqual([entry!.id]);

    // An edit elsewhere in the file merges with the delegate's.
    writeFileSync(join(root, 'notes.txt'), NOTES.replace('seven', 'seven, said the human'));
    expect((await worktrees.apply(entry!.id)).ok).toBe(true);
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(EDITED.replace('seven', 'seven, said the human'));
  });

  it("paused on approval, the delegate resumes in its worktree; the card shows the change to the worktree's file", async () => {
    const root = repository();
    // No policy of its own: its writes wait on the user, and nobody is attached to ask.
    const test = collective(root, { message: 'Improve the notes', isolation: 'worktree' }, { policies: {} });
    commitAll(root);
    const human = NOTES.replace('seven', 'seven, said the human');
    writeFileSync(join(root, 'notes.txt'), human);
    const session = await test.legion.sessions.create();

    expect(await test.legion.send(session, 'Improve the notes')).toMatchObject({ status: 'paused' });

    const [notes, health] = await session.approvals.list();
    const [entry] = await new Worktrees(root).list();
    expect(notes).toMatchObject({ tool: 'file_write', requester: 'dev', worktree: entry!.id });
    // What the person deciding sees: the file the call would replace is the worktree's, not the main tree's.
    const change = fileChange({
      workspaceRoot: root,
      auth: test.legion.auth,
      requester: test.legion.collective.get('dev'),
      tool: notes!.tool,
      input: notes!.input,
      worktree: notes!.worktree,
    });
    expect(change).toEqual({ status: 'shown', path: 'notes.txt', before: NOTES, after: EDITED });

    const answered = await session.answerApprovals(
      [notes!, health!].map((request) => ({ id: request.id, decision: 'approve' as const })),
      'user',
    );

    expect(answered).toMatchObject({ status: 'answered', resumed: [{ status: 'success' }] });
    // The resumed turn wrote in its worktree: the main tree keeps the human's edit alone.
    expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(human);
    expect(existsSync(join(root, 'src/health.ts'))).toBe(false);
    expect(delegationResult()).toContain(`legion worktrees apply ${entry!.id}`);
    expect(await new Worktrees(root).list()).toEqual([expect.objectContaining({ id: entry!.id, state: 'review' })]);
  });

  it('outside a git repository, an isolated delegation is refused with a result that says why; nothing is written', async () => {
    const test = collective(undefined, { message: 'Improve the notes', isolation: 'worktree' });
    const result = await test.legion.send(await test.legion.sessions.create(), 'Improve the notes');
    expect(result.status).toBe('success');
    const told = delegationResult();
    expect(told).toContain('dev cannot work in a worktree');
    expect(told).toContain('is not in a git repository');
    expect(server.openaiBodies()).toEqual([]);
    expect(existsSync(join(test.root, 'src/health.ts'))).toBe(false);
  });
});
