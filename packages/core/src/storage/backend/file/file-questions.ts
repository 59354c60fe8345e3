import { writeJsonIfAbsent } from '../../atomic-json.js';
import { JsonlLog, type LogWarning } from '../../jsonl-log.js';
import { OpenHandles } from '../../open-handles.js';
import {
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  type QuestionLogRecord,
  type QuestionOutcomeRecord,
  type QuestionRecord,
} from '../../question-records.js';
import type { WorkspacePaths } from '../../workspace-paths.js';
import { assertSessionName } from '../record-names.js';
import type { QuestionLog, SettleResult } from '../session-backend.js';
import { readRegularFileSync } from '../../regular-file.js';

/** Question logs kept open; a long-lived process touching many sessions closes the oldest. */
const OPEN_LOGS = 16;

/**
 * `sessions/<id>/questions.jsonl`, settled as approvals are decided: an outcome
 * is claimed by the exclusive creation of `question-outcomes/<question>.json`
 * before it is logged, so the first settle wins across processes, and a claim
 * whose process died before logging it still counts.
 */
export class FileQuestions implements QuestionLog {
  private readonly logs = new OpenHandles<JsonlLog>(OPEN_LOGS);

  constructor(
    private readonly paths: WorkspacePaths,
    private readonly onWarning: (warning: LogWarning) => void,
  ) {}

  async append(sessionId: string, record: QuestionRecord): Promise<void> {
    this.log(sessionId).append(record);
  }

  async settle(sessionId: string, record: QuestionOutcomeRecord): Promise<SettleResult> {
    const log = this.log(sessionId);
    const claim = this.paths.questionOutcomeClaim(sessionId, record.questionId);
    if (!writeJsonIfAbsent(claim, record)) {
      const taken = this.claimed(claim);
      // A claim being written this instant reads as nothing yet: it is still the other's outcome.
      return { ok: false, taken: taken ?? record };
    }
    log.append(record);
    return { ok: true };
  }

  async read(sessionId: string): Promise<QuestionLogRecord[]> {
    const log = this.log(sessionId);
    const path = this.paths.questionsFile(sessionId);
    const records: QuestionLogRecord[] = [];
    const settled = new Set<string>();
    for (const line of log.readForward(0).lines) {
      let raw: unknown;
      try {
        raw = JSON.parse(line.text);
      } catch {
        raw = undefined;
      }
      const parsed = QuestionLogRecordSchema.safeParse(raw);
      if (!parsed.success) {
        this.onWarning({
          path,
          offset: line.offset,
          problem: `skipped an unreadable question record (${parsed.error.issues[0]?.message ?? 'invalid'})`,
        });
        continue;
      }
      records.push(parsed.data);
      if (parsed.data.kind !== 'question') settled.add(parsed.data.questionId);
    }
    // An outcome claimed by a process that died before logging it is still the outcome.
    for (const record of [...records]) {
      if (record.kind !== 'question' || settled.has(record.id)) continue;
      const claimed = this.claimed(this.paths.questionOutcomeClaim(sessionId, record.id));
      if (claimed) records.push(claimed);
    }
    return records;
  }

  close(): void {
    this.logs.closeAll();
  }

  private claimed(path: string): QuestionOutcomeRecord | undefined {
    try {
      const parsed = QuestionOutcomeRecordSchema.safeParse(JSON.parse(readRegularFileSync(path).toString('utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private log(sessionId: string): JsonlLog {
    return this.logs.getOrOpen(sessionId, () => {
      assertSessionName(sessionId);
      return new JsonlLog(this.paths.questionsFile(sessionId), { onWarning: this.onWarning });
    });
  }
}
