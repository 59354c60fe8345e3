/**
 * The database schema, as numbered steps. A step is never edited once released: a change is a new
 * step. Every table lives in the `legion` schema, so Legion shares a database with others cleanly.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, logs, leases, agent state and artifacts',
    // Ids are COLLATE "C" so that ORDER BY sorts as the file backend does (by code unit), whatever the
    // database's locale.
    sql: `
CREATE TABLE legion.sessions (
  id text COLLATE "C" PRIMARY KEY,
  last_active_at text COLLATE "C" NOT NULL,
  meta jsonb NOT NULL
);
CREATE INDEX sessions_by_activity ON legion.sessions (last_active_at DESC, id DESC);

-- One row per log of a session: a conversation (its id has "__"), or "approvals", "questions", "usage".
-- last_seq numbers the log's entries; taking it locks the row, so entries commit in their order.
CREATE TABLE legion.logs (
  session_id text COLLATE "C" NOT NULL,
  log_id text COLLATE "C" NOT NULL,
  header jsonb,
  last_seq bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, log_id)
);

CREATE TABLE legion.entries (
  session_id text COLLATE "C" NOT NULL,
  log_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  kind text NOT NULL,
  -- A decision's request id, an outcome's question id: at most one per log.
  claim text,
  body jsonb NOT NULL,
  PRIMARY KEY (session_id, log_id, seq)
);
CREATE UNIQUE INDEX entries_one_claim ON legion.entries (session_id, log_id, claim) WHERE claim IS NOT NULL;
CREATE INDEX entries_compactions ON legion.entries (session_id, log_id, seq) WHERE kind = 'compaction';

-- A conversation's lock. holder_key is an advisory lock its holder's process keeps while it lives:
-- when that lock is free the holder is gone, and the lease is taken over before it expires.
CREATE TABLE legion.leases (
  session_id text COLLATE "C" NOT NULL,
  conversation_id text COLLATE "C" NOT NULL,
  owner text NOT NULL,
  token text NOT NULL,
  holder_key bigint NOT NULL,
  expires_at_ms bigint NOT NULL,
  PRIMARY KEY (session_id, conversation_id)
);

CREATE TABLE legion.agent_state (
  session_id text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  agent_id text COLLATE "C" NOT NULL,
  document jsonb NOT NULL,
  PRIMARY KEY (session_id, kind, agent_id)
);

CREATE TABLE legion.artifacts (
  session_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  content bytea NOT NULL,
  PRIMARY KEY (session_id, name)
);
`,
  },
  {
    version: 2,
    name: 'file claims',
    sql: `
-- A file claimed by a running turn, one row per workspace path. holder_key is the advisory lock its
-- holder's process keeps while it lives (as a lease's): when that lock is free, the claim is gone.
CREATE TABLE legion.file_claims (
  path text COLLATE "C" PRIMARY KEY,
  session_id text COLLATE "C" NOT NULL,
  conversation_id text COLLATE "C" NOT NULL,
  holder_key bigint NOT NULL,
  claim jsonb NOT NULL
);
`,
  },
  {
    version: 3,
    name: 'message counts and a word index',
    // What a page of sessions shows and a search looks up, kept by the append that writes the entry
    // (same statement, same transaction: a crash cannot leave a count apart from its log). The
    // upgrade fills both from the entries there; appends keep them from then on. A message's words
    // are split as core's \`searchWords\` does (letters and digits); the fill approximates it in SQL.
    sql: `
ALTER TABLE legion.logs ADD COLUMN messages bigint NOT NULL DEFAULT 0, ADD COLUMN last_message_at text COLLATE "C";
UPDATE legion.logs AS log SET messages = counted.messages, last_message_at = counted.last_at
FROM (
  SELECT session_id, log_id, count(*) AS messages, (array_agg(body->>'at' ORDER BY seq DESC))[1] AS last_at
  FROM legion.entries WHERE kind = 'message' GROUP BY session_id, log_id
) AS counted
WHERE log.session_id = counted.session_id AND log.log_id = counted.log_id AND strpos(log.log_id, '__') > 0;

ALTER TABLE legion.entries ADD COLUMN words tsvector;
UPDATE legion.entries SET words = to_tsvector('simple', regexp_replace(lower(coalesce((
  SELECT string_agg(CASE block->>'type' WHEN 'text' THEN block->>'text' WHEN 'tool_use' THEN (block->'input')::text ELSE block->>'content' END, ' ')
  FROM jsonb_array_elements(CASE jsonb_typeof(body->'content') WHEN 'array' THEN body->'content' ELSE '[]'::jsonb END) AS block
), '')), '[^[:alnum:]]+', ' ', 'g'))
WHERE kind = 'message' AND strpos(log_id, '__') > 0;
CREATE INDEX entries_words ON legion.entries USING GIN (words) WHERE kind = 'message';
`,
  },
];

/** The newest schema this code knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));
