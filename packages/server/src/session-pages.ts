import type { Legion } from '@legion-collective/core';
import { ApiError } from './api-error.js';

/** A session as core's catalog keeps it: enough to order, filter and page without reading the session. */
type CatalogEntry = Awaited<ReturnType<Legion['sessions']['find']>>[number];

/** Where a page ended: the last session's place in the catalog's order (most recently active first, then id). */
type Cursor = Pick<CatalogEntry, 'lastActiveAt' | 'id'>;

function cursorAfter(entry: CatalogEntry): string {
  return Buffer.from(JSON.stringify([entry.lastActiveAt, entry.id])).toString('base64url');
}

function parseCursor(text: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') {
      return { lastActiveAt: parsed[0], id: parsed[1] };
    }
  } catch {
    // Said below.
  }
  throw new ApiError(400, 'bad_request', `"${text}" is not a cursor of GET /api/sessions: pass the \`next\` of the previous page.`);
}

/**
 * Whether `entry` comes after the cursor in the catalog's order. The order is by a key, not by a
 * position: a session that becomes active while a client pages moves before the cursor and is not
 * listed twice (the client hears of it through the event stream).
 */
function isAfter(entry: Cursor, cursor: Cursor): boolean {
  if (entry.lastActiveAt !== cursor.lastActiveAt) return entry.lastActiveAt < cursor.lastActiveAt;
  return entry.id < cursor.id;
}

/**
 * Pages of the workspace's sessions from core's session catalog (in memory, kept current by this
 * process's events), never a scan of the sessions folder. The catalog learns of another process's
 * sessions only when one is the latest: those the workspace follower found are added here.
 */
export class SessionPages {
  /** Sessions another process created, found by the workspace follower, by id. */
  private readonly remote = new Map<string, CatalogEntry>();

  constructor(private readonly legion: Legion) {}

  /** Reads the catalog now, so that the first page is as quick as the rest. */
  warm(): void {
    void this.legion.sessions.find('', { limit: 0 }).catch(() => undefined);
  }

  noteRemote(session: { sessionId: string; createdAt: string; title?: string | undefined }): void {
    this.remote.set(session.sessionId, {
      version: 1,
      id: session.sessionId,
      createdAt: session.createdAt,
      lastActiveAt: session.createdAt,
      ...(session.title !== undefined ? { title: session.title } : {}),
    });
  }

  /** `limit` sessions after the cursor `after`, those whose id or title contain `needle`, and the next page's cursor if any. */
  async page(options: {
    needle?: string | undefined;
    limit: number;
    after?: string | undefined;
  }): Promise<{ entries: CatalogEntry[]; next?: string }> {
    const cursor = options.after !== undefined ? parseCursor(options.after) : undefined;
    const needle = options.needle;
    const entries: CatalogEntry[] = [];
    let more = false;
    for (const entry of await this.ordered()) {
      if (cursor !== undefined && !isAfter(entry, cursor)) continue;
      if (needle && !entry.id.toLowerCase().includes(needle) && !(entry.title ?? '').toLowerCase().includes(needle)) continue;
      if (entries.length === options.limit) {
        more = true;
        break;
      }
      entries.push(entry);
    }
    const last = entries.at(-1);
    return more && last !== undefined ? { entries, next: cursorAfter(last) } : { entries };
  }

  /** Every session, most recently active first: the catalog, with the other processes' sessions it lacks put in their place. */
  async ordered(): Promise<CatalogEntry[]> {
    const entries = await this.legion.sessions.find('', { limit: Number.MAX_SAFE_INTEGER });
    if (this.remote.size === 0) return entries;
    const known = new Set(entries.map((entry) => entry.id));
    for (const [id, entry] of this.remote) {
      if (known.has(id)) {
        // The catalog has it now (it became the latest once): it keeps it current from here.
        this.remote.delete(id);
        continue;
      }
      const before = entries.findIndex((other) => isAfter(other, entry));
      entries.splice(before === -1 ? entries.length : before, 0, entry);
    }
    return entries;
  }
}
