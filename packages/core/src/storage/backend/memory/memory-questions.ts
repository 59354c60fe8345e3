import {
  QuestionLogRecordSchema,
  QuestionOutcomeRecordSchema,
  type QuestionLogRecord,
  type QuestionOutcomeRecord,
  type QuestionRecord,
} from '../../question-records.js';
import { assertSessionName } from '../record-names.js';
import type { QuestionLog, SettleResult, StorageWarning } from '../session-backend.js';
import type { MemorySessionStore } from './MemorySessionStore.js';
import { parseRecord, readRecord } from './memory-records.js';

export class MemoryQuestions implements QuestionLog {
  constructor(
    private readonly store: MemorySessionStore,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  async append(sessionId: string, record: QuestionRecord): Promise<void> {
    this.records(sessionId).push(JSON.stringify(record));
    this.store.changed(sessionId);
  }

  async settle(sessionId: string, record: QuestionOutcomeRecord): Promise<SettleResult> {
    const records = this.records(sessionId);
    const key = `${sessionId}/${record.questionId}`;
    // Checked and claimed with no await between: one step for every caller on the store.
    const won = this.store.questionOutcomes.get(key);
    if (won !== undefined)
      return {
        ok: false,
        taken: readRecord(won, QuestionOutcomeRecordSchema, `memory:sessions/${sessionId}/questions`, 'question outcome'),
      };
    const text = JSON.stringify(record);
    this.store.questionOutcomes.set(key, text);
    records.push(text);
    this.store.changed(sessionId);
    return { ok: true };
  }

  async read(sessionId: string): Promise<QuestionLogRecord[]> {
    const records: QuestionLogRecord[] = [];
    this.records(sessionId).forEach((text, index) => {
      const parsed = parseRecord(text, QuestionLogRecordSchema);
      if (parsed.ok) records.push(parsed.value);
      else
        this.warn({
          source: `memory:sessions/${sessionId}/questions`,
          offset: index,
          problem: `skipped an unreadable question record (${parsed.problem})`,
        });
    });
    return records;
  }

  private records(sessionId: string): string[] {
    assertSessionName(sessionId);
    let records = this.store.questions.get(sessionId);
    if (!records) this.store.questions.set(sessionId, (records = []));
    return records;
  }
}
