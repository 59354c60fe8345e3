import { ConfigError, SessionNotFoundError, type StorageWarning } from '@legion-collective/core';
import {
  assertSessionName,
  newSessionMeta,
  SessionMetaSchema,
  type SessionListing,
  type SessionMeta,
  type SessionRecords,
} from '@legion-collective/core/backend';
import { AGENT_STATE_CHANNEL } from './agent-state-cache.js';
import type { Database } from './connection.js';
import { parseRecord, readRecord, sourceOf } from './records.js';

/** Serializes "the latest session, or a new one" across processes (an advisory lock key). */
const FIRST_SESSION_LOCK = 0x6c6567696f6e01;
/** Rows read at a time while looking for the latest readable session. */
const LATEST_BATCH = 20;

interface SessionRow {
  id: string;
  meta: unknown;
}

/** `legion.sessions`: one row per session, its metadata as JSON, its last-active time as a column to sort by. */
export class PostgresSessions implements SessionRecords {
  constructor(
    private readonly db: Database,
    private readonly warn: (warning: StorageWarning) => void,
  ) {}

  async create(options: { title?: string | undefined } = {}): Promise<SessionMeta> {
    const meta = newSessionMeta(options);
    await this.db.query('INSERT INTO legion.sessions (id, last_active_at, meta) VALUES ($1, $2, $3::jsonb)', [
      meta.id,
      meta.lastActiveAt,
      JSON.stringify(meta),
    ]);
    return meta;
  }

  async restore(meta: SessionMeta): Promise<boolean> {
    assertSessionName(meta.id);
    const rows = await this.db.query<{ id: string }>(
      'INSERT INTO legion.sessions (id, last_active_at, meta) VALUES ($1, $2, $3::jsonb) ON CONFLICT (id) DO NOTHING RETURNING id',
      [meta.id, meta.lastActiveAt, JSON.stringify(meta)],
    );
    return rows.length > 0;
  }

  async latestOrCreate(): Promise<{ session: SessionMeta; created: boolean }> {
    const latest = await this.latest();
    if (latest) return { session: latest, created: false };
    return this.db.transaction(async (client) => {
      // Callers racing on an empty store queue here; the first creates, the others find its session.
      await client.query('SELECT pg_advisory_xact_lock($1)', [FIRST_SESSION_LOCK]);
      const existing = await this.firstReadable((offset) =>
        client.query<SessionRow>(LATEST_QUERY, [LATEST_BATCH, offset]).then((result) => result.rows),
      );
      if (existing) return { session: existing, created: false };
      const meta = newSessionMeta();
      await client.query('INSERT INTO legion.sessions (id, last_active_at, meta) VALUES ($1, $2, $3::jsonb)', [
        meta.id,
        meta.lastActiveAt,
        JSON.stringify(meta),
      ]);
      return { session: meta, created: true };
    });
  }

  async get(id: string): Promise<SessionMeta | undefined> {
    assertSessionName(id);
    const rows = await this.db.query<SessionRow>('SELECT id, meta FROM legion.sessions WHERE id = $1', [id]);
    const row = rows[0];
    return row ? this.read(row) : undefined;
  }

  async update(id: string, changes: { lastActiveAt?: string | undefined; title?: string | undefined }): Promise<SessionMeta> {
    assertSessionName(id);
    const fields = {
      ...(changes.lastActiveAt !== undefined ? { lastActiveAt: changes.lastActiveAt } : {}),
      ...(changes.title !== undefined ? { title: changes.title } : {}),
    };
    // Merged in the row, in one statement: a title set by one process survives another's activity.
    const rows = await this.db.query<SessionRow>(
      'UPDATE legion.sessions SET meta = meta || $2::jsonb, last_active_at = coalesce($3, last_active_at) WHERE id = $1 RETURNING id, meta',
      [id, JSON.stringify(fields), changes.lastActiveAt ?? null],
    );
    const row = rows[0];
    if (!row) throw new SessionNotFoundError(id);
    return this.read(row);
  }

  async list(): Promise<SessionListing> {
    const listing: SessionListing = { sessions: [], warnings: [] };
    const rows = await this.db.query<SessionRow>('SELECT id, meta FROM legion.sessions ORDER BY last_active_at DESC, id DESC');
    for (const row of rows) {
      const checked = check(row);
      if (checked.ok) listing.sessions.push(checked.value);
      else listing.warnings.push(checked.warning);
    }
    return listing;
  }

  async latest(): Promise<SessionMeta | undefined> {
    return this.firstReadable((offset) => this.db.query<SessionRow>(LATEST_QUERY, [LATEST_BATCH, offset]));
  }

  async remove(id: string): Promise<boolean> {
    assertSessionName(id);
    return this.db.transaction(async (client) => {
      const removed = await client.query('DELETE FROM legion.sessions WHERE id = $1', [id]);
      for (const table of ['entries', 'logs', 'leases', 'agent_state', 'artifacts'])
        await client.query(`DELETE FROM legion.${table} WHERE session_id = $1`, [id]);
      // Every process drops what it cached of the session's agent state (see AgentStateCache), on commit.
      await client.query(`SELECT pg_notify('${AGENT_STATE_CHANNEL}', $1)`, [`${id}/`]);
      return (removed.rowCount ?? 0) > 0;
    });
  }

  /** The most recently active session that reads, in batches; what is skipped is a warning. */
  private async firstReadable(batch: (offset: number) => Promise<SessionRow[]>): Promise<SessionMeta | undefined> {
    for (let offset = 0; ; offset += LATEST_BATCH) {
      const rows = await batch(offset);
      for (const row of rows) {
        const checked = check(row);
        if (checked.ok) return checked.value;
        this.warn(checked.warning);
      }
      if (rows.length < LATEST_BATCH) return undefined;
    }
  }

  private read(row: SessionRow): SessionMeta {
    const where = sourceOf(row.id);
    const meta = readRecord(row.meta, SessionMetaSchema, where, 'session record');
    if (meta.id !== row.id)
      throw new ConfigError({
        file: where,
        field: 'id',
        problem: `says "${meta.id}" but the session is stored as "${row.id}"`,
        fix: `set "id" to "${row.id}"`,
      });
    return meta;
  }
}

const LATEST_QUERY = 'SELECT id, meta FROM legion.sessions ORDER BY last_active_at DESC, id DESC LIMIT $1 OFFSET $2';

function check(row: SessionRow): { ok: true; value: SessionMeta } | { ok: false; warning: StorageWarning } {
  const parsed = parseRecord(row.meta, SessionMetaSchema);
  const source = sourceOf(row.id);
  if (!parsed.ok)
    return {
      ok: false,
      warning: { source, offset: 0, problem: `the session record ${parsed.problem}. This session is skipped.`, sessionId: row.id },
    };
  if (parsed.value.id !== row.id)
    return {
      ok: false,
      warning: {
        source,
        offset: 0,
        problem: `the session record says "${parsed.value.id}" but is stored as "${row.id}". This session is skipped.`,
        sessionId: row.id,
      },
    };
  return { ok: true, value: parsed.value };
}
