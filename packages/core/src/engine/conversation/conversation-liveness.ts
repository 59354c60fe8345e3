import type { ConversationAddress, ConversationLogs } from '../../store/index.js';

/** Only this process's probes carry it: a holder named so is never a turn. */
const PROBE_OWNER = `liveness probe ${process.pid}`;

/**
 * Whether a turn, in this process or another live one, holds the
 * conversation's lease now: then that turn continues what waits there, and a
 * caller elsewhere must only record, not resume. Asked by taking the lease and
 * giving it straight back, so a holder that died or let its lease expire
 * counts as gone, by the backend's own rules for taking leases over.
 */
export async function turnIsLive(logs: ConversationLogs, address: ConversationAddress): Promise<boolean> {
  const attempt = await logs.acquire(address, PROBE_OWNER, { ttlMs: 5_000 });
  if (!attempt.acquired) return true;
  await attempt.lease.release();
  return false;
}
