import { randomBytes } from 'node:crypto';
import type { ConversationRef, EventBus } from '../../kernel/index.js';
import type { ClaimCaller, SessionFileClaims, TurnClaimHooks, WriteClaimOutcome } from '../../session/index.js';
import type { Collective } from '../../team/index.js';
import type { ClaimConflictRecord, FileClaim, SessionBackend } from '../../store/index.js';

/** What a claim says its turn is doing: the message it answers, on one line, this long at most. */
const DOING_CHARS = 160;

/**
 * A session's file claims: a write claims its file for the writer's conversation until that turn
 * ends (`leaveTurn`, at every ending: success, failure, cancel, pause); another agent's write to a
 * claimed file is refused with the holder, what it is doing and how to proceed, and `claim:conflict`
 * tells every surface: this process's on the bus, other processes' through the record it leaves in
 * the session's conflicts log, which their followers read. The store (`SessionBackend.fileClaims`)
 * tells a dead holder, as it does for a conversation's lease.
 *
 * A delegate may write a file claimed by a turn up its own chain (its caller, its caller's caller):
 * those turns wait on it and gave it the work, so refusing would leave it no way on but to fail
 * (asking its caller through `communicate` would ask a participant that is waiting on it). The claim
 * stays its caller's. Parallel delegates of one caller are not in each other's chains, so they are
 * kept apart.
 */
export class TurnFileClaims implements SessionFileClaims, TurnClaimHooks {
  /** Conversation id → what its running turn is doing (set when the turn starts, dropped when it ends). */
  private readonly doing = new Map<string, string>();

  constructor(
    private readonly backend: Pick<SessionBackend, 'fileClaims' | 'conflicts'>,
    private readonly services: { events: EventBus; collective: Collective },
  ) {}

  enterTurn(conversation: ConversationRef, participantId: string, doing: string | undefined): void {
    this.doing.set(conversation.conversationId, doing === undefined ? `continuing its turn as ${participantId}` : oneLine(doing));
  }

  async leaveTurn(conversation: ConversationRef): Promise<void> {
    this.doing.delete(conversation.conversationId);
    try {
      await this.backend.fileClaims.releaseConversation(conversation.sessionId, conversation.conversationId);
    } catch (error) {
      // Left to the store's own rules (the holder's process ends): the turn's ending stands.
      this.services.events.emit('error:raised', {
        scope: `file claims of ${conversation.conversationId}`,
        message: error instanceof Error ? error.message : String(error),
        code: 'claims_not_released',
        sessionId: conversation.sessionId,
      });
    }
  }

  async claimForWrite(path: string, caller: ClaimCaller): Promise<WriteClaimOutcome> {
    const claim: FileClaim = {
      version: 1,
      path,
      sessionId: caller.conversation.sessionId,
      conversationId: caller.conversation.conversationId,
      participantId: caller.callerId,
      doing: this.doing.get(caller.conversation.conversationId) ?? `a turn of ${caller.callerId}`,
      since: new Date().toISOString(),
    };
    // One call: a refusal names the holder, which may be a turn up the caller's chain (then the write goes ahead under it).
    const result = await this.backend.fileClaims.take(claim);
    if (result.taken) return { ok: true };
    const blocking = result.holder;
    if (this.upTheChain(blocking, caller)) return { ok: true };
    await this.tellConflict(caller, path, blocking);
    const name = this.nameOf(blocking.participantId);
    return {
      ok: false,
      error:
        `${path} is claimed by ${name}, whose turn is changing it (since ${blocking.since}; working on: "${blocking.doing}"). ` +
        `Your ${caller.tool} did not happen, and the file holds ${name}'s version. To proceed: wait for ${name}'s turn to end and try again, ` +
        `ask ${blocking.participantId} through communicate (to make the change, or to tell you when it is done), or work on other files.`,
    };
  }

  /**
   * Tells this process's surfaces at once, then records it for the others. The event goes first: a
   * follower in this process skips the record by its id, which it learns from the event.
   */
  private async tellConflict(caller: ClaimCaller, path: string, blocking: FileClaim): Promise<void> {
    const record: ClaimConflictRecord = {
      kind: 'conflict',
      version: 1,
      id: `cc_${randomBytes(6).toString('hex')}`,
      at: new Date().toISOString(),
      conversationId: caller.conversation.conversationId,
      participantId: caller.callerId,
      tool: caller.tool,
      path,
      holder: {
        participantId: blocking.participantId,
        sessionId: blocking.sessionId,
        conversationId: blocking.conversationId,
        doing: blocking.doing,
        since: blocking.since,
      },
    };
    this.services.events.emit(
      'claim:conflict',
      Object.assign({}, caller.conversation, {
        conflictId: record.id,
        at: record.at,
        participantId: record.participantId,
        tool: record.tool,
        path,
        holder: record.holder,
      }),
    );
    try {
      await this.backend.conflicts.append(caller.conversation.sessionId, record);
    } catch (error) {
      // The refusal stands and this process showed it; only other processes miss it, which is said.
      this.services.events.emit('error:raised', {
        scope: `the conflicts log of session ${caller.conversation.sessionId}`,
        message: error instanceof Error ? error.message : String(error),
        code: 'conflict_not_recorded',
        sessionId: caller.conversation.sessionId,
      });
    }
  }

  async noteForRead(path: string, caller: ClaimCaller): Promise<string | undefined> {
    const holder = await this.backend.fileClaims.get(path);
    if (!holder || this.upTheChain(holder, caller)) return undefined;
    return `Note: ${path} is being changed by ${this.nameOf(holder.participantId)} (claimed since ${holder.since}, working on: "${holder.doing}"): what you read may change before that turn ends.`;
  }

  /** The caller's own conversation, or a turn that waits on the caller (it delegated to it, directly or not). */
  private upTheChain(claim: FileClaim, caller: ClaimCaller): boolean {
    if (claim.sessionId !== caller.conversation.sessionId) return false;
    if (claim.conversationId === caller.conversation.conversationId) return true;
    return caller.frames.some((frame) => frame.conversationId === claim.conversationId);
  }

  private nameOf(participantId: string): string {
    const participant = this.services.collective.get(participantId);
    return participant && participant.name !== participantId ? `${participant.name} (${participantId})` : participantId;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > DOING_CHARS ? `${line.slice(0, DOING_CHARS - 1)}…` : line;
}
