import type { MessageWorkLimits } from '../team/index.js';
import { MessageWorkLimitError } from '../kernel/index.js';
import type { DelegationFrame, UsageRecord } from '../store/index.js';

/**
 * The delegation tree a turn belongs to: the id its root frame got when a message started the chain,
 * carried down by communicate and recorded with approvals and questions, so a resumed part of the
 * tree (in any process) is still the same tree. Frames recorded before trees had ids name their root
 * conversation instead.
 */
export function treeOf(frames: readonly DelegationFrame[]): string | undefined {
  const root = frames[0];
  if (!root) return undefined;
  return root.tree ?? `${root.participantId}@${root.conversationId}`;
}

/** The `communicate` call a delegated turn answers (none for the turn that answers the message itself). */
export function delegationOf(frames: readonly DelegationFrame[]): string | undefined {
  const sender = frames.at(-1);
  return sender?.toolUseId === undefined ? undefined : `${sender.conversationId}#${sender.toolUseId}`;
}

/**
 * What one message's delegation tree has started so far: model calls of its agents' loops and
 * `communicate` calls. A call is counted when it is about to start, synchronously, so parallel
 * delegates can never start more than the limit between them; one that would pass it does not start.
 */
export class MessageWork {
  constructor(
    public modelCalls = 0,
    public delegations = 0,
  ) {}

  /** Counts a model call about to start, or says why it may not. */
  startModelCall(participantId: string, limits: MessageWorkLimits): MessageWorkLimitError | undefined {
    if (this.modelCalls >= limits.maxModelCallsPerMessage)
      return new MessageWorkLimitError(participantId, { field: 'maxModelCallsPerMessage', value: limits.maxModelCallsPerMessage });
    this.modelCalls++;
    return undefined;
  }

  /** Counts a delegation about to be sent, or says why it may not. */
  startDelegation(participantId: string, limits: MessageWorkLimits): MessageWorkLimitError | undefined {
    if (this.delegations >= limits.maxDelegationsPerMessage)
      return new MessageWorkLimitError(participantId, { field: 'maxDelegationsPerMessage', value: limits.maxDelegationsPerMessage });
    this.delegations++;
    return undefined;
  }

  /**
   * A tree's work so far, from the session's usage ledger, for a tree this process has not been
   * counting (resumed after a pause, here or in another process): each model call recorded for the
   * tree, and each delegation whose turn made one. A delegation that never reached its model, and a
   * call whose provider reported no usage, leave no record and are not recounted.
   */
  static fromLedger(tree: string, records: Iterable<UsageRecord>): MessageWork {
    const work = new MessageWork();
    const delegations = new Set<string>();
    for (const record of records) {
      if (record.tree !== tree) continue;
      work.modelCalls++;
      if (record.delegation !== undefined) delegations.add(record.delegation);
    }
    work.delegations = delegations.size;
    return work;
  }
}
