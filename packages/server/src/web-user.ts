import { randomUUID } from 'node:crypto';
import type { ApprovalAnswer, ApprovalView, Legion, UserQuestion, UserSurface } from '@legion-collective/core';
import { WEB_MEDIUM } from './server-turns.js';
import type { WireQuestion } from './wire/questions.js';

/**
 * A question the browser is asked now, through the web surface, waiting for `answer`: the wire's
 * question (its `id` is the durable question's when core recorded one, else one of this server).
 */
export interface AskedQuestion extends WireQuestion {
  durable: boolean;
  answer(text: string): void;
}

/**
 * The approvals of one model response the browser is asked to decide. Core takes them together;
 * the browser may answer them one by one: answers are held until each request has one.
 */
export interface OfferedApprovals {
  sessionId: string | undefined;
  requests: ApprovalView[];
  /** Answers given so far, by request id. */
  answered: Map<string, ApprovalAnswer>;
  /** Adds answers; once every request has one, the batch is decided. Returns whether it was. */
  answer(answers: readonly ApprovalAnswer[]): boolean;
}

/**
 * The browser as a user surface: `legion.attachUser({ medium: 'web', ask, approve })`, the door
 * the REPL uses. What the server's turns ask is held here until an API call answers it, or until
 * another surface or process answers first (the signal aborts, and the offer is withdrawn).
 */
export class WebUser {
  private readonly questions = new Map<string, AskedQuestion>();
  private readonly offers = new Set<OfferedApprovals>();
  /** Sessions of approval requests, from their events (an `ApprovalView` names only its conversation). */
  private readonly requestSessions = new Map<string, string>();
  private readonly detach: () => void;
  private readonly offEvents: () => void;

  constructor(
    private readonly legion: Legion,
    private readonly onQuestion: (question: AskedQuestion, change: 'asked' | 'answered' | 'withdrawn', detail?: string) => void,
  ) {
    this.offEvents = legion.events.on('approval:requested', (event) => {
      this.requestSessions.set(event.requestId, event.sessionId);
      if (this.requestSessions.size > 10_000) this.requestSessions.delete(this.requestSessions.keys().next().value!);
    });
    const surface: UserSurface = {
      medium: WEB_MEDIUM,
      ask: (question, { signal }) => this.ask(question, signal),
      approve: (requests, { signal }) => this.approve(requests, signal),
    };
    // Announced to the workspace: a `legion run` elsewhere whose agent asks waits for this browser to answer.
    this.detach = legion.attachUser(surface, { followsWorkspace: true });
  }

  pendingQuestions(): AskedQuestion[] {
    return [...this.questions.values()];
  }

  /** The question asked here in that conversation now, if any (a conversation asks one at a time). */
  questionIn(sessionId: string, conversationId: string): AskedQuestion | undefined {
    for (const question of this.questions.values())
      if (question.sessionId === sessionId && question.conversationId === conversationId) return question;
    return undefined;
  }

  question(id: string): AskedQuestion | undefined {
    return this.questions.get(id);
  }

  /** The offer holding every one of these request ids, if one does. */
  offerOf(requestIds: readonly string[]): OfferedApprovals | undefined {
    for (const offer of this.offers) if (requestIds.every((id) => offer.requests.some((request) => request.id === id))) return offer;
    return undefined;
  }

  /** Whether the browser answered this request and the server holds the answer until its batch is complete. */
  holdsAnswer(requestId: string): boolean {
    for (const offer of this.offers) if (offer.answered.has(requestId)) return true;
    return false;
  }

  close(): void {
    this.offEvents();
    this.detach();
  }

  private async ask(question: UserQuestion, signal: AbortSignal): Promise<string> {
    const { sessionId, conversationId } = question.conversation;
    // Core records a question before a surface is asked, and names it: the browser answers it under that id.
    let durableId = question.id;
    if (durableId === undefined) {
      try {
        const session = await this.legion.sessions.get(sessionId);
        durableId = (await session.questions.list({ status: 'pending' })).find((pending) => pending.conversationId === conversationId)?.id;
      } catch {
        // Without a record, the question lives here only.
      }
    }
    return new Promise<string>((resolve, reject) => {
      const id = durableId ?? `q_${randomUUID()}`;
      const asked: AskedQuestion = {
        id,
        sessionId,
        conversationId,
        user: question.user.id,
        from: question.from,
        chain: [...question.chain],
        text: question.text,
        askedAt: new Date().toISOString(),
        durable: durableId !== undefined,
        answer: (text) => {
          this.questions.delete(id);
          signal.removeEventListener('abort', withdrawn);
          this.onQuestion(asked, 'answered', text);
          resolve(text);
        },
      };
      const withdrawn = (): void => {
        this.questions.delete(id);
        this.onQuestion(asked, 'withdrawn', 'answered elsewhere');
        reject(signal.reason instanceof Error ? signal.reason : new Error('withdrawn'));
      };
      if (signal.aborted) return withdrawn();
      signal.addEventListener('abort', withdrawn, { once: true });
      this.questions.set(id, asked);
      this.onQuestion(asked, 'asked');
    });
  }

  private approve(requests: ApprovalView[], signal: AbortSignal): Promise<ApprovalAnswer[]> {
    return new Promise<ApprovalAnswer[]>((resolve, reject) => {
      const offer: OfferedApprovals = {
        sessionId: requests.map((request) => this.requestSessions.get(request.id)).find((id) => id !== undefined),
        requests,
        answered: new Map(),
        answer: (answers) => {
          for (const answer of answers) offer.answered.set(answer.id, answer);
          if (requests.some((request) => !offer.answered.has(request.id))) return false;
          this.offers.delete(offer);
          signal.removeEventListener('abort', withdrawn);
          resolve(requests.map((request) => offer.answered.get(request.id)!));
          return true;
        },
      };
      const withdrawn = (): void => {
        this.offers.delete(offer);
        reject(signal.reason instanceof Error ? signal.reason : new Error('withdrawn'));
      };
      if (signal.aborted) return withdrawn();
      signal.addEventListener('abort', withdrawn, { once: true });
      this.offers.add(offer);
    });
  }
}
