import type { AppendableEntry, ConversationAddress, ConversationLogs, Lease, LogCursor, SessionBackend } from '../store/index.js';

/** The lease each backend instance holds per conversation for `appendUnderLease`, taken at its first append. */
const held = new WeakMap<ConversationLogs, Map<string, Lease>>();

/**
 * Appends as a turn does, under the conversation's lease: for tests and benchmarks that fill a log
 * directly. The lease is taken at the first append through this backend instance (an hour long, never
 * renewed) and kept until the instance closes; a conversation another holder has is an error.
 */
export async function appendUnderLease(
  backend: Pick<SessionBackend, 'conversations'>,
  address: ConversationAddress,
  entry: AppendableEntry,
): Promise<LogCursor> {
  const logs = backend.conversations;
  let leases = held.get(logs);
  if (!leases) held.set(logs, (leases = new Map()));
  const key = `${address.sessionId}/${address.conversationId}`;
  let lease = leases.get(key);
  if (!lease) {
    const taken = await logs.acquire(address, 'a test writing the log', { ttlMs: 3_600_000 });
    if (!taken.acquired)
      throw new Error(`appendUnderLease: ${address.conversationId} is held by ${taken.holder?.owner ?? 'another holder'}`);
    lease = taken.lease;
    leases.set(key, lease);
  }
  return logs.append(address, entry, lease);
}
