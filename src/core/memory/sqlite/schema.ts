/**
 * Versioned schema migrations, applied in order by `openDatabase` using
 * `PRAGMA user_version`. Never edit a shipped migration: append a new one.
 *
 * Design notes:
 * - `records.rowid` (alias `rid`) is the key shared with the sqlite-vec tables.
 * - The canonical embedding lives in `records.embedding` (float32 BLOB) so that the
 *   vector index can always be rebuilt; the vec0 tables only hold active records.
 * - Utility counters on `records` are maintained incrementally so deletion
 *   policies can run set-based over 100k records in milliseconds.
 */
import type { Database } from 'better-sqlite3';
import { auditEntryHash, type AuditChainRow } from '../audit-chain';

export interface Migration {
  version: number;
  description: string;
  /** The migration's SQL; or `run` when it must read the schema first. */
  sql?: string;
  run?: (db: Database) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'records, retrievals, tasks, audit log, metadata',
    sql: `
CREATE TABLE records (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  question TEXT NOT NULL,
  code TEXT NOT NULL,
  language TEXT NOT NULL CHECK (language IN ('python','javascript')),
  answer TEXT NOT NULL DEFAULT 'null',
  outcome TEXT NOT NULL CHECK (outcome IN ('success','error','timeout','no-answer')),
  output_excerpt TEXT NOT NULL DEFAULT '',
  demonstration_ids TEXT NOT NULL DEFAULT '[]',
  input_similarity REAL,
  output_similarity REAL,
  status TEXT NOT NULL CHECK (status IN ('pending','active','deleted')),
  provenance TEXT NOT NULL CHECK (provenance IN ('seed','agent','import','user')),
  created_task INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  status_before_delete TEXT,
  embedding BLOB,
  embedder_id TEXT,
  embedding_dim INTEGER,
  metadata TEXT NOT NULL DEFAULT '{}',
  retrieval_count INTEGER NOT NULL DEFAULT 0,
  utility_sum REAL NOT NULL DEFAULT 0,
  utility_count INTEGER NOT NULL DEFAULT 0,
  last_retrieved_task INTEGER,
  in_sim_sum REAL NOT NULL DEFAULT 0,
  out_sim_sum REAL NOT NULL DEFAULT 0,
  out_sim_count INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX records_status ON records(status);
CREATE INDEX records_created_task ON records(created_task);

CREATE TABLE retrievals (
  id INTEGER PRIMARY KEY,
  task_index INTEGER NOT NULL,
  rid INTEGER NOT NULL REFERENCES records(rid) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  input_similarity REAL,
  output_similarity REAL,
  utility REAL,
  UNIQUE (task_index, rid)
);
CREATE INDEX retrievals_rid ON retrievals(rid, task_index);
CREATE INDEX retrievals_task ON retrievals(task_index);

CREATE TABLE tasks (
  task_index INTEGER PRIMARY KEY,
  question TEXT NOT NULL,
  language TEXT,
  code TEXT,
  answer TEXT,
  outcome TEXT,
  utility REAL,
  evaluator TEXT,
  input_similarity REAL,
  output_similarity REAL,
  record_id TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  log TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE audit (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  operation TEXT NOT NULL,
  record_id TEXT,
  trigger TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  evidence TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_record ON audit(record_id);

CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO meta(key, value) VALUES ('change_id', '0'), ('next_task_index', '1');
`,
  },
  {
    version: 2,
    description: 'covering index for set-based deletion policies',
    // Deletion planners (src/core/policy/deletion) scan only this index: a
    // 100k-record dry run decides in ~10 ms instead of scanning the table rows.
    sql: `
CREATE INDEX records_policy ON records(status, created_task, retrieval_count, utility_count, utility_sum, last_retrieved_task, provenance, id);
`,
  },
  {
    version: 3,
    description: 'count of retrievals with a known input similarity (keyword-only hits have none)',
    // Mean input similarity = in_sim_sum / in_sim_count: a retrieval without a cosine no longer
    // counts as 0 and drags the mean (and the misaligned-replay flag) down.
    sql: `
ALTER TABLE records ADD COLUMN in_sim_count INTEGER NOT NULL DEFAULT 0;
UPDATE records SET in_sim_count = (SELECT COUNT(*) FROM retrievals r WHERE r.rid = records.rid AND r.input_similarity IS NOT NULL);
`,
  },
  {
    version: 4,
    description: 'attribution of a task\'s utility: which retrieved records were shown in the prompt, and followed',
    // shown = 1: the record was placed in the prompt (rows logged before v4 were credited, so 1).
    // followed: NULL = not assessed (attribution 'shown'); 1 / 0 = the generated code did / did
    // not follow the record (attribution 'followed'). Φ is written only where shown = 1 and
    // followed is not 0; other rows keep utility NULL and do not count toward the history mean.
    sql: `
ALTER TABLE retrievals ADD COLUMN shown INTEGER NOT NULL DEFAULT 1;
ALTER TABLE retrievals ADD COLUMN followed INTEGER;
`,
  },
  {
    version: 5,
    description: 'identical records merged on addition: a count and a key (normalised question + code)',
    // dedup_key is filled in JS (src/core/memory/dedup.ts normalises the text); rows written
    // before v5 or by other paths get theirs the first time an addition looks for a twin.
    sql: `
ALTER TABLE records ADD COLUMN merged_count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE records ADD COLUMN dedup_key TEXT;
CREATE INDEX records_dedup ON records(dedup_key);
`,
  },
  {
    version: 6,
    description: 'records may carry any code language (records from other agents over MCP)',
    run: (db) => rebuildWithoutLanguageCheck(db),
  },
  {
    version: 7,
    description: 'record change log for cross-process freshness of the derived indexes',
    // Every insert, status/text/vector change and purge of a record appends its rid here
    // (triggers, so every writer — any process, any code path — is covered). The dense and
    // keyword indexes remember the last seq they applied and catch up on the rids after it
    // before a query. Old entries are pruned (a reader that fell behind the prune rebuilds).
    sql: `
CREATE TABLE record_changes (seq INTEGER PRIMARY KEY, rid INTEGER NOT NULL);
CREATE TRIGGER record_changes_insert AFTER INSERT ON records BEGIN INSERT INTO record_changes(rid) VALUES (NEW.rid); END;
CREATE TRIGGER record_changes_update AFTER UPDATE OF status, question, code, embedding ON records BEGIN INSERT INTO record_changes(rid) VALUES (NEW.rid); END;
CREATE TRIGGER record_changes_delete AFTER DELETE ON records BEGIN INSERT INTO record_changes(rid) VALUES (OLD.rid); END;
CREATE TRIGGER record_changes_prune AFTER INSERT ON record_changes WHEN NEW.seq % 10000 = 0 BEGIN DELETE FROM record_changes WHERE seq <= NEW.seq - 200000; END;
`,
  },
  {
    version: 8,
    description: 'persistent cache of endpoint embeddings, keyed by embedder and content hash',
    // An OpenAI-compatible embedding endpoint is called once per (embedder, text): re-embedding
    // unchanged text, a re-embed resumed after a cancel, and repeated questions read the vector
    // here. The text itself is not kept (only its SHA-256).
    sql: `
CREATE TABLE embedding_cache (
  embedder_id TEXT NOT NULL,
  text_hash BLOB NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (embedder_id, text_hash)
) WITHOUT ROWID;
`,
  },
  {
    version: 9,
    description: 'deletions proposed for review (and records the user kept), and revalidation of programs against the data',
    // deletion_proposals: what an automatic rule would delete under deletion.review = propose,
    // with its rule and evidence, until the user confirms (soft delete) or keeps it.
    // deletion_exemptions: a kept record is not proposed (nor deleted by a rule) before until_task.
    // record_checks: the fingerprint of the data the record's program last ran against, the
    // last re-run's result and whether the record is stale (its program now fails): stale
    // records are not retrieved as demonstrations until approved again or re-run clean.
    sql: `
CREATE TABLE deletion_proposals (
  rid INTEGER PRIMARY KEY REFERENCES records(rid) ON DELETE CASCADE,
  policy TEXT NOT NULL,
  rule TEXT NOT NULL,
  evidence TEXT NOT NULL DEFAULT '{}',
  trigger TEXT NOT NULL,
  task_index INTEGER NOT NULL,
  proposed_at TEXT NOT NULL
);
CREATE TABLE deletion_exemptions (
  rid INTEGER PRIMARY KEY REFERENCES records(rid) ON DELETE CASCADE,
  until_task INTEGER NOT NULL,
  kept_at TEXT NOT NULL
);
CREATE TABLE record_checks (
  rid INTEGER PRIMARY KEY REFERENCES records(rid) ON DELETE CASCADE,
  fingerprint TEXT,
  state TEXT CHECK (state IN ('unchanged', 'changed', 'failing')),
  stale INTEGER NOT NULL DEFAULT 0,
  answer TEXT,
  error TEXT,
  checked_at TEXT NOT NULL
);
CREATE INDEX record_checks_stale ON record_checks(stale) WHERE stale = 1;
`,
  },
  {
    version: 10,
    description: "covering index of the evaluated tasks' utilities (the relative threshold's running accuracy)",
    // DeletionQueries.runningAccuracy averages Φ over the evaluated tasks up to t at every task of a
    // relative-threshold policy: without it each call read every task row (code, answer, log).
    sql: `
CREATE INDEX tasks_utility ON tasks(task_index, utility) WHERE utility IS NOT NULL;
`,
  },
  {
    version: 11,
    description: 'audit hash chain: each entry carries the hash of the previous one (audit --verify shows an edited or deleted entry)',
    run: (db) => addAuditChain(db),
  },
  {
    version: 12,
    description: "running totals of the evaluated tasks' utilities (the relative threshold's running accuracy without reading the task log)",
    run: (db) => db.exec(taskUtilityTotalsSql()),
  },
];

/**
 * Count and sum of the evaluated tasks' Φ (schema v12), kept by triggers on `tasks` in the
 * transaction that writes them (whoever writes: the task log, a transfer, a future tool), so
 * DeletionQueries.runningAccuracy reads one row instead of every evaluated task (~15 ms at 250k).
 * The sum is compensated (Neumaier: `utility_comp` holds the rounding error of each addition,
 * SQLite's own SUM/AVG sums the same way), so it stays the sum of the values present however many
 * re-evaluations and withdrawals came and went. Evaluated before any trigger exists: the totals of
 * the tasks already stored.
 */
function addToUtilityTotals(x: string): string {
  return `UPDATE task_utility_totals SET
    utility_comp = utility_comp + CASE WHEN abs(utility_sum) >= abs(${x}) THEN (utility_sum - (utility_sum + ${x})) + ${x} ELSE (${x} - (utility_sum + ${x})) + utility_sum END,
    utility_sum = utility_sum + ${x};`;
}
function taskUtilityTotalsSql(): string {
  return `
CREATE TABLE task_utility_totals (k INTEGER PRIMARY KEY CHECK (k = 1), evaluated INTEGER NOT NULL, utility_sum REAL NOT NULL, utility_comp REAL NOT NULL);
INSERT INTO task_utility_totals (k, evaluated, utility_sum, utility_comp) SELECT 1, COUNT(utility), COALESCE(SUM(utility), 0.0), 0.0 FROM tasks;
CREATE TRIGGER tasks_utility_insert AFTER INSERT ON tasks WHEN NEW.utility IS NOT NULL BEGIN
  UPDATE task_utility_totals SET evaluated = evaluated + 1;
  ${addToUtilityTotals('NEW.utility')}
END;
CREATE TRIGGER tasks_utility_update AFTER UPDATE OF utility ON tasks WHEN OLD.utility IS NOT NEW.utility BEGIN
  UPDATE task_utility_totals SET evaluated = evaluated + (NEW.utility IS NOT NULL) - (OLD.utility IS NOT NULL);
  ${addToUtilityTotals('COALESCE(-OLD.utility, 0.0)')}
  ${addToUtilityTotals('COALESCE(NEW.utility, 0.0)')}
END;
CREATE TRIGGER tasks_utility_delete AFTER DELETE ON tasks WHEN OLD.utility IS NOT NULL BEGIN
  UPDATE task_utility_totals SET evaluated = evaluated - 1;
  ${addToUtilityTotals('-OLD.utility')}
END;
`;
}

/**
 * The audit's hash chain (audit-chain.ts): computed by an AFTER INSERT trigger through the function
 * `agent_memory_audit_hash` that database.ts registers on every connection (a tool without it cannot
 * append to the audit), with the head (last id, last hash, count) kept beside it. Entries already
 * stored are chained in id order.
 */
function addAuditChain(db: Database): void {
  db.exec(`
ALTER TABLE audit ADD COLUMN prev_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN hash TEXT NOT NULL DEFAULT '';
CREATE TABLE audit_chain_head (k INTEGER PRIMARY KEY CHECK (k = 1), last_id INTEGER NOT NULL, last_hash TEXT NOT NULL, entries INTEGER NOT NULL);
`);
  let prev = '';
  let last = 0;
  let entries = 0;
  const update = db.prepare('UPDATE audit SET prev_hash = ?, hash = ? WHERE id = ?');
  for (const row of db.prepare('SELECT id, at, operation, record_id, trigger, reason, evidence FROM audit ORDER BY id').iterate() as Iterable<SqliteAuditRow>) {
    const hash = sqliteAuditHash(row.id, row.at, row.operation, row.record_id, row.trigger, row.reason, row.evidence, prev);
    update.run(prev, hash, row.id);
    prev = hash;
    last = row.id;
    entries++;
  }
  if (entries > 0) db.prepare('INSERT INTO audit_chain_head (k, last_id, last_hash, entries) VALUES (1, ?, ?, ?)').run(last, prev, entries);
  db.exec(`
CREATE TRIGGER audit_chain AFTER INSERT ON audit BEGIN
  UPDATE audit SET
    prev_hash = coalesce((SELECT hash FROM audit WHERE id < NEW.id ORDER BY id DESC LIMIT 1), ''),
    hash = agent_memory_audit_hash(NEW.id, NEW.at, NEW.operation, NEW.record_id, NEW.trigger, NEW.reason, NEW.evidence,
      coalesce((SELECT hash FROM audit WHERE id < NEW.id ORDER BY id DESC LIMIT 1), ''))
  WHERE id = NEW.id;
  INSERT INTO audit_chain_head (k, last_id, last_hash, entries) VALUES (1, NEW.id, (SELECT hash FROM audit WHERE id = NEW.id), 1)
    ON CONFLICT (k) DO UPDATE SET last_id = excluded.last_id, last_hash = excluded.last_hash, entries = entries + 1;
END;
`);
}

/**
 * SQLite cannot drop a CHECK constraint, so `records` is rebuilt from its own
 * current definition minus the language CHECK (whatever columns earlier migrations
 * added), keeping every rowid. `retrievals` references `records` with ON DELETE
 * CASCADE, so its rows are parked in a plain table while the old `records` is
 * dropped, then restored. Indexes and triggers are re-created from their SQL.
 */
function rebuildWithoutLanguageCheck(db: Database): void {
  const sqlOf = (name: string): string => (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) as { sql: string }).sql;
  const recordsSql = sqlOf('records');
  const languageCheck = /language\s+TEXT\s+NOT\s+NULL\s+CHECK\s*\(\s*language\s+IN\s*\([^)]*\)\s*\)/i;
  if (!languageCheck.test(recordsSql)) return;
  const retrievalsSql = sqlOf('retrievals');
  const dependents = db
    .prepare("SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name IN ('records', 'retrievals') AND sql IS NOT NULL")
    .all() as { sql: string }[];
  db.exec('CREATE TABLE retrievals_v6_copy AS SELECT * FROM retrievals; DROP TABLE retrievals;');
  db.exec(recordsSql.replace(/^CREATE TABLE\s+"?records"?/i, 'CREATE TABLE records_v6').replace(languageCheck, 'language TEXT NOT NULL CHECK (length(language) BETWEEN 1 AND 40)'));
  db.exec('INSERT INTO records_v6 SELECT * FROM records; DROP TABLE records; ALTER TABLE records_v6 RENAME TO records;');
  db.exec(retrievalsSql);
  db.exec('INSERT INTO retrievals SELECT * FROM retrievals_v6_copy; DROP TABLE retrievals_v6_copy;');
  for (const d of dependents) db.exec(d.sql);
}

/** The hashed fields a SQLite audit row holds (it has no space and no actors). */
type SqliteAuditRow = Pick<AuditChainRow, 'id' | 'at' | 'operation' | 'record_id' | 'trigger' | 'reason' | 'evidence'>;

/** An audit entry's hash in a SQLite memory: no space and no actors (''), as audit-chain.ts defines it. */
export function sqliteAuditHash(id: number, at: string, operation: string, recordId: string | null, trigger: string, reason: string, evidence: string, prevHash: string): string {
  return auditEntryHash({ id, space: '', at, operation, record_id: recordId, trigger, reason, evidence, actor_user: '', actor_client: '', actor_role: '', prev_hash: prevHash });
}

/** Registers the SQL function the audit trigger calls (every connection that may write). */
export function registerAuditHash(db: Database): void {
  db.function('agent_memory_audit_hash', { deterministic: true }, (id: unknown, at: unknown, operation: unknown, recordId: unknown, trigger: unknown, reason: unknown, evidence: unknown, prev: unknown) =>
    sqliteAuditHash(Number(id), String(at), String(operation), recordId === null ? null : String(recordId), String(trigger), String(reason), String(evidence), String(prev)),
  );
}

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
