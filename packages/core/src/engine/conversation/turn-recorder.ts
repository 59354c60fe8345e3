import type { ConversationRef, Message } from '../../kernel/index.js';
import type { RuntimeOutcome, TurnResult } from '../../session/index.js';
import type { AppendableEntry, LogCursor } from '../../store/index.js';
import type { ConversationServices } from './conversation-services.js';
import { RECENT_FOR_REPAIR } from './turn-preparation.js';
import { endingText, turnEnding } from './turn-ending.js';
import { unansweredToolUses } from './unanswered-tool-uses.js';

/** How the recorder writes into the conversation: under the running turn's lease. */
export interface TurnLog {
  append(message: Omit<Message, 'id' | 'at'>, author: string): Promise<Message>;
  /** Appends a log entry that is no message (a note), under the lease. */
  appendEntry(entry: AppendableEntry): Promise<LogCursor>;
  recent(limit: number): Promise<Message[]>;
}

/**
 * Writes how each turn of a conversation ended: the reply, a note that it waits on
 * approvals or answers, or, when it failed or was cancelled, its ending in the
 * responder's place. Keeps the messages the running turn appended, which a failed
 * turn's ending names when the provider refused them.
 */
export class TurnRecorder {
  /** The messages the running turn appended, oldest first. */
  private turnMessages: Message[] = [];

  constructor(
    private readonly ref: ConversationRef,
    private readonly log: TurnLog,
    private readonly services: Pick<ConversationServices, 'events' | 'endedTree' | 'endInterrupted'>,
  ) {}

  /** A new turn starts: none of its messages are written yet. */
  startTurn(): void {
    this.turnMessages = [];
  }

  /** A message of the running turn was written. */
  wrote(message: Message): void {
    this.turnMessages.push(message);
  }

  /**
   * Writes how the turn ended: the reply, a note that it waits on approvals, or,
   * when it failed or was cancelled, its ending in the responder's place (so the
   * next request shows the model that the message was not answered, and the next
   * message is never merged with it).
   */
  async record(outcome: RuntimeOutcome, responder: string): Promise<TurnResult> {
    const conversationId = this.ref.conversationId;
    const at = new Date().toISOString();
    if (outcome.status === 'success') {
      if (!outcome.message) await this.log.append({ role: 'assistant', content: [{ type: 'text', text: outcome.reply }] }, responder);
      return {
        status: 'success',
        reply: outcome.reply,
        message: outcome.message,
        ...(outcome.truncated ? { truncated: true } : {}),
        conversationId,
      };
    }
    if (outcome.status === 'paused') {
      const questions = outcome.questions ?? [];
      const ids = [...outcome.requests.map((request) => request.id), ...questions.map((question) => question.id)].join(', ');
      const text = questions.length === 0 ? `paused until approvals are answered: ${ids}` : `paused until answered: ${ids}`;
      await this.log.appendEntry({
        kind: 'note',
        level: 'info',
        code: questions.length === 0 ? 'approval_required' : 'answer_required',
        text,
        at,
      });
      return { status: 'paused', requests: outcome.requests, ...(questions.length > 0 ? { questions } : {}), conversationId };
    }
    if (!(await this.writeEnding(outcome, responder)))
      await this.log.appendEntry({ kind: 'note', level: 'error', code: outcome.code, text: outcome.error, at });
    this.services.events.emit('error:raised', {
      scope: `turn of ${responder}`,
      message: outcome.error,
      code: outcome.code,
      participantId: responder,
      sessionId: this.ref.sessionId,
    });
    return { status: 'error', code: outcome.code, error: outcome.error, conversationId };
  }

  /**
   * Ends a failed or cancelled turn in the log: calls it left without results get
   * one (nothing waits on them any more), then its ending closes the turn as an
   * assistant message. Only when the turn's last message is the initiator's
   * (the message or tool results nobody answered): false when there is nothing
   * to close (a turn that failed before its message was written).
   */
  private async writeEnding(outcome: { code: string; error: string }, responder: string): Promise<boolean> {
    const recent = await this.log.recent(RECENT_FOR_REPAIR);
    const dangling = unansweredToolUses(recent);
    if (dangling.length > 0) {
      this.services.endInterrupted?.(dangling.map((toolUse) => toolUse.id));
      const why = outcome.code === 'cancelled' ? 'the turn was cancelled' : `the turn failed (${outcome.code})`;
      await this.log.append(
        {
          role: 'user',
          content: dangling.map((toolUse) => ({
            type: 'tool_result' as const,
            toolUseId: toolUse.id,
            content: `not run to the end: ${why} before ${toolUse.name} returned. Check its effects before repeating it.`,
            isError: true,
          })),
        },
        this.ref.responder,
      );
    } else if (recent.at(-1)?.role !== 'user') {
      return false;
    }
    // What was new in the refused request: the turn's messages after its last model response.
    const lastResponse = this.turnMessages.findLastIndex((message) => message.role === 'assistant');
    const sinceResponse = this.turnMessages.slice(lastResponse + 1).filter((message) => message.role === 'user');
    const ending = turnEnding(outcome.code, outcome.error, sinceResponse);
    // Before the ending is written: a decision racing it must find the requests settled, not resume a tree that ended.
    await this.services.endedTree?.(this.ref.conversationId, ending);
    await this.log.append({ role: 'assistant', content: [{ type: 'text', text: endingText(ending) }], ending }, responder);
    return true;
  }
}
