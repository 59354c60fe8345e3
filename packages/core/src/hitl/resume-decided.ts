import type { ResumeOutcome } from '../session/index.js';
import type { ApprovalRequestRecord } from '../store/index.js';
import { resumeAfterDecisions, type AnsweringSession } from './answer-approvals.js';

/**
 * Continues the turns paused on requests that were decided but never resumed:
 * the decision was recorded alone (`legion approve --no-resume`), or the
 * process that recorded it ended before resuming. Any process may do it; each
 * turn goes on once, because a resume that finds nothing waiting under the
 * conversation's lease writes nothing.
 */
export async function resumeDecided(
  session: AnsweringSession,
  options: { ids?: readonly string[] | undefined; signal?: AbortSignal | undefined } = {},
): Promise<ResumeOutcome> {
  const state = await session.approvals.state();
  const named = options.ids !== undefined && options.ids.length > 0;
  const candidates: ApprovalRequestRecord[] = [];
  if (named) {
    const problems: string[] = [];
    for (const id of options.ids!) {
      const request = state.request(id);
      if (!request)
        problems.push(
          `There is no approval request "${id}" in this session (legion approvals --all lists its requests; --session names another session).`,
        );
      else if (!state.decision(id))
        problems.push(`${id} is not decided yet: answer it with "legion approve ${id}" or "legion reject ${id}" first.`);
      else candidates.push(request);
    }
    if (problems.length > 0) return { status: 'error', error: `Nothing was resumed. ${problems.join(' ')}` };
  } else {
    for (const request of state.list()) if (request.status !== 'pending') candidates.push(state.request(request.id)!);
  }
  // Only calls still without a result wait: the others were resumed (or repaired) long ago.
  const waiting: ApprovalRequestRecord[] = [];
  const unanswered = new Map<string, Set<string>>();
  for (const request of candidates) {
    let ids = unanswered.get(request.conversationId);
    if (!ids)
      unanswered.set(
        request.conversationId,
        (ids = new Set((await session.unanswered(request.conversationId)).map((toolUse) => toolUse.id))),
      );
    if (ids.has(request.toolUseId)) waiting.push(request);
  }
  if (waiting.length === 0) return { status: 'resumed', resumed: [] };
  return { status: 'resumed', ...(await resumeAfterDecisions(session, waiting, options.signal)) };
}
