import type { Hono } from 'hono';
import {
  ApprovalAnswerSchema,
  type AnswerOutcome,
  type ApprovalAnswer,
  type Legion,
  type LegionEvents,
  type Session,
} from '@legion-collective/core';
import { answerSizeError, fileChange, waitingParticipants } from '@legion-collective/core/internal';
import { ApiError } from '../api-error.js';
import type { ServerContext } from '../server-context.js';
import type { ApprovalView } from '../wire/approvals.js';
import type { WireQuestion } from '../wire/questions.js';
import { jsonRoute } from './define-routes.js';
import { sessionOf } from './session-routes.js';
import { WEB_MEDIUM } from '../server-turns.js';

const ANSWERED = { status: 'answered' } as const;

function userOf(legion: Legion): string {
  const user = legion.collective.defaultUser()?.id;
  if (!user)
    throw new ApiError(400, 'bad_request', 'The collective has no user participant to answer as: add one (a participant of type "user").');
  return user;
}

/** The session's questions waiting for an answer: those recorded (by any process) and those only this server's turns asked. */
async function pendingQuestions(server: ServerContext, session: Session): Promise<WireQuestion[]> {
  const questions: WireQuestion[] = [];
  const seen = new Set<string>();
  for (const view of await session.questions.list({ status: 'pending' })) {
    seen.add(view.id);
    questions.push({
      id: view.id,
      sessionId: session.id,
      conversationId: view.conversationId,
      from: view.from,
      user: view.user,
      chain: view.chain,
      text: view.text,
      askedAt: view.askedAt,
    });
  }
  for (const asked of server.webUser.pendingQuestions()) {
    if (asked.sessionId !== session.id || seen.has(asked.id)) continue;
    questions.push({
      id: asked.id,
      sessionId: asked.sessionId,
      conversationId: asked.conversationId,
      from: asked.from,
      user: asked.user,
      chain: asked.chain,
      text: asked.text,
      askedAt: asked.askedAt,
    });
  }
  return questions.sort((a, b) => (a.askedAt < b.askedAt ? -1 : a.askedAt > b.askedAt ? 1 : 0));
}

/** The session a recorded question belongs to: known from its event, else looked for. */
async function sessionOfQuestion(server: ServerContext, id: string): Promise<Session | undefined> {
  const known = server.questionSessions.get(id);
  if (known) return server.legion.sessions.get(known);
  for (const meta of await server.legion.sessions.list()) {
    const session = await server.legion.sessions.get(meta.id);
    if (await session.questions.view(id)) return session;
  }
  return undefined;
}

/** Resolves with the next event of this name that matches: a record made here or read from another process. */
function nextEvent<Name extends 'approval:decided' | 'question:answered'>(
  legion: Legion,
  name: Name,
  match: (event: LegionEvents[Name]) => boolean,
): { next: Promise<LegionEvents[Name]>; stop(): void } {
  let stop = (): void => undefined;
  const next = new Promise<LegionEvents[Name]>((resolve) => {
    stop = legion.events.on(name, (event) => {
      if (!match(event as LegionEvents[Name])) return;
      stop();
      resolve(event as LegionEvents[Name]);
    });
  });
  return { next, stop };
}

export function answerRoutes(app: Hono, server: ServerContext): void {
  const { legion, webUser, turns } = server;

  jsonRoute(app, server, 'approvals', async (_server, { params, query }) => {
    const session = await sessionOf(legion, params['id']!);
    const state = await session.approvals.state();
    // A request the browser answered, held until the rest of its batch is answered, is not pending for the browser any more.
    const listed = state
      .list(query.status === 'all' ? {} : { status: 'pending' })
      .filter((view) => query.status === 'all' || !webUser.holdsAnswer(view.id));
    const approvals: ApprovalView[] = listed.map((view) => {
      const chain = waitingParticipants(state.request(view.id)?.frames ?? []);
      if (chain.at(-1) !== view.requester) chain.push(view.requester);
      return {
        id: view.id,
        sessionId: session.id,
        conversationId: view.conversationId,
        at: view.at,
        requester: view.requester,
        approver: view.approver,
        tool: view.tool,
        input: view.input,
        reason: view.reason,
        ...(view.sandbox !== undefined ? { sandbox: view.sandbox } : {}),
        chain,
        status: view.status,
        ...(view.decidedBy !== undefined ? { decidedBy: view.decidedBy } : {}),
        ...(view.decidedAt !== undefined ? { decidedAt: view.decidedAt } : {}),
        ...(view.decisionReason !== undefined ? { decisionReason: view.decisionReason } : {}),
        ...(view.decisionMedium !== undefined ? { decisionMedium: view.decisionMedium } : {}),
        ...(view.decisionRuleId !== undefined ? { decisionRuleId: view.decisionRuleId } : {}),
        ...(view.cancelled ? { cancelled: true as const } : {}),
        ...(view.worktree !== undefined ? { worktree: view.worktree } : {}),
      };
    });
    return { approvals };
  });

  jsonRoute(app, server, 'approvalFileChange', async (_server, { params }) => {
    const session = await sessionOf(legion, params['id']!);
    const state = await session.approvals.state();
    const request = state.request(params['approvalId']!);
    if (!request)
      throw new ApiError(
        404,
        'not_found',
        `Session ${session.id} has no approval request "${params['approvalId']}". List them with GET /api/sessions/${session.id}/approvals.`,
      );
    // Only while it waits: once decided, the file has moved on and "as it is" would no longer be what was decided on.
    if (state.decision(request.id)) return { fileChange: null };
    const change = fileChange({
      workspaceRoot: legion.paths.root,
      auth: legion.auth,
      requester: legion.collective.get(request.requester),
      tool: request.tool,
      input: request.input,
      worktree: state.view(request.id)?.worktree,
    });
    return { fileChange: change ?? null };
  });

  jsonRoute(app, server, 'answerApprovals', async (_server, { params, body }) => {
    const session = await sessionOf(legion, params['id']!);
    const user = userOf(legion);
    const state = await session.approvals.state();
    for (const answer of body.answers) {
      const request = state.request(answer.id);
      if (!request) {
        const pending = state.pending().map((candidate) => candidate.id);
        throw new ApiError(
          404,
          'not_found',
          `Session ${session.id} has no approval request "${answer.id}" (pending: ${pending.join(', ') || 'none'}). List them with GET /api/sessions/${session.id}/approvals.`,
        );
      }
      const decision = state.decision(answer.id);
      if (decision) {
        throw new ApiError(
          409,
          'already_answered',
          `${answer.id} was already ${decision.decision} by ${decision.decidedBy}${decision.medium ? ` in ${decision.medium}` : ''} at ${decision.at}; nothing was recorded.`,
        );
      }
    }
    const answers: ApprovalAnswer[] = body.answers.map((answer) => ({
      id: answer.id,
      decision: answer.decision,
      ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
      ...(answer.remember !== undefined && answer.remember !== 'once' ? { remember: answer.remember } : {}),
      ...(answer.pattern !== undefined ? { pattern: answer.pattern } : {}),
    }));
    // The server's own turn asks the browser through its user surface: answered there, the turn goes on at once.
    for (const answer of answers) {
      const parsed = ApprovalAnswerSchema.safeParse(answer);
      if (!parsed.success)
        throw new ApiError(
          400,
          'bad_request',
          `The answer to ${answer.id} is not valid: ${parsed.error.issues.map((issue) => issue.message).join('; ')}.`,
        );
      if (webUser.holdsAnswer(answer.id))
        throw new ApiError(
          409,
          'already_answered',
          `${answer.id} was already answered in this browser; its batch is decided once each of its requests has an answer.`,
        );
    }
    const offer = webUser.offerOf(answers.map((answer) => answer.id));
    if (offer) {
      offer.answer(answers);
      return ANSWERED;
    }
    // Asked elsewhere (another process, or a paused turn): recorded in the log; core resumes what nothing else runs.
    const first = state.request(answers[0]!.id)!;
    const watch = nextEvent(legion, 'approval:decided', (event) => event.requestId === first.id);
    const work = turns.answer(session, user, answers, first.conversationId);
    const settled = await Promise.race([work.then((outcome: AnswerOutcome) => ({ outcome })), watch.next.then((event) => ({ event }))]);
    watch.stop();
    if ('event' in settled) {
      if (settled.event.decidedBy === user && settled.event.medium === WEB_MEDIUM) return ANSWERED;
      throw new ApiError(
        409,
        'already_answered',
        `${first.id} was already ${settled.event.decision} by ${settled.event.decidedBy}${settled.event.medium ? ` in ${settled.event.medium}` : ''}; nothing was recorded.`,
      );
    }
    if (settled.outcome.status === 'answered') return ANSWERED;
    const already = /already/.test(settled.outcome.error);
    throw new ApiError(already ? 409 : 400, already ? 'already_answered' : 'bad_request', settled.outcome.error);
  });

  jsonRoute(app, server, 'questions', async (_server, { query }) => {
    const sessions =
      query.session !== undefined
        ? [await sessionOf(legion, query.session)]
        : await Promise.all((await legion.sessions.list()).map((meta) => legion.sessions.get(meta.id)));
    const questions: WireQuestion[] = [];
    for (const session of sessions) questions.push(...(await pendingQuestions(server, session)));
    return { questions };
  });

  jsonRoute(app, server, 'answerQuestion', async (_server, { params, body }) => {
    const id = params['id']!;
    // An answer becomes the agent's message: core holds every surface to the limit of a message sent; said now, synchronously.
    const tooLarge = answerSizeError(body.text, legion.config.limits.maxMessageBytes, id);
    if (tooLarge !== undefined) throw new ApiError(400, 'bad_request', tooLarge);
    const local = webUser.question(id);
    if (local) {
      local.answer(body.text);
      return ANSWERED;
    }
    const session = await sessionOfQuestion(server, id);
    const view = session ? await session.questions.view(id) : undefined;
    if (!session || !view)
      throw new ApiError(404, 'not_found', `There is no question "${id}". List the pending ones with GET /api/questions.`);
    if (view.status !== 'pending') {
      const how =
        view.status === 'answered'
          ? `answered by ${view.answer?.answeredBy}${view.answer?.medium ? ` in ${view.answer.medium}` : ''}`
          : `withdrawn (${view.withdrawnReason})`;
      throw new ApiError(409, 'already_answered', `Question ${id} was already ${how}; nothing was recorded.`);
    }
    // This server's turn asked it: answered through the web surface, the door the REPL uses.
    const asked = webUser.questionIn(session.id, view.conversationId);
    if (asked) {
      asked.answer(body.text);
      return ANSWERED;
    }
    // Recorded in the log: the process whose turn asked goes on with it; if that process is gone, core resumes the
    // waiting chain here, which may take a while — the answer is settled once its record is, whatever comes after.
    const watch = nextEvent(legion, 'question:answered', (event) => event.questionId === id);
    const work = session.answerQuestion(id, body.text, { medium: WEB_MEDIUM });
    void turns.track(session.id, view.conversationId, () => work);
    const settled = await Promise.race([work.then((outcome) => ({ outcome })), watch.next.then((event) => ({ event }))]);
    watch.stop();
    if ('event' in settled) {
      if (settled.event.medium === WEB_MEDIUM) return ANSWERED;
      throw new ApiError(
        409,
        'already_answered',
        `Question ${id} was already answered by ${settled.event.answeredBy}${settled.event.medium ? ` in ${settled.event.medium}` : ''}; nothing was recorded.`,
      );
    }
    if (settled.outcome.status === 'answered') return ANSWERED;
    throw new ApiError(409, 'already_answered', settled.outcome.error);
  });
}
