import { UsageRecordSchema, type UsageRecord } from './usage-summary.js';
import { JsonlLog, type LogWarning } from './jsonl-log.js';

/**
 * `sessions/<id>/usage.jsonl`: one line per model call, so session totals are a
 * read of small lines rather than a scan of every conversation.
 */
export class UsageLedger {
  private readonly log: JsonlLog;

  constructor(path: string, onWarning?: (warning: LogWarning) => void) {
    this.log = new JsonlLog(path, { onWarning });
  }

  append(record: UsageRecord): void {
    this.log.append(record);
  }

  read(): UsageRecord[] {
    const records: UsageRecord[] = [];
    for (const line of this.log.readForward(0).lines) {
      try {
        const parsed = UsageRecordSchema.safeParse(JSON.parse(line.text));
        if (parsed.success) records.push(parsed.data);
      } catch {
        // a line that is not JSON was reported by the log as torn; skip it
      }
    }
    return records;
  }

  close(): void {
    this.log.close();
  }
}
