/**
 * Versioned schema of the team memory on PostgreSQL (the concepts of the SQLite schema in
 * ../schema.ts: records, retrieval log, tasks, audit, change log, role memories, meta),
 * every row scoped by `space`. Applied in order by `applyMigrations`, inside one
 * transaction under an advisory lock, by the schema owner. Never edit a shipped
 * migration: append a new one. See docs/team-memory.md.
 */
import type { ClientBase } from 'pg';
import { AgentMemoryError } from '../../errors';
import { MEMBERSHIP_MIGRATION_SQL } from './migration-membership';
import { applicationGrants, ROLES_MIGRATION_SQL } from './migration-roles';
import { SEARCH_MIGRATION_SQL } from './migration-search';

export interface PgMigration {
  version: number;
  description: string;
  sql: string;
}

/** Role the application connects as: rows only, no DDL (docs/team-memory.md). */
export const DEFAULT_APP_ROLE = 'agent_memory_app';

/** Advisory-lock key of the migration runner (any constant; one per database). */
const MIGRATION_LOCK = 0x4d454d30; // 'MEM0'

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description: 'records, retrievals, tasks, audit (with actor), change log with NOTIFY, role memories, meta',
    sql: `
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE records (
  rid bigserial PRIMARY KEY,
  space text NOT NULL,
  id text NOT NULL,
  question text NOT NULL,
  code text NOT NULL,
  language text NOT NULL CHECK (length(language) BETWEEN 1 AND 40),
  answer text NOT NULL DEFAULT 'null',
  outcome text NOT NULL CHECK (outcome IN ('success','error','timeout','no-answer')),
  output_excerpt text NOT NULL DEFAULT '',
  demonstration_ids text NOT NULL DEFAULT '[]',
  input_similarity double precision,
  output_similarity double precision,
  status text NOT NULL CHECK (status IN ('pending','active','deleted')),
  provenance text NOT NULL CHECK (provenance IN ('seed','agent','import','user')),
  created_task bigint NOT NULL DEFAULT 0,
  created_at text NOT NULL,
  updated_at text NOT NULL,
  status_before_delete text,
  embedding vector,
  embedder_id text,
  embedding_dim integer,
  metadata text NOT NULL DEFAULT '{}',
  retrieval_count bigint NOT NULL DEFAULT 0,
  utility_sum double precision NOT NULL DEFAULT 0,
  utility_count bigint NOT NULL DEFAULT 0,
  last_retrieved_task bigint,
  in_sim_sum double precision NOT NULL DEFAULT 0,
  in_sim_count bigint NOT NULL DEFAULT 0,
  out_sim_sum double precision NOT NULL DEFAULT 0,
  out_sim_count bigint NOT NULL DEFAULT 0,
  merged_count bigint NOT NULL DEFAULT 1,
  dedup_key text,
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', question || ' ' || code)) STORED,
  UNIQUE (space, id)
);
CREATE INDEX records_policy ON records(space, status, created_task, retrieval_count, utility_count, utility_sum);
CREATE INDEX records_dedup ON records(space, dedup_key);
CREATE INDEX records_tsv ON records USING gin (tsv) WHERE status = 'active';

CREATE TABLE retrievals (
  id bigserial PRIMARY KEY,
  space text NOT NULL,
  task_index bigint NOT NULL,
  rid bigint NOT NULL REFERENCES records(rid) ON DELETE CASCADE,
  rank integer NOT NULL,
  input_similarity double precision,
  output_similarity double precision,
  utility double precision,
  shown integer NOT NULL DEFAULT 1,
  followed integer,
  UNIQUE (space, task_index, rid)
);
CREATE INDEX retrievals_rid ON retrievals(rid, task_index);

CREATE TABLE tasks (
  space text NOT NULL,
  task_index bigint NOT NULL,
  question text NOT NULL,
  language text,
  code text,
  answer text,
  outcome text,
  utility double precision,
  evaluator text,
  input_similarity double precision,
  output_similarity double precision,
  record_id text,
  started_at text NOT NULL,
  finished_at text,
  log text NOT NULL DEFAULT '{}',
  PRIMARY KEY (space, task_index)
);
CREATE SEQUENCE task_index_seq;

CREATE TABLE audit (
  id bigserial PRIMARY KEY,
  space text NOT NULL,
  at text NOT NULL,
  operation text NOT NULL,
  record_id text,
  trigger text NOT NULL,
  reason text NOT NULL DEFAULT '',
  evidence text NOT NULL DEFAULT '{}',
  actor_user text NOT NULL DEFAULT '',
  actor_client text NOT NULL DEFAULT ''
);
CREATE INDEX audit_record ON audit(space, record_id);

CREATE TABLE meta (
  space text NOT NULL,
  key text NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (space, key)
);

CREATE TABLE role_memories (
  space text NOT NULL,
  role text NOT NULL,
  memory text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space, role)
);

-- The change feed: every change to a record appends (seq, space, rid, kind) and notifies at commit.
CREATE TABLE change_log (
  seq bigserial PRIMARY KEY,
  space text NOT NULL,
  rid bigint NOT NULL,
  record_id text NOT NULL,
  kind text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX change_log_space ON change_log(space, seq);
CREATE FUNCTION agent_memory_record_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r records;
  k text;
  s bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; k := 'purged';
  ELSIF TG_OP = 'INSERT' THEN r := NEW; k := 'added';
  ELSIF NEW.status IS DISTINCT FROM OLD.status THEN r := NEW; k := 'status';
  ELSIF NEW.utility_count IS DISTINCT FROM OLD.utility_count OR NEW.retrieval_count IS DISTINCT FROM OLD.retrieval_count THEN r := NEW; k := 'utility';
  ELSE r := NEW; k := 'updated';
  END IF;
  INSERT INTO change_log(space, rid, record_id, kind) VALUES (r.space, r.rid, r.id, k) RETURNING seq INTO s;
  PERFORM pg_notify('agent_memory_changes', json_build_object('space', r.space, 'seq', s, 'id', r.id, 'kind', k)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER records_changed AFTER INSERT OR UPDATE OR DELETE ON records FOR EACH ROW EXECUTE FUNCTION agent_memory_record_changed();
`,
  },
  {
    version: 2,
    description: 'term_stats: per-space document frequency of every keyword term over active records, kept by triggers (bounded keyword search)',
    sql: `
-- df of each term among the space's active records; the row with term '' holds the number of active records.
-- Kept exact by the triggers below, in the writing transaction (atomic increments); the application role may only read it.
CREATE TABLE term_stats (
  space text NOT NULL,
  term text NOT NULL,
  df bigint NOT NULL,
  PRIMARY KEY (space, term)
);
CREATE FUNCTION agent_memory_terms_inserted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  -- Sorted, so concurrent writers lock the term rows in one order.
  INSERT INTO term_stats (space, term, df)
  SELECT space, term, count(*) FROM (
    SELECT n.space, t AS term FROM new_rows n, unnest(tsvector_to_array(n.tsv)) t WHERE n.status = 'active'
    UNION ALL SELECT n.space, '' FROM new_rows n WHERE n.status = 'active') x
  GROUP BY space, term ORDER BY space, term
  ON CONFLICT (space, term) DO UPDATE SET df = term_stats.df + EXCLUDED.df;
  RETURN NULL;
END $$;
CREATE FUNCTION agent_memory_terms_deleted() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO term_stats (space, term, df)
  SELECT space, term, -count(*) FROM (
    SELECT o.space, t AS term FROM old_rows o, unnest(tsvector_to_array(o.tsv)) t WHERE o.status = 'active'
    UNION ALL SELECT o.space, '' FROM old_rows o WHERE o.status = 'active') x
  GROUP BY space, term ORDER BY space, term
  ON CONFLICT (space, term) DO UPDATE SET df = term_stats.df + EXCLUDED.df;
  RETURN NULL;
END $$;
CREATE FUNCTION agent_memory_terms_updated() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO term_stats (space, term, df)
  SELECT space, term, sum(d) FROM (
    SELECT OLD.space AS space, t AS term, -1 AS d FROM unnest(tsvector_to_array(OLD.tsv)) t WHERE OLD.status = 'active'
    UNION ALL SELECT OLD.space, '', -1 WHERE OLD.status = 'active'
    UNION ALL SELECT NEW.space, t, 1 FROM unnest(tsvector_to_array(NEW.tsv)) t WHERE NEW.status = 'active'
    UNION ALL SELECT NEW.space, '', 1 WHERE NEW.status = 'active') x
  GROUP BY space, term HAVING sum(d) <> 0 ORDER BY space, term
  ON CONFLICT (space, term) DO UPDATE SET df = term_stats.df + EXCLUDED.df;
  RETURN NULL;
END $$;
-- Bulk inserts and deletes aggregate per statement; an update touches the stats only when it changes what is searchable
-- (Φ and retrieval-count increments do not fire it), and at COMMIT (deferred): the rows of common terms, which every
-- approval updates, stay locked for the commit only, not across the client's round trips.
CREATE TRIGGER records_terms_inserted AFTER INSERT ON records REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_memory_terms_inserted();
CREATE TRIGGER records_terms_deleted AFTER DELETE ON records REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION agent_memory_terms_deleted();
CREATE CONSTRAINT TRIGGER records_terms_updated AFTER UPDATE ON records DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.tsv IS DISTINCT FROM NEW.tsv OR OLD.space IS DISTINCT FROM NEW.space)
  EXECUTE FUNCTION agent_memory_terms_updated();
-- The records already stored (the migration holds the table lock the triggers' creation took, so no write slips between).
INSERT INTO term_stats (space, term, df)
SELECT space, term, count(*) FROM (
  SELECT r.space, t AS term FROM records r, unnest(tsvector_to_array(r.tsv)) t WHERE r.status = 'active'
  UNION ALL SELECT r.space, '' FROM records r WHERE r.status = 'active') x
GROUP BY space, term;
`,
  },
  {
    version: 3,
    description: 'revalidation on a team space: the last check of each record and its stale mark (team retrieval skips stale records)',
    sql: `
ALTER TABLE records
  ADD COLUMN stale boolean NOT NULL DEFAULT false,
  ADD COLUMN check_state text CHECK (check_state IN ('unchanged', 'changed', 'failing')),
  ADD COLUMN check_fingerprint text,
  ADD COLUMN check_answer text,
  ADD COLUMN check_error text,
  ADD COLUMN checked_at timestamptz;
`,
  },
  {
    version: 4,
    description: 'term_stats kept per UPDATE statement (transition tables), not per row at commit: a bulk status change updates each term once',
    sql: `
-- Version 2 updated the statistics once per changed row (a deferred row trigger), so a statement or a transaction that
-- changed the status of thousands of records updated the same term rows (every common word) thousands of times in one
-- transaction, each update slower than the last (3,800 deletions: 20 s). Now once per statement, from the changed rows
-- (status, text or space differ; Φ and counter updates change none and write nothing). Rows are locked in sorted order.
DROP TRIGGER records_terms_updated ON records;
DROP FUNCTION agent_memory_terms_updated();
CREATE FUNCTION agent_memory_terms_updated() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  INSERT INTO term_stats (space, term, df)
  SELECT space, term, sum(d) FROM (
    WITH changed AS (
      SELECT o.space AS o_space, o.tsv AS o_tsv, o.status AS o_status, n.space AS n_space, n.tsv AS n_tsv, n.status AS n_status
      FROM old_rows o JOIN new_rows n ON n.rid = o.rid
      WHERE o.status IS DISTINCT FROM n.status OR o.tsv IS DISTINCT FROM n.tsv OR o.space IS DISTINCT FROM n.space)
    SELECT o_space AS space, t AS term, -1 AS d FROM changed, unnest(tsvector_to_array(o_tsv)) t WHERE o_status = 'active'
    UNION ALL SELECT o_space, '', -1 FROM changed WHERE o_status = 'active'
    UNION ALL SELECT n_space, t, 1 FROM changed, unnest(tsvector_to_array(n_tsv)) t WHERE n_status = 'active'
    UNION ALL SELECT n_space, '', 1 FROM changed WHERE n_status = 'active') x
  GROUP BY space, term HAVING sum(d) <> 0 ORDER BY space, term
  ON CONFLICT (space, term) DO UPDATE SET df = term_stats.df + EXCLUDED.df;
  RETURN NULL;
END $$;
CREATE TRIGGER records_terms_updated AFTER UPDATE ON records REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION agent_memory_terms_updated();
`,
  },
  {
    version: 5,
    description: 'roles per space (space_members, row-level security, SECURITY DEFINER functions for status, counters, tasks and policy), server-assigned ids, audit actor from the session and hash chain, audit archive',
    sql: ROLES_MIGRATION_SQL,
  },
  {
    version: 6,
    description: 'the membership checks of the row-level security policies and owner functions planned once per session (PL/pgSQL), not at every statement',
    sql: MEMBERSHIP_MIGRATION_SQL,
  },
  {
    version: 7,
    description: 'a search in one call of one owner function (agent_memory_search): the terms\' frequencies, the keyword plan and both sides\' candidates in one round trip, the level checked once',
    sql: SEARCH_MIGRATION_SQL,
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version;

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Applies the pending migrations (as the schema owner) and grants `appRole` row access
 * only. Idempotent; concurrent runners wait on the advisory lock.
 */
export async function applyMigrations(client: ClientBase, options: { appRole?: string; /** Stop after this version (tests of a later migration on an older schema); default: the latest. */ through?: number } = {}): Promise<{ from: number; to: number }> {
  const through = options.through ?? PG_SCHEMA_VERSION;
  const appRole = options.appRole ?? DEFAULT_APP_ROLE;
  if (!IDENTIFIER.test(appRole)) throw new AgentMemoryError('INVALID_INPUT', `The application role '${appRole}' is not a plain lower-case identifier.`);
  const owner = (await client.query<{ u: string }>('SELECT current_user AS u')).rows[0].u;
  if (appRole === owner) {
    // Its grants would revoke the owner's own rights on the keyword statistics, and every write would fail.
    throw new AgentMemoryError('INVALID_INPUT', `The application role must be another role than the schema owner '${owner}' that runs team-setup: give --app-role the role the clients log in as. Nothing was changed.`);
  }
  if (options.appRole !== undefined && !(await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [appRole])).rowCount) {
    throw new AgentMemoryError('INVALID_INPUT', `No role '${appRole}' on this server: create it first (CREATE ROLE ${appRole} LOGIN PASSWORD '…'), or leave --app-role out for ${DEFAULT_APP_ROLE}. Nothing was changed.`);
  }
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const from = Number((await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')).rows[0].v ?? 0);
    for (const m of PG_MIGRATIONS) {
      if (m.version <= from || m.version > through) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations(version, description) VALUES ($1, $2)', [m.version, m.description]);
    }
    const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [appRole]);
    if (role.rowCount) {
      // A single-trust team: the application role is a reviewer of every space (docs/team-threat-model.md; a company grants
      // roles per space with team-grant instead).
      for (const sql of applicationGrants(appRole)) await client.query(sql);
      await client.query("INSERT INTO space_members (space, role, level) VALUES ('*', $1, 'reviewer') ON CONFLICT (space, role) DO UPDATE SET level = 'reviewer'", [appRole]);
      await restrictConnect(client, appRole);
    }
    // The owner's own rights, in case an earlier setup (or an administrator) revoked them: its triggers write term_stats.
    await client.query('GRANT SELECT, INSERT, UPDATE, DELETE ON term_stats, schema_migrations TO CURRENT_USER');
    await client.query('COMMIT');
    return { from, to: through };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    const message = (error as Error).message;
    if (/permission denied to create extension/i.test(message)) {
      throw new AgentMemoryError('MIGRATION', `Could not set up the team memory: ${message}. A superuser must run CREATE EXTENSION vector in this database once (pgvector installed on the server); then run team-setup again as the schema owner.`, undefined, { cause: error });
    }
    throw new AgentMemoryError('MIGRATION', `Could not migrate the team memory schema: ${message}. Run team-setup as the schema owner role.`, undefined, { cause: error });
  }
}

/**
 * When the owner owns the database: only the roles it names may connect (REVOKE CONNECT … FROM PUBLIC), so a role
 * outside the team cannot even notify the change channel. A database owned by another role is left as it is (docs).
 */
export async function restrictConnect(client: ClientBase, role: string): Promise<boolean> {
  const db = (await client.query<{ d: string; mine: boolean }>('SELECT current_database() AS d, pg_has_role(current_user, (SELECT datdba FROM pg_database WHERE datname = current_database()), \'MEMBER\') AS mine')).rows[0];
  if (!db.mine) return false;
  const name = `"${db.d.replace(/"/g, '""')}"`;
  await client.query(`REVOKE CONNECT ON DATABASE ${name} FROM PUBLIC`);
  await client.query(`GRANT CONNECT ON DATABASE ${name} TO ${role}`);
  return true;
}

/** Throws MIGRATION when the schema is missing or older than this client knows. */
export async function assertSchemaCurrent(client: ClientBase): Promise<void> {
  let version = 0;
  try {
    version = Number((await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations')).rows[0].v ?? 0);
  } catch (error) {
    if ((error as { code?: string }).code === '42501') {
      const user = (await client.query<{ u: string }>('SELECT current_user AS u').catch(() => ({ rows: [{ u: 'this role' }] }))).rows[0].u;
      throw new AgentMemoryError('CONFIG', `The role '${user}' may not use the team memory's tables (${(error as Error).message}). Ask the administrator to grant it a level in the space it needs: agent-memory team-grant --url <owner URL> --role ${user} --space <space> --as agent (or reviewer).`);
    }
    version = 0;
  }
  if (version < PG_SCHEMA_VERSION) {
    throw new AgentMemoryError('MIGRATION', `The team memory schema is at version ${version}, this client needs ${PG_SCHEMA_VERSION}. Run: agent-memory team-setup --url <owner URL> (as the schema owner role).`);
  }
  if (version > PG_SCHEMA_VERSION) {
    throw new AgentMemoryError('MIGRATION', `The team memory schema is at version ${version}, newer than this client (${PG_SCHEMA_VERSION}). Update Agent Memory.`);
  }
}

/**
 * The HNSW index for vectors of `dimension` (pgvector needs a fixed dimension per index;
 * one partial index per dimension in use). Run by the schema owner (team-setup).
 */
export async function ensureDenseIndex(client: ClientBase, dimension: number): Promise<void> {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 2000) {
    throw new AgentMemoryError('INVALID_INPUT', `An HNSW index covers 1 to 2000 dimensions; got ${dimension}.`);
  }
  await client.query(
    `CREATE INDEX IF NOT EXISTS records_hnsw_${dimension} ON records USING hnsw ((embedding::vector(${dimension})) vector_cosine_ops) WHERE status = 'active' AND embedding_dim = ${dimension}`,
  );
}
