import type { Collective } from '../team/index.js';
import type { ToolUseBlock } from '../kernel/index.js';
import type { AnswerOutcome, TurnResult } from '../session/index.js';
import { ApprovalAnswerSchema, rememberOf, type ApprovalAnswer, type ApprovalDecisionRecord } from '../store/index.js';
import type { ApprovalRule } from './approval-rule.js';
import { rememberedFields, type ApprovalRuleRecorder } from './approval-rule-recorder.js';
import type { SessionApprovals, DelegationFrame } from '../store/index.js';
import { canApprove, decisionReach, reachesRequest } from '../team/index.js';

/** What answering needs of a session. */
export interface AnsweringSession {
  readonly approvals: SessionApprovals;
  unanswered(conversationId: string): Promise<ToolUseBlock[]>;
  /** Resumes only if a call of the paused turn still waits once its lease is held: it may have gone on meanwhile. */
  resumeIfWaiting(conversationId: string, frames: readonly DelegationFrame[], signal?: AbortSignal): Promise<TurnResult | undefined>;
  /** Whether a live process's turn holds the conversation now (it then takes the decisions itself); absent: never. */
  turnIsLive?(conversationId: string): Promise<boolean>;
}

/**
 * Records decisions and resumes what they unblock. All answers are checked
 * first (known, within the decider's reach, still pending, the decider has
 * authority: `decisionReach`); one bad answer
 * writes nothing. Each paused turn is then resumed from the highest
 * conversation still waiting on it, so replies travel back up to whoever waits.
 */
export async function answerApprovals(
  session: AnsweringSession,
  collective: Collective,
  answers: readonly ApprovalAnswer[],
  decidedBy: string,
  options: {
    medium?: string | undefined;
    rules?: ApprovalRuleRecorder | undefined;
    sessionId?: string;
    signal?: AbortSignal | undefined;
    resume?: boolean | undefined;
  } = {},
): Promise<AnswerOutcome> {
  const store = session.approvals;
  // One read of the log for every check: the decide below is what settles a race.
  const state = await store.state();
  const decider = collective.get(decidedBy);
  // A stand-in (an MCP client) neither decides nor is told of requests outside the chains it started.
  const reach = decider ? decisionReach(decider, (id) => collective.isCaller(id)) : 'addressed';
  const problems: string[] = [];
  const seen = new Set<string>();
  if (answers.length === 0) problems.push('No decisions were given.');
  for (const answer of answers) {
    const parsed = ApprovalAnswerSchema.safeParse(answer);
    if (!parsed.success)
      problems.push(
        `${answer.id}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'answer'}: ${issue.message}`).join('; ')}.`,
      );
    const request = state.request(answer.id);
    if (seen.has(answer.id)) problems.push(`${answer.id} is answered twice.`);
    seen.add(answer.id);
    if (!request) {
      const pending = state
        .pending()
        .filter((candidate) => reach !== 'own-chain' || reachesRequest(reach, decidedBy, candidate))
        .map((candidate) => candidate.id);
      problems.push(`There is no approval request "${answer.id}" (pending: ${pending.join(', ') || 'none'}).`);
      continue;
    }
    if (reach === 'own-chain' && !reachesRequest(reach, decidedBy, request)) {
      // Checked before anything else is said of it: who asked, what, and whether it was decided are not this decider's to know.
      problems.push(
        `${answer.id} was not raised by a turn ${decidedBy} started: ${decidedBy} decides only requests of its own chains, and this one is for the human's own surfaces (legion approve, the REPL, the web UI).`,
      );
      continue;
    }
    const decision = state.decision(answer.id);
    if (decision) {
      problems.push(alreadyDecided(decision));
      continue;
    }
    if (decidedBy === request.requester) {
      problems.push(`${decidedBy} asked for ${answer.id} and cannot decide its own request; ${request.approver} decides.`);
    } else if (!decider || !canApprove(decider, request.requester, request.tool)) {
      problems.push(
        `${decidedBy} has no authority to approve ${request.requester}'s ${request.tool} (${answer.id}); ${request.approver} decides.`,
      );
    } else if (reach === 'own-chain' && rememberOf(answer) !== undefined) {
      // Remembered, an approval would reach past its chains: the session's other requests, or every session's.
      problems.push(
        `${answer.id}: ${decidedBy} decides for its own chains only, so it approves once; "always" (for the session or as a rule) is the human's to give.`,
      );
    } else if (!reachesRequest(reach, decidedBy, request)) {
      // Agents decide only what was addressed to them; the human, at the top of every chain, may step in.
      problems.push(`${answer.id} is addressed to ${request.approver}, not to ${decidedBy}; ${request.approver} decides.`);
    }
  }
  // Rules are checked only when everything else holds: their pattern needs the request to be known.
  const rules = new Map<string, ApprovalRule>();
  if (problems.length === 0) {
    for (const answer of answers) {
      if (answer.decision !== 'approve' || rememberOf(answer) !== 'always') continue;
      if (!options.rules) {
        problems.push(
          `${answer.id}: this Legion keeps no approval rules, so "approve always" cannot be recorded; approve it for the session instead.`,
        );
        continue;
      }
      const prepared = await options.rules.prepare(state.request(answer.id)!, answer, {
        decidedBy,
        sessionId: options.sessionId ?? '',
        medium: options.medium,
      });
      if (!prepared.ok) problems.push(`${answer.id}: no rule can be made: ${prepared.error}.`);
      else if (prepared.rule) rules.set(answer.id, prepared.rule);
    }
  }
  if (problems.length > 0) return { status: 'error', error: `Nothing was recorded. ${problems.join(' ')}` };

  const at = new Date().toISOString();
  const claimed = await store.decide(
    answers.map((answer) => {
      return {
        kind: 'decision' as const,
        version: 1 as const,
        requestId: answer.id,
        at,
        decision: answer.decision === 'approve' ? ('approved' as const) : ('rejected' as const),
        ...(answer.reason ? { reason: answer.reason } : {}),
        decidedBy,
        ...rememberedFields(answer, rules.get(answer.id)),
        ...(options.medium ? { medium: options.medium } : {}),
      };
    }),
  );
  if (!claimed.ok) {
    const taken = claimed.taken.map(alreadyDecided);
    return { status: 'error', error: `Nothing was recorded. ${taken.join(' ')}` };
  }
  // Before resuming: a call the resumed turn makes next may already be one the rule approves.
  for (const rule of rules.values()) options.rules!.record(rule);
  const requests = answers.map((answer) => state.request(answer.id)!);
  if (options.resume === false) {
    // Only recorded: a live turn goes on by itself, the rest wait for a resume from any process.
    const continuing: string[] = [];
    const waiting: string[] = [];
    // One probe at a time: a probe holds the lease for a moment, and a second one would take that for a live turn.
    for (const id of new Set(requests.map((request) => request.conversationId)))
      ((await session.turnIsLive?.(id)) ? continuing : waiting).push(id);
    return {
      status: 'answered',
      resumed: [],
      ...(continuing.length > 0 ? { continuing } : {}),
      ...(waiting.length > 0 ? { waiting } : {}),
    };
  }
  return { status: 'answered', ...(await resumeAfterDecisions(session, requests, options.signal)) };
}

/**
 * Resumes what decided requests unblock, each paused turn once, from the
 * highest conversation still waiting on it, so replies travel back up to
 * whoever waits. A turn still live in some process is left to it; so is one
 * that went on before the lease was ours (its process saw the decision and
 * finished while we asked whether it was live).
 */
export async function resumeAfterDecisions(
  session: Omit<AnsweringSession, 'approvals'>,
  // A decided approval request, or an answered question (resume-answered.ts): where it waits, and who waits above.
  requests: readonly { conversationId: string; frames: readonly DelegationFrame[] }[],
  signal: AbortSignal | undefined,
): Promise<{ resumed: TurnResult[]; continuing?: string[] }> {
  const roots = new Map<string, readonly DelegationFrame[]>();
  const continuing = new Set<string>();
  for (const request of requests) {
    // Its gate still waits on the user in a live process (a REPL, `legion serve`): that turn reads the decision
    // from the log and goes on; resuming it here as well would run its tools twice.
    if (continuing.has(request.conversationId) || (await session.turnIsLive?.(request.conversationId))) {
      continuing.add(request.conversationId);
      continue;
    }
    const root = await resumeRoot(session, request);
    if (!roots.has(root.conversationId)) roots.set(root.conversationId, root.frames);
  }
  const resumed: TurnResult[] = [];
  // The signal stops the resumed turns (an MCP client that cancels its answer_approval call), as it stops a sent one.
  for (const [conversationId, frames] of roots) {
    const result = await session.resumeIfWaiting(conversationId, frames, signal);
    if (result) resumed.push(result);
    else continuing.add(conversationId);
  }
  return { resumed, ...(continuing.size > 0 ? { continuing: [...continuing] } : {}) };
}

/**
 * Climbs the request's (or a question's) recorded frames from its conversation to the highest
 * one whose communicate call still waits on it; that turn resumes with the
 * frames above it, as they were when the request was made.
 */
export async function resumeRoot(
  session: Pick<AnsweringSession, 'unanswered'>,
  request: { conversationId: string; frames: readonly DelegationFrame[] },
): Promise<{ conversationId: string; frames: readonly DelegationFrame[] }> {
  const { frames } = request;
  let index = frames.length;
  while (index > 0) {
    const frame = frames[index - 1]!;
    if (!frame.toolUseId || !(await session.unanswered(frame.conversationId)).some((toolUse) => toolUse.id === frame.toolUseId)) break;
    index--;
  }
  return {
    conversationId: index === frames.length ? request.conversationId : frames[index]!.conversationId,
    frames: frames.slice(0, index),
  };
}

/** Why a request cannot be decided again: its decision, or the cancel that settled it. */
export function alreadyDecided(decision: ApprovalDecisionRecord): string {
  if (decision.cancelled)
    return `${decision.requestId} can no longer be decided: the turn that asked was cancelled by ${decision.decidedBy} at ${decision.at}, so nothing of it will run.`;
  return `${decision.requestId} was already ${decision.decision} by ${decision.decidedBy} at ${decision.at}.`;
}
