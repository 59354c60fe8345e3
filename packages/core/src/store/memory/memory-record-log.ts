import { assertSessionName } from '../record-names.js';
import type { ClaimResult, LogCursor, RecordLog, RecordLogFormat, StorageWarning } from '../session-backend.js';
import { cursorPosition, makeCursor } from '../log-cursor.js';
import type { MemorySessionStore } from './MemorySessionStore.js';
import { readRecord } from './memory-records.js';

/**
 * A record log in a `MemorySessionStore`, as JSON texts in order; a claim is checked and written
 * with no await between, so it is one step for every instance on the store: the first claim wins.
 */
export class MemoryRecordLog<Appended, Claim = never> implements RecordLog<Appended, Claim> {
  constructor(
    private readonly store: MemorySessionStore,
    private readonly format: RecordLogFormat<Appended, Claim>,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  async append(sessionId: string, record: Appended): Promise<void> {
    this.records(sessionId).push(JSON.stringify(record));
    if (this.format.wakesFollowers) this.store.changed(sessionId);
  }

  async claim(sessionId: string, records: readonly Claim[]): Promise<ClaimResult<Claim>> {
    const stored = this.records(sessionId);
    if (records.length === 0) return { ok: true };
    const taken: Claim[] = [];
    for (const record of records) {
      const won = this.store.claims.get(this.claimId(sessionId, record));
      if (won !== undefined) taken.push(readRecord(won, this.format.claimSchema, this.source(sessionId), this.format.what));
    }
    if (taken.length > 0) return { ok: false, taken };
    for (const record of records) {
      const text = JSON.stringify(record);
      this.store.claims.set(this.claimId(sessionId, record), text);
      stored.push(text);
    }
    if (this.format.wakesFollowers) this.store.changed(sessionId);
    return { ok: true };
  }

  async read(sessionId: string): Promise<Array<Appended | Claim>> {
    return (await this.readSince(sessionId)).records;
  }

  async readSince(sessionId: string, cursor?: LogCursor): Promise<{ records: Array<Appended | Claim>; cursor: LogCursor }> {
    const stored = this.records(sessionId);
    const from = cursor === undefined ? 0 : cursorPosition('memory', cursor);
    const read = this.format.reader();
    const records: Array<Appended | Claim> = [];
    for (let index = from; index < stored.length; index++) {
      let value: unknown;
      try {
        value = JSON.parse(stored[index]!);
      } catch (error) {
        this.warn({
          source: this.source(sessionId),
          offset: index,
          problem: `skipped an unreadable ${this.format.what} (is not valid JSON: ${(error as Error).message})`,
        });
        continue;
      }
      const reading = read(value);
      if (!reading.ok)
        this.warn({
          source: this.source(sessionId),
          offset: index,
          problem: `skipped an unreadable ${this.format.what} (${reading.problem})`,
        });
      else if (reading.record !== undefined) records.push(reading.record);
    }
    return { records, cursor: makeCursor('memory', Math.max(from, stored.length)) };
  }

  private claimId(sessionId: string, record: Claim): string {
    return `${sessionId}/${this.format.name}/${this.format.claimKey(record)}`;
  }

  private source(sessionId: string): string {
    return `memory:sessions/${sessionId}/${this.format.name}`;
  }

  private records(sessionId: string): string[] {
    assertSessionName(sessionId);
    const id = `${sessionId}/${this.format.name}`;
    let records = this.store.recordLogs.get(id);
    if (!records) this.store.recordLogs.set(id, (records = []));
    return records;
  }
}
