import { errorMessage, SessionDriver, type AnswerOutcome, type Legion, type Session, type TurnResult } from '@legion-collective/core';

/** The medium the browser's sends and answers are recorded with. */
export const WEB_MEDIUM = 'web';

/** One message's hold on a conversation, from the busy check until its turn is tracked. */
export interface TurnClaim {
  send(session: Session, request: { from: string; to: string; text: string; conversation?: string | undefined }): void;
  release(): void;
}

function claimKey(sessionId: string, conversationId: string): string {
  return `${sessionId}\0${conversationId}`;
}

interface RunningTurn {
  sessionId: string;
  conversationId: string;
  controller: AbortController;
  done: Promise<unknown>;
}

/**
 * The turns this server runs for the browser (a message sent, approvals answered): each can be
 * stopped, and closing stops them all and waits for them to end, so the logs are left whole.
 */
export class ServerTurns {
  private readonly running = new Set<RunningTurn>();
  /** Conversations a message was let into whose turn has not started yet (`session\0conversation`). */
  private readonly claimed = new Set<string>();

  constructor(private readonly legion: Legion) {}

  busy(sessionId: string, conversationId: string): boolean {
    if (this.claimed.has(claimKey(sessionId, conversationId))) return true;
    for (const turn of this.running) if (turn.sessionId === sessionId && turn.conversationId === conversationId) return true;
    return false;
  }

  /**
   * Takes the conversation for one message at once, before the caller awaits anything (such as
   * asking whether another process runs a turn there): two messages arriving together cannot both
   * find it free. Undefined when it is taken; else send with the claim, or release it.
   */
  claim(sessionId: string, conversationId: string): TurnClaim | undefined {
    if (this.busy(sessionId, conversationId)) return undefined;
    const key = claimKey(sessionId, conversationId);
    this.claimed.add(key);
    let open = true;
    const release = (): void => {
      if (open) this.claimed.delete(key);
      open = false;
    };
    return {
      release,
      send: (session, request) => {
        if (!open) throw new Error(`The claim on conversation ${conversationId} was released; claim it again to send.`);
        // Tracked before the claim goes, so the conversation is busy throughout.
        this.send(session, request, conversationId);
        release();
      },
    };
  }

  /** Sends in the background, through the session driver every surface drives; what becomes of it is told by events (a failure as `error:raised`). */
  send(
    session: Session,
    request: { from: string; to: string; text: string; conversation?: string | undefined },
    conversationId: string,
  ): void {
    this.track(session.id, conversationId, async (signal) => {
      const driver = await SessionDriver.open(this.legion, { session, as: request.from, medium: WEB_MEDIUM });
      return driver.send(request.text, { to: request.to, conversation: request.conversation, signal, ifBusy: 'fail' }).done;
    });
  }

  /** Decides approvals as the browser's user through the session driver, and resumes what they held, so close() waits for it. */
  answer(session: Session, user: string, answers: Parameters<SessionDriver['answer']>[0], conversationId: string): Promise<AnswerOutcome> {
    const work = SessionDriver.open(this.legion, { session, as: user, medium: WEB_MEDIUM }).then((driver) => driver.answer(answers).done);
    void this.track(session.id, conversationId, () => work);
    return work;
  }

  /** Runs work that resumes turns (answered approvals) so that close() waits for it too. */
  track(sessionId: string, conversationId: string, work: (signal: AbortSignal) => Promise<TurnResult | unknown>): Promise<unknown> {
    const controller = new AbortController();
    const turn: RunningTurn = { sessionId, conversationId, controller, done: Promise.resolve() };
    turn.done = work(controller.signal)
      .catch((error: unknown) => {
        this.legion.events.emit('error:raised', {
          scope: `legion serve: conversation ${conversationId}`,
          message: errorMessage(error),
          sessionId,
        });
      })
      .finally(() => this.running.delete(turn));
    this.running.add(turn);
    return turn.done;
  }

  /** Stops the server's turns in a conversation (or the whole session); returns how many. */
  cancel(sessionId: string, conversationId?: string): number {
    let count = 0;
    for (const turn of this.running) {
      if (turn.sessionId !== sessionId || (conversationId !== undefined && turn.conversationId !== conversationId)) continue;
      turn.controller.abort(new Error('stopped from the browser'));
      count++;
    }
    return count;
  }

  /** Stops every turn and waits until each has ended (its abort written to the log). */
  async close(): Promise<void> {
    for (const turn of this.running) turn.controller.abort(new Error('legion serve is shutting down'));
    await Promise.all([...this.running].map((turn) => turn.done));
  }
}
