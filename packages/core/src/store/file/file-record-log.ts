import { unlinkSync } from 'node:fs';
import { LegionError } from '../../kernel/index.js';
import { writeJsonIfAbsent } from '../fs/atomic-json.js';
import { JsonlLog, type LogLine, type LogWarning } from '../fs/jsonl-log.js';
import { OpenHandles } from '../fs/open-handles.js';
import { readRegularFileSync } from '../fs/regular-file.js';
import type { WorkspacePaths } from '../fs/workspace-paths.js';
import { cursorPosition, makeCursor } from '../log-cursor.js';
import { assertSessionName } from '../record-names.js';
import type { ClaimResult, LogCursor, RecordLog, RecordLogFormat } from '../session-backend.js';

/** Logs kept open per record log; a long-lived process touching many sessions closes the oldest. */
const OPEN_LOGS = 16;

/**
 * A record log as `sessions/<id>/<name>.jsonl`, the files Legion has always written: one JSON line
 * per record, appended. A claim is made by the exclusive creation of its claim file
 * (`approval-decisions/<request>.json`, `question-outcomes/<question>.json`) before it is logged,
 * so the first claim wins across processes, and a claim whose process died before logging it
 * still counts: `read` finds it beside the record that awaits it.
 */
export class FileRecordLog<Appended, Claim = never> implements RecordLog<Appended, Claim> {
  private readonly logs = new OpenHandles<JsonlLog>(OPEN_LOGS);

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly format: RecordLogFormat<Appended, Claim>,
    private readonly onWarning: (warning: LogWarning) => void,
    /** Told where each appended record landed, when that is certain (the session index sums usage so). */
    private readonly onAppended?: (sessionId: string, placed: { start: number; end: number }, record: Appended) => void,
  ) {}

  async append(sessionId: string, record: Appended): Promise<void> {
    if (!this.onAppended) {
      this.log(sessionId).append(record);
      return;
    }
    const { placed } = this.log(sessionId).appendPlaced(record);
    if (placed) this.onAppended(sessionId, placed, record);
  }

  async claim(sessionId: string, records: readonly Claim[]): Promise<ClaimResult<Claim>> {
    const log = this.log(sessionId);
    if (records.length === 0) return { ok: true };
    const won: string[] = [];
    const taken: Claim[] = [];
    for (const record of records) {
      const path = this.claimPath(sessionId, this.format.claimKey(record));
      if (writeJsonIfAbsent(path, record)) won.push(path);
      // A claim given back this instant (another all-or-none claim lost) reads as nothing: it still stood when ours was refused.
      else taken.push(this.claimed(path) ?? record);
    }
    if (taken.length > 0) {
      // Nobody else can hold these claims (they were ours), so giving them back is safe.
      for (const path of won) unlinkSync(path);
      return { ok: false, taken };
    }
    for (const record of records) log.append(record);
    return { ok: true };
  }

  async read(sessionId: string): Promise<Array<Appended | Claim>> {
    const records = this.parse(sessionId, this.log(sessionId).readForward(0).lines);
    const settled = new Set<string>();
    for (const record of records) if (this.format.isClaim(record)) settled.add(this.format.claimKey(record));
    // A claim made by a process that died before logging it is still the claim.
    for (const record of [...records]) {
      const key = this.format.awaitedKey(record);
      if (key === undefined || settled.has(key)) continue;
      const claimed = this.claimed(this.claimPath(sessionId, key));
      if (claimed === undefined) continue;
      records.push(claimed);
      settled.add(key);
    }
    return records;
  }

  async readSince(sessionId: string, cursor?: LogCursor): Promise<{ records: Array<Appended | Claim>; cursor: LogCursor }> {
    const from = cursor === undefined ? 0 : cursorPosition('file', cursor);
    // A last line another process is writing now is left for the next call.
    const { lines, end } = this.log(sessionId).readForward(from, { waitForPartial: true });
    return { records: this.parse(sessionId, lines), cursor: makeCursor('file', end) };
  }

  close(): void {
    this.logs.closeAll();
  }

  private parse(sessionId: string, lines: readonly LogLine[]): Array<Appended | Claim> {
    const read = this.format.reader();
    const records: Array<Appended | Claim> = [];
    for (const line of lines) {
      let stored: unknown;
      try {
        stored = JSON.parse(line.text);
      } catch {
        // The log reported a torn line itself; any other line that is no JSON is the reader's to refuse.
        stored = undefined;
      }
      const reading = read(stored);
      if (!reading.ok)
        this.onWarning({
          path: this.paths.recordLogFile(sessionId, this.format.name),
          offset: line.offset,
          problem: `skipped an unreadable ${this.format.what} (${reading.problem})`,
        });
      else if (reading.record !== undefined) records.push(reading.record);
    }
    return records;
  }

  private claimPath(sessionId: string, key: string): string {
    const path = this.paths.recordClaim(sessionId, this.format.name, key);
    if (path === undefined)
      throw new LegionError(
        'invalid_claim',
        `The ${this.format.name} log of session ${sessionId} records no claims: append to it instead.`,
        {
          sessionId,
          log: this.format.name,
        },
      );
    return path;
  }

  /** The claim stored in a claim file, if there is one and it can be read. */
  private claimed(path: string): Claim | undefined {
    try {
      const parsed = this.format.claimSchema.safeParse(JSON.parse(readRegularFileSync(path).toString('utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private log(sessionId: string): JsonlLog {
    return this.logs.getOrOpen(sessionId, () => {
      assertSessionName(sessionId);
      return new JsonlLog(this.paths.recordLogFile(sessionId, this.format.name), { onWarning: this.onWarning });
    });
  }
}
