import { z } from 'zod';
import type { Participant } from '../team/index.js';
import { AnsweredElsewhereError, errorMessage, LegionError, SurfaceDeclinedError, SurfaceDetachedError } from '../kernel/index.js';
import type { EventBus } from '../kernel/index.js';
import { ApprovalAnswerSchema, type ApprovalAnswer, type ApprovalView } from '../store/index.js';
import type { UserQuestion, UserSurface } from './user-surface.js';

/** What became of one question or approval batch offered to the attached surfaces. */
export type OfferOutcome<T> =
  /** `elsewhere`: the answer is one recorded first by another process (or by a caller of this one not among the surfaces). */
  | { status: 'answered'; value: T; medium: string; elsewhere?: true | undefined }
  /** No surface could take it, or every one that could failed or was detached. */
  | { status: 'unanswered'; failures: Array<{ medium: string; error: string; declined?: true | undefined }> };

type Capability = 'ask' | 'approve';

/**
 * How an offer races the session's records: an answer any process records
 * first (`session.answerQuestion`, `legion approvals` in another terminal, a
 * browser) wins over the local surfaces, which are withdrawn.
 */
export interface OfferRace<T> {
  /** Resolves once an answer is recorded, by anyone; rejects when `signal` aborts. */
  recorded(signal: AbortSignal): Promise<{ value: T; medium: string }>;
  /**
   * Records a local surface's answer, first-wins across processes; when it
   * loses, the answer recorded first is returned and used instead.
   */
  claim?(value: T, medium: string): Promise<{ ok: true } | { ok: false; value: T; medium: string }>;
}

/** One attached surface; a wrapper, so the same object attached twice is two surfaces. */
interface Attached {
  readonly surface: UserSurface;
}

/** An offer still waiting for its first answer. */
interface OpenOffer {
  readonly capability: Capability;
  start(attached: Attached): void;
  withdraw(attached: Attached): void;
}

const AnswerTextSchema = z.string();
/** How often one surface is asked a question again after an answer that cannot stand, before it counts as failed. */
const ANSWER_ATTEMPTS = 3;
const ApprovalAnswersSchema = z.array(ApprovalAnswerSchema);

/**
 * The user surfaces attached to one Legion, and the race between them: every
 * question or approval batch is offered to each surface that can take it
 * (including one attached while it waits), the first answer wins, and the
 * others are aborted with the winner's medium as the reason.
 */
export class UserSurfaces {
  private readonly attached = new Set<Attached>();
  private readonly open = new Set<OpenOffer>();

  constructor(private readonly events: EventBus) {}

  /** Attaches a surface; the disposer detaches it and withdraws what it was being asked. */
  attach(surface: UserSurface): () => void {
    if (typeof surface.medium !== 'string' || surface.medium.length === 0) {
      throw new LegionError('usage', 'attachUser needs a "medium" naming the surface (terminal, web, mcp, …).');
    }
    if (!surface.ask && !surface.approve) {
      throw new LegionError('usage', `The ${surface.medium} surface has neither "ask" nor "approve": it could answer nothing.`, {
        medium: surface.medium,
      });
    }
    const attached: Attached = { surface };
    this.attached.add(attached);
    // A browser opened while an agent waits on the user sees the question too.
    for (const offer of [...this.open]) if (surface[offer.capability]) offer.start(attached);
    return () => {
      if (!this.attached.delete(attached)) return;
      for (const offer of [...this.open]) offer.withdraw(attached);
    };
  }

  /** Whether any attached surface can take this kind of offer now. */
  can(capability: Capability): boolean {
    for (const attached of this.attached) if (attached.surface[capability]) return true;
    return false;
  }

  /** Puts a message addressed to the user to every surface that answers questions (racing the log, with `race`). */
  ask(
    question: UserQuestion,
    signal: AbortSignal,
    race?: OfferRace<string>,
    check?: (answer: string) => string | undefined,
  ): Promise<OfferOutcome<string>> {
    const sessionId = question.conversation.sessionId;
    return this.offer(
      'ask',
      async (surface, surfaceSignal) => {
        for (let attempt = 1; ; attempt++) {
          const answer = AnswerTextSchema.parse(await surface.ask!(question, { signal: surfaceSignal }));
          // An answer that cannot stand (over the size limit) is never recorded: the surface hears why (an error
          // event) and is asked again, so what its user typed is theirs to shorten; one that keeps sending such
          // answers has failed, as a surface whose approval answers fail their check.
          const problem = check?.(answer);
          if (problem === undefined) return answer;
          if (attempt >= ANSWER_ATTEMPTS) throw new LegionError('answer_refused', problem, { medium: surface.medium });
          this.events.emit('error:raised', {
            scope: `user surface ${surface.medium}`,
            message: `${problem} Asked again.`,
            code: 'answer_refused',
            sessionId,
          });
        }
      },
      signal,
      sessionId,
      race,
    );
  }

  /** Puts a batch of approval requests to every surface that decides approvals. */
  approve(request: {
    approver: Participant;
    requests: ApprovalView[];
    signal: AbortSignal;
    /** Rejects answers that parse but cannot stand (an "approve always" rule that cannot be made): that surface failed. */
    check?: ((answers: ApprovalAnswer[]) => Promise<void>) | undefined;
    /** Decisions recorded elsewhere first win over the surfaces'. */
    race?: OfferRace<ApprovalAnswer[]> | undefined;
  }): Promise<OfferOutcome<ApprovalAnswer[]>> {
    const { approver, requests, signal, check, race } = request;
    return this.offer(
      'approve',
      async (surface, surfaceSignal) => {
        const answers = ApprovalAnswersSchema.parse(await surface.approve!(requests, { signal: surfaceSignal, approver }));
        await check?.(answers);
        return answers;
      },
      signal,
      undefined,
      race,
    );
  }

  private offer<T>(
    capability: Capability,
    run: (surface: UserSurface, signal: AbortSignal) => Promise<T>,
    signal: AbortSignal,
    sessionId?: string,
    race?: OfferRace<T>,
  ): Promise<OfferOutcome<T>> {
    signal.throwIfAborted();
    return new Promise<OfferOutcome<T>>((resolve, reject) => {
      const running = new Map<Attached, AbortController>();
      const failures: Array<{ medium: string; error: string; declined?: true | undefined }> = [];
      let settled = false;
      const watching = new AbortController();

      const settle = (reason: unknown): void => {
        settled = true;
        this.open.delete(offer);
        watching.abort();
        signal.removeEventListener('abort', onAbort);
        for (const controller of running.values()) controller.abort(reason);
        running.clear();
      };
      const onAbort = (): void => {
        if (settled) return;
        settle(signal.reason);
        reject(signal.reason);
      };
      const giveUpIfNoneLeft = (): void => {
        if (settled || running.size > 0) return;
        settle(undefined);
        resolve({ status: 'unanswered', failures });
      };

      const offer: OpenOffer = {
        capability,
        start: (attached) => {
          const medium = attached.surface.medium;
          const controller = new AbortController();
          running.set(attached, controller);
          let answer: Promise<T>;
          try {
            answer = run(attached.surface, controller.signal);
          } catch (error) {
            answer = Promise.reject(error);
          }
          answer.then(
            (value) => {
              // An answer after the surface lost, was detached or the turn ended counts for nothing.
              if (settled || controller.signal.aborted) return;
              running.delete(attached);
              settle(new AnsweredElsewhereError(medium));
              if (!race?.claim) {
                resolve({ status: 'answered', value, medium });
                return;
              }
              race.claim(value, medium).then((claimed) => {
                if (claimed.ok) {
                  resolve({ status: 'answered', value, medium });
                  return;
                }
                // Recorded first elsewhere: that answer stands, and the surface that answered too late is told so.
                controller.abort(new AnsweredElsewhereError(claimed.medium));
                resolve({ status: 'answered', value: claimed.value, medium: claimed.medium, elsewhere: true });
              }, reject);
            },
            (error: unknown) => {
              if (settled || controller.signal.aborted) return;
              running.delete(attached);
              // A surface that declined (not its question) did not fail: nothing to report.
              if (error instanceof SurfaceDeclinedError) failures.push({ medium, error: errorMessage(error), declined: true });
              else {
                failures.push({ medium, error: errorMessage(error) });
                this.events.emit('error:raised', {
                  scope: `user surface ${medium}`,
                  message: errorMessage(error),
                  code: 'user_surface_failed',
                  ...(sessionId ? { sessionId } : {}),
                });
              }
              giveUpIfNoneLeft();
            },
          );
        },
        withdraw: (attached) => {
          const controller = running.get(attached);
          if (!controller) return;
          running.delete(attached);
          controller.abort(new SurfaceDetachedError(attached.surface.medium));
          giveUpIfNoneLeft();
        },
      };

      this.open.add(offer);
      signal.addEventListener('abort', onAbort, { once: true });
      for (const attached of [...this.attached]) if (!settled && attached.surface[capability]) offer.start(attached);
      giveUpIfNoneLeft();
      // Watched only while a surface is asked (it reads at once, so an answer recorded before is not missed).
      if (!settled) {
        race?.recorded(watching.signal).then(
          ({ value, medium }) => {
            if (settled) return;
            settle(new AnsweredElsewhereError(medium));
            resolve({ status: 'answered', value, medium, elsewhere: true });
          },
          // Aborted once the offer settled, or a read that keeps failing: the surfaces still answer.
          () => undefined,
        );
      }
    });
  }
}
