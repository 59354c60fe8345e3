import {
  AnsweredElsewhereError,
  type ApprovalView,
  type Legion,
  type LegionEvents,
  type SessionDriver,
  type TurnResult,
} from '@legion-collective/core';
import { parseConversationId } from '@legion-collective/core/internal';
import { styleFor } from '../render/style.js';
import { inert } from '../render/terminal-text.js';
import { SessionLeftError, TERMINAL_MEDIUM, type Prompts } from './prompts.js';

const style = styleFor(process.stdout);

/**
 * Questions and approval requests another process on the workspace (`legion
 * serve`, a `legion run`) puts to the user, as the session's follower reports
 * them: each joins the REPL's card queue like a local one, is answered through
 * the session (`answerQuestion`, `answerApprovals`: the asking process goes on
 * with it), and leaves the queue, with a one-line note, once it is answered
 * anywhere else. Returns the function that stops listening (and withdraws its cards), and
 * `offerWaiting`, which also takes down the cards of a session the REPL has left.
 */
export function offerRemoteAsks(
  legion: Legion,
  prompts: Prompts,
  context: {
    driver: SessionDriver;
    print(text: string): void;
    resume(work: (signal: AbortSignal) => Promise<TurnResult[]>): Promise<void>;
  },
): { stop(): void; offerWaiting(): Promise<void> } {
  /** Question or request id → the controller that withdraws its card, and the session it belongs to. */
  const open = new Map<string, { controller: AbortController; sessionId: string }>();
  const surface = prompts.surface();
  const withdraw = (id: string, reason: Error): void => {
    const card = open.get(id);
    open.delete(id);
    card?.controller.abort(reason);
  };
  const offered = (id: string, sessionId: string): AbortController => {
    const controller = new AbortController();
    open.set(id, { controller, sessionId });
    return controller;
  };

  const question = (event: LegionEvents['question:asked']): void => {
    const session = context.driver.session;
    const user = legion.collective.get(event.user);
    if (!event.remote || event.sessionId !== session.id || user?.type !== 'user' || open.has(event.questionId)) return;
    const controller = offered(event.questionId, session.id);
    const ref = { sessionId: event.sessionId, conversationId: event.conversationId, ...parseConversationId(event.conversationId) };
    surface.ask!(
      { id: event.questionId, user, from: event.from, text: event.text, chain: event.chain, conversation: ref },
      { signal: controller.signal },
    ).then(
      async (text) => {
        open.delete(event.questionId);
        const outcome = await session.answerQuestion(event.questionId, text, { medium: TERMINAL_MEDIUM, answeredBy: context.driver.you });
        if (outcome.status === 'error') context.print(style.red(`  ${inert(outcome.error)}`));
      },
      // Withdrawn: the prompts said so already.
      () => undefined,
    );
  };

  const approval = (event: LegionEvents['approval:requested']): void => {
    const session = context.driver.session;
    const approver = legion.collective.get(event.approver);
    if (!event.remote || event.sessionId !== session.id || approver?.type !== 'user' || open.has(event.requestId)) return;
    const controller = offered(event.requestId, session.id);
    const view: ApprovalView = {
      id: event.requestId,
      at: new Date().toISOString(),
      requester: event.requester,
      approver: event.approver,
      tool: event.tool,
      input: event.input,
      reason: event.reason,
      ...(event.sandbox !== undefined ? { sandbox: event.sandbox } : {}),
      conversationId: event.conversationId,
      status: 'pending',
    };
    surface.approve!([view], { signal: controller.signal, approver }).then(
      async (answers) => {
        open.delete(event.requestId);
        // When the asking process is gone the turn goes on here: the REPL shows it as it shows its own turns (its reply streamed, made inert, said once).
        // Through the session driver (its session is this one: a card of a session the REPL left was withdrawn).
        await context.resume(async (signal) => {
          const outcome = await context.driver.answer(answers, { signal }).done;
          if (outcome.status === 'answered') return outcome.resumed;
          context.print(style.red(`  ${inert(outcome.error)}`));
          return [];
        });
      },
      () => undefined,
    );
  };

  const offs = [
    legion.events.on('question:asked', question),
    legion.events.on('question:answered', (event) =>
      withdraw(event.questionId, new AnsweredElsewhereError(event.medium ?? 'another process')),
    ),
    legion.events.on('question:withdrawn', (event) => withdraw(event.questionId, new Error(`the asking turn ended: ${event.reason}`))),
    legion.events.on('approval:requested', approval),
    legion.events.on('approval:decided', (event) => withdraw(event.requestId, new AnsweredElsewhereError(event.medium ?? event.decidedBy))),
  ];
  /**
   * What already waits for the user in a turn another live process runs (asked before this REPL
   * started, or before it switched here): cards too. Paused work nobody runs is left to /approvals.
   */
  const offerWaiting = async (): Promise<void> => {
    const session = context.driver.session;
    // Switched away (/resume, /new): another session's cards would be answered in the wrong place's
    // context; they leave, each with a line saying how to answer it where it still waits.
    for (const [id, card] of [...open]) if (card.sessionId !== session.id) withdraw(id, new SessionLeftError(card.sessionId));
    const questions = await session.questions.state();
    for (const view of questions.list({ status: 'pending' })) {
      // Asked by a turn still running elsewhere, or one that paused on it (nobody could be asked): its asker still
      // waits, and answering here resumes the chain here. Else its process died and nothing waits on it any more.
      const asker = questions.question(view.id)?.frames?.at(-1);
      const paused =
        asker?.toolUseId !== undefined &&
        (await session.unanswered(asker.conversationId)).some((toolUse) => toolUse.id === asker.toolUseId);
      if (!paused && !(await session.turnIsLive(view.conversationId))) continue;
      question({
        sessionId: session.id,
        conversationId: view.conversationId,
        questionId: view.id,
        user: view.user,
        from: view.from,
        chain: view.chain,
        text: view.text,
        at: view.askedAt,
        remote: true,
      });
    }
    const state = await session.approvals.state();
    // Every pending request: one whose turn runs elsewhere, or one whose turn paused on it (a run with nobody to
    // ask, a process that ended); approving it here resumes that turn here, as `legion approve` would.
    for (const request of state.pending()) {
      approval({
        sessionId: session.id,
        conversationId: request.conversationId,
        requestId: request.id,
        batchId: request.batchId,
        requester: request.requester,
        approver: request.approver,
        tool: request.tool,
        toolUseId: request.toolUseId,
        input: request.input,
        reason: request.reason,
        ...(request.sandbox !== undefined ? { sandbox: request.sandbox } : {}),
        chain: request.frames.map((frame) => frame.participantId),
        remote: true,
      });
    }
  };
  return {
    stop: () => {
      for (const off of offs) off();
      for (const id of [...open.keys()]) withdraw(id, new Error('the REPL stopped following the session'));
    },
    offerWaiting,
  };
}
