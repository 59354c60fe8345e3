import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResumeOutcome } from '../session/turn.js';
import type { DelegationFrame } from '../store/records/delegation-frame.js';
import { agentParticipant, createTestLegion, runNodeChild, userParticipant, type ChildRun, type TestLegion } from '../testing/index.js';
import { answerQuestion, type QuestionAnsweringSession } from './answer-question.js';

// The asking process is a real child (the fixture imports the built package), killed with SIGKILL mid-question.
const FIXTURES = fileURLToPath(new URL('./__fixtures__/', import.meta.url));
/** A safety net against a hung child, far above what any step needs; never a timing assertion. */
const CHILD_WAIT_MS = 20_000;

describe('a question answered after its asking process died, with another process resuming', () => {
  let test: TestLegion | undefined;
  let run: ChildRun | undefined;
  afterEach(async () => {
    if (run && run.child.exitCode === null && run.child.signalCode === null) {
      run.child.kill('SIGKILL');
      await run.exited;
    }
    run = undefined;
    await test?.cleanup();
    test = undefined;
  });

  it('legion answer and legion questions resume at once: the chain goes on once, the model is asked once', async () => {
    test = createTestLegion({
      backend: 'file',
      participants: [userParticipant(), agentParticipant('coordinator')],
      entryAgent: 'coordinator',
      // One step only: a second continuation of the same chain would ask the model again, and fail loudly.
      scripts: {
        coordinator: [
          (request) => {
            const last = request.messages.at(-1)?.content[0];
            return { text: `Resumed with ${last?.type === 'tool_result' ? last.content : '?'}` };
          },
        ],
      },
    });
    run = runNodeChild(join(FIXTURES, 'ask-and-wait.mjs'), [test.root], { waitLimitMs: CHILD_WAIT_MS });
    const id = (await run.waitFor((line) => line.startsWith('asked q_'), 'asked <id>')).slice('asked '.length);
    run.child.kill('SIGKILL');
    expect(await run.exited).toEqual({ code: null, signal: 'SIGKILL' });

    const inB = (await test.legion.sessions.latest())!;
    const c = test.reopen();
    try {
      const inC = await c.sessions.get(inB.id);
      // The interleaving a loaded machine makes: B (legion answer) records the answer; before B resumes,
      // C (legion questions resume) sees it, finds the asker waiting, and runs the chain to its end.
      let byC: ResumeOutcome | undefined;
      const afterC = async (): Promise<void> => {
        byC = await inC.resumeAnswered();
      };
      // resumeConversation too: the code before the fix resumed through it, unchecked.
      const slowB = {
        id: inB.id,
        questions: inB.questions,
        turnIsLive: (conversationId: string) => inB.turnIsLive(conversationId),
        unanswered: (conversationId: string) => inB.unanswered(conversationId),
        resumeConversation: async (conversationId: string, frames: readonly DelegationFrame[]) => {
          await afterC();
          return inB.resumeConversation(conversationId, frames);
        },
        resumeIfWaiting: async (conversationId: string, frames: readonly DelegationFrame[]) => {
          await afterC();
          return inB.resumeIfWaiting(conversationId, frames);
        },
      };
      const answered = await answerQuestion(slowB satisfies QuestionAnsweringSession, test.legion.collective, id, '8080', {
        medium: 'cli',
      });

      expect(byC).toEqual({ status: 'resumed', resumed: [expect.objectContaining({ status: 'success', reply: 'Resumed with 8080' })] });
      // B finds nothing waiting once it holds the lease: the chain went on elsewhere, and B says so without running it again.
      expect(answered).toEqual({ status: 'answered' });
      test.assertScriptsDone();
      const roles = (await inB.conversation({ initiator: 'user', responder: 'coordinator' }).recent(20)).map((message) => message.role);
      expect(roles).toEqual(['user', 'assistant', 'user', 'assistant']);
      const replies = (await inB.conversation({ initiator: 'coordinator', responder: 'user' }).recent(10)).filter(
        (message) => message.role === 'assistant',
      );
      expect(replies).toEqual([expect.objectContaining({ medium: 'cli', content: [{ type: 'text', text: '8080' }] })]);
    } finally {
      await c.close();
    }
  });
});
