/**
 * Moving a memory between backends (`agent-memory migrate --from FILE|URL --to FILE|URL`):
 * every record with its lifecycle (status, statusBeforeDelete, both timestamps),
 * provenance, vector, utilities and merge count, the retrieval log, the task log and the
 * audit trail. Records keep their order; internal row ids are the target's own (the
 * retrieval log is re-linked by record id). The target must be empty (a SQLite file with
 * no records and tasks, or an unused space), and the copy is one transaction.
 *
 * `dumpMemory` is the canonical, backend-independent export of all of it (JSON lines in a
 * fixed order, without internal ids): SQLite → PostgreSQL → SQLite gives the same bytes.
 */
import type { Database } from 'better-sqlite3';
import type { PoolClient } from 'pg';
import { AgentMemoryError } from '../../errors';
import type { MemoryStore } from '../sqlite/store';
import { blobToVector, vectorToBlob } from '../dense/vector-index';
import { refreshTeamStatistics, StatisticsRefresh } from './team-maintenance';
import type { TeamMemoryStore } from './team-store';
import { parseVector, vectorLiteral } from './vector-text';

type Row = Record<string, unknown>;

/** Columns copied for each table (the schema concepts both backends share). */
const RECORD_COLUMNS = [
  'id', 'question', 'code', 'language', 'answer', 'outcome', 'output_excerpt', 'demonstration_ids', 'input_similarity', 'output_similarity',
  'status', 'provenance', 'created_task', 'created_at', 'updated_at', 'status_before_delete', 'embedder_id', 'embedding_dim', 'metadata',
  'retrieval_count', 'utility_sum', 'utility_count', 'last_retrieved_task', 'in_sim_sum', 'in_sim_count', 'out_sim_sum', 'out_sim_count', 'merged_count', 'dedup_key',
] as const;
const TASK_COLUMNS = ['task_index', 'question', 'language', 'code', 'answer', 'outcome', 'utility', 'evaluator', 'input_similarity', 'output_similarity', 'record_id', 'started_at', 'finished_at', 'log'] as const;
const RETRIEVAL_COLUMNS = ['task_index', 'record_id', 'rank', 'input_similarity', 'output_similarity', 'utility', 'shown', 'followed'] as const;
const AUDIT_COLUMNS = ['at', 'operation', 'record_id', 'trigger', 'reason', 'evidence'] as const;
const META_KEYS = ['embedder_id', 'embedder_dim'] as const;

/** Everything a memory holds, backend-independent. `embedding` is a plain number array. */
export interface MemoryContent {
  records: Row[];
  tasks: Row[];
  retrievals: Row[];
  audit: Row[];
  meta: Record<string, string>;
}

const cols = (c: readonly string[], prefix = ''): string => c.map((x) => prefix + x).join(', ');

// ---------------------------------------------------------------- SQLite

export function readSqlite(store: MemoryStore): MemoryContent {
  const db: Database = store.connectionForQueries();
  const records = (db.prepare(`SELECT ${cols(RECORD_COLUMNS)}, embedding FROM records ORDER BY rid`).all() as Row[]).map((r) => ({
    ...r,
    embedding: r.embedding ? Array.from(blobToVector(r.embedding as Buffer)) : null,
  }));
  const tasks = db.prepare(`SELECT ${cols(TASK_COLUMNS)} FROM tasks ORDER BY task_index`).all() as Row[];
  const retrievals = db
    .prepare(`SELECT ${cols(RETRIEVAL_COLUMNS.filter((c) => c !== 'record_id'), 't.')}, r.id AS record_id FROM retrievals t JOIN records r ON r.rid = t.rid ORDER BY t.task_index, t.rank, r.id`)
    .all() as Row[];
  const audit = db.prepare(`SELECT ${cols(AUDIT_COLUMNS)} FROM audit ORDER BY id`).all() as Row[];
  const meta: Record<string, string> = {};
  for (const k of META_KEYS) {
    const v = store.getMeta(k);
    if (v !== undefined) meta[k] = v;
  }
  return { records, tasks, retrievals, audit, meta };
}

export function writeSqlite(store: MemoryStore, content: MemoryContent): void {
  const db: Database = store.connectionForQueries();
  const c = store.counts();
  const tasks = (db.prepare('SELECT count(*) AS n FROM tasks').get() as { n: number }).n;
  if (c.active + c.pending + c.deleted + tasks > 0) throw new AgentMemoryError('INVALID_STATE', 'The target memory is not empty: migrate into a new database file (nothing was written).');
  store.atomically(() => {
    const insert = db.prepare(`INSERT INTO records (${cols(RECORD_COLUMNS)}, embedding) VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')}, ?)`);
    const dim = content.meta.embedder_dim ? Number(content.meta.embedder_dim) : undefined;
    if (dim) store.vectors.ensure(dim);
    for (const r of content.records) {
      const vector = r.embedding ? Float32Array.from(r.embedding as number[]) : null;
      const rid = Number(insert.run(...RECORD_COLUMNS.map((k) => r[k] as never), vector ? vectorToBlob(vector) : null).lastInsertRowid);
      if (vector && r.status === 'active') store.vectors.upsert(rid, vector);
    }
    const task = db.prepare(`INSERT INTO tasks (${cols(TASK_COLUMNS)}) VALUES (${TASK_COLUMNS.map(() => '?').join(', ')})`);
    for (const t of content.tasks) task.run(...TASK_COLUMNS.map((k) => t[k] as never));
    const retrieval = db.prepare(
      `INSERT INTO retrievals (task_index, rid, rank, input_similarity, output_similarity, utility, shown, followed) SELECT ?, rid, ?, ?, ?, ?, ?, ? FROM records WHERE id = ?`,
    );
    for (const r of content.retrievals) retrieval.run(r.task_index, r.rank, r.input_similarity, r.output_similarity, r.utility, r.shown, r.followed, r.record_id);
    const audit = db.prepare(`INSERT INTO audit (${cols(AUDIT_COLUMNS)}) VALUES (${AUDIT_COLUMNS.map(() => '?').join(', ')})`);
    for (const a of content.audit) audit.run(...AUDIT_COLUMNS.map((k) => a[k] as never));
    for (const [k, v] of Object.entries(content.meta)) store.setMeta(k, v);
    const lastTask = content.tasks.reduce((m, t) => Math.max(m, Number(t.task_index)), 0);
    store.setMeta('next_task_index', String(lastTask + 1));
  });
}

// ---------------------------------------------------------------- PostgreSQL

/** `$2` (a JSON array of rows) as a table `x` with the given columns and `n`, the array position. */
function jsonRows(columns: readonly string[], types: Record<string, string>): string {
  const spec = columns.map((k) => `${k} ${types[k] ?? 'text'}`).join(', ');
  return `ROWS FROM (jsonb_to_recordset($2::jsonb) AS (${spec})) WITH ORDINALITY AS x(${cols(columns)}, n)`;
}

/** Rows as JSON for jsonb_to_recordset: one statement per chunk. */
async function insertJson(c: PoolClient, table: string, columns: readonly string[], types: Record<string, string>, space: string, rows: Row[], select?: string): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    await c.query(
      select ?? `INSERT INTO ${table} (space, ${cols(columns)}) SELECT $1, ${cols(columns, 'x.')} FROM ${jsonRows(columns, types)} ORDER BY n`,
      [space, JSON.stringify(chunk)],
    );
  }
}

const FLOAT = 'double precision';
const INT = 'bigint';
const RECORD_TYPES: Record<string, string> = {
  input_similarity: FLOAT, output_similarity: FLOAT, created_task: INT, embedding_dim: 'integer', retrieval_count: INT, utility_sum: FLOAT, utility_count: INT,
  last_retrieved_task: INT, in_sim_sum: FLOAT, in_sim_count: INT, out_sim_sum: FLOAT, out_sim_count: INT, merged_count: INT,
};
const TASK_TYPES: Record<string, string> = { task_index: INT, utility: FLOAT, input_similarity: FLOAT, output_similarity: FLOAT };
const RETRIEVAL_TYPES: Record<string, string> = { task_index: INT, rank: 'integer', input_similarity: FLOAT, output_similarity: FLOAT, utility: FLOAT, shown: 'integer', followed: 'integer' };

/** Everything the space holds, read in one snapshot (a REPEATABLE READ, read-only transaction). */
export async function readTeam(team: TeamMemoryStore): Promise<MemoryContent> {
  return team.withClient(
    async (c) => {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        return await readTeamIn(c, team);
      } finally {
        await c.query('COMMIT').catch(() => undefined);
      }
    },
    'read the memory for migration',
    { retryBroken: true },
  );
}

async function readTeamIn(c: PoolClient, team: TeamMemoryStore): Promise<MemoryContent> {
  const s = [team.space];
  const records = (await c.query<Row>(`SELECT ${cols(RECORD_COLUMNS)}, embedding::text AS embedding FROM records WHERE space = $1 ORDER BY rid`, s)).rows.map((r) => ({
    ...r,
    embedding: r.embedding ? Array.from(parseVector(r.embedding as string)) : null,
  }));
  const tasks = (await c.query<Row>(`SELECT ${cols(TASK_COLUMNS)} FROM tasks WHERE space = $1 ORDER BY task_index`, s)).rows;
  const retrievals = (
    await c.query<Row>(
      `SELECT ${cols(RETRIEVAL_COLUMNS.filter((x) => x !== 'record_id'), 't.')}, r.id AS record_id FROM retrievals t JOIN records r ON r.rid = t.rid WHERE t.space = $1 ORDER BY t.task_index, t.rank, r.id`,
      s,
    )
  ).rows;
  const audit = (await c.query<Row>(`SELECT ${cols(AUDIT_COLUMNS)} FROM audit WHERE space = $1 ORDER BY id`, s)).rows;
  const meta: Record<string, string> = {};
  for (const row of (await c.query<{ key: string; value: string }>('SELECT key, value FROM meta WHERE space = $1 AND key = ANY($2::text[])', [team.space, META_KEYS])).rows) meta[row.key] = row.value;
  return { records, tasks, retrievals, audit, meta };
}

/**
 * Writes `content` into the space in one transaction. The space must be empty, or with
 * `replace` its records, retrieval log, task log, audit and embedder settings are deleted
 * first, in the same transaction (all or nothing; the space's addition policy and role
 * memories stay). Then refreshes the planner statistics when the role owns the tables.
 */
export async function writeTeam(team: TeamMemoryStore, content: MemoryContent, options: { replace?: boolean } = {}): Promise<{ statistics: StatisticsRefresh }> {
  await team.transaction(async (c) => {
    // A whole memory (100k records, HNSW maintained per row) takes longer than the 5 s per-statement cap of interactive use.
    await c.query("SET LOCAL statement_timeout = '30min'");
    let replaced = 0;
    if (options.replace) {
      // A reviewer's, through the owner's function: the space's audit is archived (audit_archive), not erased.
      replaced = (await c.query<{ n: number }>('SELECT agent_memory_replace_space($1) AS n', [team.space])).rows[0].n;
    }
    const used = await c.query<{ n: number }>('SELECT (SELECT count(*) FROM records WHERE space = $1) + (SELECT count(*) FROM tasks WHERE space = $1) AS n', [team.space]);
    if (Number(used.rows[0].n) > 0) throw new AgentMemoryError('INVALID_STATE', `Space '${team.space}' of the team memory is not empty: write into a new space (--space NAME), or replace its content where the command offers it (restore --replace). Nothing was written.`);
    const records = content.records.map((r) => ({ ...r, embedding: r.embedding ? vectorLiteral(Float32Array.from(r.embedding as number[])) : null }));
    await insertJson(c, 'records', [...RECORD_COLUMNS, 'embedding'], { ...RECORD_TYPES, embedding: 'text' }, team.space, records,
      `INSERT INTO records (space, ${cols(RECORD_COLUMNS)}, embedding) SELECT $1, ${cols(RECORD_COLUMNS, 'x.')}, x.embedding::vector
       FROM ${jsonRows([...RECORD_COLUMNS, 'embedding'], RECORD_TYPES)} ORDER BY n`);
    await insertJson(c, 'tasks', TASK_COLUMNS, TASK_TYPES, team.space, content.tasks);
    await insertJson(c, 'retrievals', RETRIEVAL_COLUMNS, RETRIEVAL_TYPES, team.space, content.retrievals,
      `INSERT INTO retrievals (space, task_index, rid, rank, input_similarity, output_similarity, utility, shown, followed)
       SELECT $1, x.task_index, r.rid, x.rank, x.input_similarity, x.output_similarity, x.utility, x.shown, x.followed
       FROM ${jsonRows(RETRIEVAL_COLUMNS, RETRIEVAL_TYPES)}
       JOIN records r ON r.space = $1 AND r.id = x.record_id ORDER BY n`);
    await insertJson(c, 'audit', AUDIT_COLUMNS, {}, team.space, content.audit);
    for (const [k, v] of Object.entries(content.meta)) await team.setMeta(k, v, c);
    const lastTask = content.tasks.reduce((m, t) => Math.max(m, Number(t.task_index)), 0);
    // Team task indexes come from one sequence: never hand out an index the copied log uses.
    if (lastTask > 0) await c.query('SELECT agent_memory_after_task_restore($1)', [team.space]);
    if (options.replace) {
      await team.writeAudit(c, 'restore', null, 'user', `replaced the space's content (${replaced} record(s); the replaced audit is kept in audit_archive) with ${records.length} record(s), ${content.audit.length} audit entries`, { replaced, records: records.length });
    }
  }, 'write the migrated memory');
  return { statistics: await refreshTeamStatistics(team) };
}

// ---------------------------------------------------------------- canonical export

/** The canonical export: one JSON line per row, tables in a fixed order, keys sorted. */
export function dumpMemory(content: MemoryContent): string {
  const line = (table: string, row: Row): string => JSON.stringify({ table, ...Object.fromEntries(Object.keys(row).sort().map((k) => [k, row[k]])) });
  return [
    ...Object.keys(content.meta).sort().map((k) => line('meta', { key: k, value: content.meta[k] })),
    ...content.records.map((r) => line('records', r)),
    ...content.tasks.map((r) => line('tasks', r)),
    ...content.retrievals.map((r) => line('retrievals', r)),
    ...content.audit.map((r) => line('audit', r)),
  ].join('\n') + '\n';
}
