import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { agentParticipant, createTestLegion, userParticipant, type TestLegion, writeNoteTool } from '../testing/index.js';

const FIXTURE = fileURLToPath(new URL('./__fixtures__/ask-and-hang.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** Runs the fixture until it prints the line, then kills it with SIGKILL and waits for it to be gone. */
function runUntilAskedThenKill(root: string, sessionId: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE, root, sessionId], { stdio: 'pipe' });
    let output = '';
    let ids: string[] = [];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the child never asked for approval; it printed: ${output}`));
    }, 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const asked = /^ASKED (.+)$/m.exec(output);
      if (asked && ids.length === 0) {
        ids = asked[1]!.split(',');
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL' && ids.length > 0) resolve(ids);
      else reject(new Error(`the child ended on its own: ${output}`));
    });
  });
}

describe('a pending approval survives a killed process', () => {
  let test: TestLegion;
  afterEach(() => test?.cleanup());

  it('kill -9 while the user is being asked; after a restart, answering resumes the paused turns to the end', async () => {
    expect(existsSync(DIST), 'build the core package first (npm run build)').toBe(true);
    test = createTestLegion({
      participants: [userParticipant(), agentParticipant('coordinator'), agentParticipant('developer', { delegation: 'none' })],
      entryAgent: 'coordinator',
      scripts: {
        // What the models say after the restart: the steps before it ran in the killed child.
        developer: [
          {
            expect: (request) =>
              expect(request.messages.at(-1)!.content).toMatchObject([
                { type: 'tool_result', toolUseId: 'd1', content: 'wrote after-restart.txt' },
              ]),
            text: 'note written',
          },
        ],
        coordinator: [
          {
            expect: (request) =>
              expect(request.messages.at(-1)!.content).toMatchObject([{ type: 'tool_result', toolUseId: 'c1', content: 'note written' }]),
            text: 'Done: the note is written.',
          },
        ],
      },
    });
    test.legion.tools.register(writeNoteTool(test.root));
    const session = await test.legion.sessions.create();
    const [id] = await runUntilAskedThenKill(test.root, session.id);

    const fresh = await test.legion.sessions.get(session.id);
    expect(await fresh.approvals.list()).toMatchObject([
      { id, requester: 'developer', approver: 'user', tool: 'write_note', status: 'pending' },
    ]);
    expect(existsSync(join(test.root, 'after-restart.txt'))).toBe(false);
    await expect(fresh.send({ from: 'user', to: 'coordinator', message: 'status?' })).rejects.toThrow(
      /paused until an approval is answered/,
    );

    const outcome = await fresh.answerApprovals([{ id: id!, decision: 'approve' }], 'user');
    expect(outcome).toMatchObject({
      status: 'answered',
      resumed: [{ status: 'success', reply: 'Done: the note is written.', conversationId: 'user__coordinator' }],
    });
    expect(readFileSync(join(test.root, 'after-restart.txt'), 'utf8')).toBe('approved later');
    test.assertScriptsDone();
    const log = readFileSync(join(test.root, '.legion/sessions', session.id, 'approvals.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string });
    // The delegation stack is written once, with the request (version 2): no separate link records.
    expect(log.map((record) => record.kind).sort()).toEqual(['decision', 'request']);
    expect(log.find((record) => record.kind === 'request')).toMatchObject({
      version: 2,
      frames: [
        { participantId: 'user', conversationId: 'user__coordinator' },
        { participantId: 'coordinator', conversationId: 'user__coordinator', toolUseId: 'c1' },
      ],
    });
    // And the conversation goes on normally afterwards.
    await expect(fresh.send({ from: 'user', to: 'developer', message: 'thanks', ifBusy: 'fail' })).resolves.toMatchObject({
      status: 'error',
      code: 'script_exhausted',
    });
  });
});
