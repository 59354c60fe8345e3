import { ConfigError, SessionNotFoundError } from '../../kernel/index.js';
import { SessionMetaSchema, type SessionMeta } from '../records/session-meta.js';
import { applySessionChanges, byMostRecent, newSessionMeta } from '../new-session-meta.js';
import { assertSessionName } from '../record-names.js';
import type { SessionListing, SessionRecords, StorageWarning } from '../session-backend.js';
import type { MemorySessionStore } from './MemorySessionStore.js';
import { parseRecord, readRecord } from './memory-records.js';

export class MemorySessions implements SessionRecords {
  constructor(
    private readonly store: MemorySessionStore,
    private readonly onWarning: (warning: StorageWarning) => void = () => {},
  ) {}

  async create(options: { title?: string | undefined } = {}): Promise<SessionMeta> {
    const meta = newSessionMeta(options);
    this.store.sessions.set(meta.id, JSON.stringify(meta));
    return meta;
  }

  async restore(meta: SessionMeta): Promise<boolean> {
    assertSessionName(meta.id);
    if (this.store.sessions.has(meta.id)) return false;
    this.store.sessions.set(meta.id, JSON.stringify(meta));
    return true;
  }

  async latestOrCreate(): Promise<{ session: SessionMeta; created: boolean }> {
    const latest = await this.latest();
    if (latest) return { session: latest, created: false };
    // No await from here on: the claim and the creation are one step for every caller on the store.
    const claimed = this.store.firstSession;
    if (claimed !== undefined && this.store.sessions.has(claimed)) return { session: this.read(claimed), created: false };
    const meta = newSessionMeta();
    this.store.firstSession = meta.id;
    this.store.sessions.set(meta.id, JSON.stringify(meta));
    return { session: meta, created: true };
  }

  async get(id: string): Promise<SessionMeta | undefined> {
    assertSessionName(id);
    return this.store.sessions.has(id) ? this.read(id) : undefined;
  }

  async update(id: string, changes: { lastActiveAt?: string | undefined; title?: string | undefined }): Promise<SessionMeta> {
    const current = await this.get(id);
    if (!current) throw new SessionNotFoundError(id);
    const next = applySessionChanges(current, changes);
    this.store.sessions.set(id, JSON.stringify(next));
    return next;
  }

  async list(): Promise<SessionListing> {
    const listing: SessionListing = { sessions: [], warnings: [] };
    for (const [id, text] of this.store.sessions) {
      const parsed = parseRecord(text, SessionMetaSchema);
      if (!parsed.ok)
        listing.warnings.push({
          source: `memory:sessions/${id}`,
          offset: 0,
          problem: `the session record ${parsed.problem}. This session is skipped.`,
          sessionId: id,
        });
      else if (parsed.value.id !== id)
        listing.warnings.push({
          source: `memory:sessions/${id}`,
          offset: 0,
          problem: `the session record says "${parsed.value.id}" but is stored as "${id}". This session is skipped.`,
          sessionId: id,
        });
      else listing.sessions.push(parsed.value);
    }
    listing.sessions.sort(byMostRecent);
    return listing;
  }

  async latest(): Promise<SessionMeta | undefined> {
    const listing = await this.list();
    for (const warning of listing.warnings) this.onWarning(warning);
    return listing.sessions[0];
  }

  async remove(id: string): Promise<boolean> {
    assertSessionName(id);
    if (!this.store.sessions.delete(id)) return false;
    const prefix = `${id}/`;
    for (const map of [this.store.logs, this.store.leases, this.store.recordLogs, this.store.claims, this.store.agentState]) {
      for (const key of [...map.keys()]) if (key.startsWith(prefix)) map.delete(key);
    }
    this.store.artifacts.delete(id);
    return true;
  }

  private read(id: string): SessionMeta {
    const where = `memory:sessions/${id}`;
    const meta = readRecord(this.store.sessions.get(id) ?? '', SessionMetaSchema, where, 'session record');
    if (meta.id !== id)
      throw new ConfigError({
        file: where,
        field: 'id',
        problem: `says "${meta.id}" but the session is stored as "${id}"`,
        fix: `set "id" to "${id}"`,
      });
    return meta;
  }
}
