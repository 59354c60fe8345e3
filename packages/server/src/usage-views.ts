import type { Legion, Session, UsageSummary } from '@legion-collective/core';

/** Sessions whose summary is kept; more are read again when next asked for. */
const MAX_KEPT = 100;

/**
 * Usage summaries, read once per change. Every open tab asks for its session's usage after each
 * `usage:report`, and a read parses and sums the whole usage log: with ten tabs that was ten
 * reads per model call, CPU the event stream waited for (bench/serve-events.mjs). A summary is
 * kept until a `usage:report` of that session says the log grew (core emits it once the record
 * is written); requests that come while it is read share the read. A session another process
 * works in (its followed messages are `remote`) writes usage this server hears nothing of, so it
 * is read on every request, as before.
 */
export class UsageViews {
  private readonly summaries = new Map<string, Promise<UsageSummary>>();
  private readonly shared = new Set<string>();
  private readonly offs: Array<() => void>;

  constructor(legion: Legion) {
    this.offs = [
      legion.events.on('usage:report', (event) => this.summaries.delete(event.sessionId)),
      legion.events.on('message:sent', (event) => {
        if (!event.remote) return;
        this.shared.add(event.sessionId);
        this.summaries.delete(event.sessionId);
      }),
    ];
  }

  read(session: Session): Promise<UsageSummary> {
    if (this.shared.has(session.id)) return session.usage();
    let summary = this.summaries.get(session.id);
    if (!summary) {
      summary = session.usage();
      const kept = summary;
      this.summaries.set(session.id, kept);
      if (this.summaries.size > MAX_KEPT) this.summaries.delete(this.summaries.keys().next().value!);
      // A failed read is not kept.
      kept.catch(() => {
        if (this.summaries.get(session.id) === kept) this.summaries.delete(session.id);
      });
    }
    return summary;
  }

  close(): void {
    for (const off of this.offs) off();
  }
}
