import type { Message } from '../message.js';
import type { HeaderEntry, NoteEntry } from './log-entry.js';

/**
 * Where one conversation's entries live. The file store is the default; a
 * server store (PostgreSQL) implements the same calls without touching the runtime.
 */
export interface ConversationLog {
  /** Writes the header if the conversation is new. */
  ensureHeader(header: HeaderEntry): void;
  header(): HeaderEntry | undefined;
  appendMessage(message: Message): void;
  appendNote(note: NoteEntry): void;
  /** The newest `limit` messages, oldest first, without reading the rest. */
  recent(limit: number): Message[];
  /** The messages a model needs: everything since the last compaction point, oldest first. */
  context(): Message[];
  /** Messages other processes appended since this log last read or wrote, oldest first. */
  readNew(): Message[];
  /** Makes appended entries durable on the disk itself. */
  sync(): void;
  /** Takes the cross-process lock for one turn; false if another holder has it. */
  tryLock(purpose: string): boolean;
  lockHolder(): string;
  unlock(): void;
  close(): void;
}
