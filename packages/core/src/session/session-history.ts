import type { Message, ConversationRef } from '../kernel/index.js';
import type { SessionApprovals } from '../store/index.js';

/**
 * What the collective tools read of a session (its conversations, their messages, its approvals):
 * a port below the tools, so they never know the `Session` class above them, which implements it.
 */
export interface SessionHistory {
  readonly id: string;
  readonly approvals: SessionApprovals;
  listConversations(): Promise<ConversationRef[]>;
  conversation(key: { initiator: string; responder: string; name?: string | undefined }): { recent(limit: number): Promise<Message[]> };
}
