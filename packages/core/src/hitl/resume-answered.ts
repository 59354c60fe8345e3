import type { ResumeOutcome } from '../session/index.js';
import type { QuestionRecord, SessionQuestions, DelegationFrame } from '../store/index.js';
import { resumeAfterDecisions, type AnsweringSession } from './answer-approvals.js';

/** What resuming answered questions needs of a session. */
export type AnsweredResumingSession = Omit<AnsweringSession, 'approvals'> & { readonly questions: SessionQuestions };

/**
 * Continues the chains that wait on questions the user answered but nobody
 * resumed: the answer was recorded alone (`legion answer --no-resume`), or
 * the process that recorded it ended first. The asker's communicate call
 * gets the answer as the user's reply, as if the asking process had stayed.
 * Any process may do it; each chain goes on once, because a resume that finds
 * nothing waiting under the conversation's lease writes nothing, and a chain
 * whose turn still runs in a live process is left to it.
 */
export async function resumeAnswered(
  session: AnsweredResumingSession,
  options: { ids?: readonly string[] | undefined; signal?: AbortSignal | undefined } = {},
): Promise<ResumeOutcome> {
  const state = await session.questions.state();
  const candidates: QuestionRecord[] = [];
  if (options.ids !== undefined && options.ids.length > 0) {
    const problems: string[] = [];
    for (const id of options.ids) {
      const question = state.question(id);
      const outcome = state.outcome(id);
      if (!question)
        problems.push(`There is no question "${id}" in this session (legion questions --all lists them; --session names another session).`);
      else if (!outcome) problems.push(`${id} is not answered yet: answer it with legion answer ${id} "…" first.`);
      else if (outcome.kind === 'withdrawn') problems.push(`${id} was withdrawn (${outcome.reason}), so nothing waits on it.`);
      else candidates.push(question);
    }
    if (problems.length > 0) return { status: 'error', error: `Nothing was resumed. ${problems.join(' ')}` };
  } else {
    for (const view of state.list({ status: 'answered' })) candidates.push(state.question(view.id)!);
  }
  // Only an asker whose communicate call still has no result waits: the others went on long ago.
  const waiting: Array<{ conversationId: string; frames: readonly DelegationFrame[] }> = [];
  for (const question of candidates) {
    const asker = question.frames?.at(-1);
    if (asker?.toolUseId === undefined) continue;
    if ((await session.unanswered(asker.conversationId)).some((toolUse) => toolUse.id === asker.toolUseId))
      waiting.push({ conversationId: question.conversationId, frames: question.frames ?? [] });
  }
  if (waiting.length === 0) return { status: 'resumed', resumed: [] };
  return { status: 'resumed', ...(await resumeAfterDecisions(session, waiting, options.signal)) };
}
