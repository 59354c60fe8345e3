import type { UsageRecord } from '../../usage-summary.js';
import type { LogWarning } from '../../jsonl-log.js';
import { UsageLedger } from '../../usage-ledger.js';
import type { WorkspacePaths } from '../../workspace-paths.js';
import { assertSessionName } from '../record-names.js';
import type { UsageLedgerStore } from '../session-backend.js';

const OPEN_LEDGERS = 16;

/** `sessions/<id>/usage.jsonl`, through the `UsageLedger`. */
export class FileUsage implements UsageLedgerStore {
  private readonly ledgers = new Map<string, UsageLedger>();

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly onWarning: (warning: LogWarning) => void,
  ) {}

  async append(sessionId: string, record: UsageRecord): Promise<void> {
    this.ledger(sessionId).append(record);
  }

  async read(sessionId: string): Promise<UsageRecord[]> {
    return this.ledger(sessionId).read();
  }

  close(): void {
    for (const ledger of this.ledgers.values()) ledger.close();
    this.ledgers.clear();
  }

  private ledger(sessionId: string): UsageLedger {
    let ledger = this.ledgers.get(sessionId);
    if (ledger) return ledger;
    assertSessionName(sessionId);
    if (this.ledgers.size >= OPEN_LEDGERS) {
      const [oldestId, oldest] = this.ledgers.entries().next().value as [string, UsageLedger];
      oldest.close();
      this.ledgers.delete(oldestId);
    }
    ledger = new UsageLedger(this.paths.usageFile(sessionId), this.onWarning);
    this.ledgers.set(sessionId, ledger);
    return ledger;
  }
}
