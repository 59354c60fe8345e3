/** The record logs a session keeps beside its conversations (the port's `RecordLog`s). */
export type RecordLogName = 'approvals' | 'questions' | 'usage' | 'conflicts';
