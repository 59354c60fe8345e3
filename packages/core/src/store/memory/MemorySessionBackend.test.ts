// The assertions are the contract suite's (testing/backend-contract/): every one of them runs against this backend.
import { describeSessionBackendContract, type SessionBackendHarness } from '../../testing/session-backend-contract.js';
import { MemorySessionBackend } from './MemorySessionBackend.js';
import { MemorySessionStore } from './MemorySessionStore.js';

describeSessionBackendContract('MemorySessionBackend', async (): Promise<SessionBackendHarness> => {
  const store = new MemorySessionStore();
  return {
    open: (options) => new MemorySessionBackend({ store, ...options }),
    abandonLease: async (address, owner) => {
      const holder = new MemorySessionBackend({ store });
      const result = await holder.conversations.acquire(address, owner, { ttlMs: 3_600_000 });
      if (!result.acquired) throw new Error('the lease to abandon is held already');
      store.endProcess(holder.processId);
    },
    abandonFileClaim: async (claim) => {
      const holder = new MemorySessionBackend({ store });
      if (!(await holder.fileClaims.take(claim)).taken) throw new Error('the claim to abandon is held already');
      store.endProcess(holder.processId);
    },
    breakSession: async (sessionId) => void store.sessions.set(sessionId, '{ "version": 1, "id": '),
    breakConversation: async (address) =>
      void store.logs.get(`${address.sessionId}/${address.conversationId}`)?.entries.push('{"kind":"message","id":"broken"}'),
    storeRecord: async (sessionId, log, record) => {
      const records = store.recordLogs.get(`${sessionId}/${log}`) ?? [];
      records.push(JSON.stringify(record));
      store.recordLogs.set(`${sessionId}/${log}`, records);
    },
    dispose: async () => {},
  };
});
