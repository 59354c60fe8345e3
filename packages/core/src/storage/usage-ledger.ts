import { UsageRecordSchema, type UsageRecord } from './usage-summary.js';
import { JsonlLog, type LogLine, type LogWarning } from './jsonl-log.js';

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
    return parseRecords(this.log.readForward(0).lines);
  }

  /** Records from a byte offset on; a last line still being written (by another process) is left for the next read. */
  readFrom(offset: number): { records: UsageRecord[]; end: number } {
    const { lines, end } = this.log.readForward(offset, { waitForPartial: true });
    return { records: parseRecords(lines), end };
  }

  close(): void {
    this.log.close();
  }
}

function parseRecords(lines: readonly LogLine[]): UsageRecord[] {
  const records: UsageRecord[] = [];
  for (const line of lines) {
    try {
      const parsed = UsageRecordSchema.safeParse(JSON.parse(line.text));
      if (parsed.success) records.push(parsed.data);
    } catch {
      // a line that is not JSON was reported by the log as torn; skip it
    }
  }
  return records;
}
