import type { ConversationRef, Message } from '../../kernel/index.js';
import type { ConversationLogs, LogCursor, CompactionEntry } from '../../store/index.js';

/**
 * The model's context of one conversation as this process holds it: loaded from the log on
 * first use, kept in step with this process's appends, and, outside this process's turns,
 * caught up with what other processes appended.
 */
export class ConversationHistory {
  /** The model's context once loaded, kept in step with appends; `cursor` is just past what it holds. */
  private messages: Message[] | undefined;
  private cursor: LogCursor | undefined;
  /** The compaction point the loaded history starts after. */
  private point: CompactionEntry | undefined;
  /** A turn of this process holds the lease and has caught up with the log: the loaded history is the log. */
  private current = false;

  constructor(
    private readonly ref: ConversationRef,
    private readonly logs: ConversationLogs,
  ) {}

  /** The newest messages, oldest first, read from the end of the log. */
  async recent(limit: number): Promise<Message[]> {
    // Outside this process's turn, another process may have appended: the log says.
    if (this.messages && this.current) return this.messages.slice(-limit);
    return this.logs.recent(this.ref, limit);
  }

  /** The model's context; loaded on first use, then kept in step with appends (and, outside a turn, with the log). */
  async load(): Promise<readonly Message[]> {
    if (this.messages && !this.current) await this.catchUp();
    if (!this.messages) {
      const context = await this.logs.context(this.ref);
      // Another call may have loaded it meanwhile: the first load stands.
      if (!this.messages) {
        this.messages = context.messages;
        this.cursor = context.cursor;
        this.point = context.compaction;
      }
    }
    return this.messages;
  }

  /** The last compaction point, loaded with the history. */
  async compaction(): Promise<CompactionEntry | undefined> {
    await this.load();
    return this.point;
  }

  /** A turn of this process holds the lease: brought up to date with the log, it stays the log until the turn ends. */
  async enterTurn(): Promise<void> {
    await this.catchUp();
    this.current = true;
  }

  /** The turn gave the lease back: other processes may append from now on. */
  leaveTurn(): void {
    this.current = false;
  }

  /** A message this process appended (at `cursor`). */
  appended(message: Message, cursor: LogCursor): void {
    if (!this.messages) return;
    this.messages.push(message);
    this.cursor = cursor;
  }

  /** A compaction this process appended (at `cursor`): the context keeps only its kept messages. */
  compacted(entry: CompactionEntry, cursor: LogCursor): void {
    if (this.messages) {
      this.messages = this.messages.slice(this.messages.length - entry.keptMessages);
      this.cursor = cursor;
    }
    this.point = entry;
  }

  /**
   * What the log holds is unknown now (a database that restarted may have lost the entries before
   * a failed append): the next use loads the history from the log instead of trusting what is loaded.
   */
  distrust(): void {
    this.messages = undefined;
    this.cursor = undefined;
  }

  /** Forgets the loaded history (it is read again from the log when next needed). */
  forget(): void {
    this.messages = undefined;
    this.cursor = undefined;
    this.point = undefined;
  }

  /** Adds what other processes appended since the loaded history was last brought up to date. */
  private async catchUp(): Promise<void> {
    const cursor = this.cursor;
    if (!this.messages || !cursor) return;
    const fresh = await this.logs.readSince(this.ref, cursor);
    // Only if nothing moved the history on meanwhile (an append, another catch-up, a close).
    if (this.cursor !== cursor || !this.messages) return;
    if (fresh.compacted) {
      // Another process compacted it (`legion compact`): the context starts at its new point.
      const context = await this.logs.context(this.ref);
      this.messages = context.messages;
      this.cursor = context.cursor;
      this.point = context.compaction;
      return;
    }
    this.messages.push(...fresh.messages);
    this.cursor = fresh.cursor;
  }
}
