import type { UsageRecord } from '../../usage-summary.js';
import type { LogWarning } from '../../jsonl-log.js';
import { UsageLedger } from '../../usage-ledger.js';
import type { WorkspacePaths } from '../../workspace-paths.js';
import { assertSessionName } from '../record-names.js';
import type { LogCursor, UsageLedgerStore } from '../session-backend.js';
import { cursorPosition, makeCursor } from '../log-cursor.js';
import { OpenHandles } from '../../open-handles.js';

const OPEN_LEDGERS = 16;

/** `sessions/<id>/usage.jsonl`, through the `UsageLedger`. */
export class FileUsage implements UsageLedgerStore {
  private readonly ledgers = new OpenHandles<UsageLedger>(OPEN_LEDGERS);

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

  async readSince(sessionId: string, cursor?: LogCursor): Promise<{ records: UsageRecord[]; cursor: LogCursor }> {
    const { records, end } = this.ledger(sessionId).readFrom(cursor === undefined ? 0 : cursorPosition('file', cursor));
    return { records, cursor: makeCursor('file', end) };
  }

  close(): void {
    this.ledgers.closeAll();
  }

  private ledger(sessionId: string): UsageLedger {
    return this.ledgers.getOrOpen(sessionId, () => {
      assertSessionName(sessionId);
      return new UsageLedger(this.paths.usageFile(sessionId), this.onWarning);
    });
  }
}
