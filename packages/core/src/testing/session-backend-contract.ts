import { copyContract } from './backend-contract/contract-copy.js';
import { conversationsContract } from './backend-contract/contract-conversations.js';
import { fileClaimsContract } from './backend-contract/contract-file-claims.js';
import { indexContract } from './backend-contract/contract-index.js';
import { leasesContract } from './backend-contract/contract-leases.js';
import { recordsContract } from './backend-contract/contract-records.js';
import { recordLogsContract } from './backend-contract/contract-record-logs.js';
import { questionsContract } from './backend-contract/contract-questions.js';
import { sessionsContract } from './backend-contract/contract-sessions.js';
import type { MakeHarness } from './backend-contract/harness.js';
import { vitest } from './backend-contract/vitest-api.js';

export type { MakeHarness, SessionBackendHarness } from './backend-contract/harness.js';

/**
 * What every `SessionBackend` must do, as vitest tests: sessions, conversation
 * logs and followers, leases, the record logs (approvals: first decision wins; questions: first outcome
 * wins; usage; cursors and older records for all of them), agent state and artifacts, the session index (counts, usage totals, word search). Run it from a `*.test.ts` file with a harness that
 * opens backends on one fresh store per test:
 *
 *     describeSessionBackendContract('PostgresSessionBackend', async () => ({ open, abandonLease, ... }));
 */
export function describeSessionBackendContract(name: string, makeHarness: MakeHarness): void {
  vitest().describe(`${name} (SessionBackend contract)`, () => {
    sessionsContract(makeHarness);
    conversationsContract(makeHarness);
    leasesContract(makeHarness);
    recordsContract(makeHarness);
    recordLogsContract(makeHarness);
    questionsContract(makeHarness);
    copyContract(makeHarness);
    fileClaimsContract(makeHarness);
    indexContract(makeHarness);
  });
}
