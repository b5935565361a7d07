import { randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { Emitter } from '../../events';
import { Disposable } from '../../lifecycle';
import { Logger, nullLogger } from '../../logger';
import { Database, markClean, openDatabase, OpenDatabaseOptions } from './database';
import { databaseError } from './database-errors';
import { RECORD_COLUMNS, RecordRow, rowToRecord } from './record-row';
import {
  AuditChannel,
  AuditChannelSchema,
  AuditEntry,
  AuditOperation,
  MemoryChangeEvent,
  MemoryRecord,
  NewRecord,
  NewRecordInput,
  RecordStatus,
  Trigger,
  TriggerSchema,
} from '../types';
import { CommitQueue } from './commit-queue';
import { CheckpointMode, IdleCheckpointer } from './wal-checkpoint';
import { EmbeddingCache } from './embedding-cache';
import { blobToVector, VectorIndex, vectorToBlob } from '../dense/vector-index';
import { listRecords, ListQuery, ListResult } from './record-query';
import { redactNewRecords } from '../../security/record-redaction';
import { redactJson, redactText } from '../../security/redact';
import { AddOptions, IndexedText, mismatchCheck, OperationContext, parseNewRecords, TransitionContext } from './store-types';
import { StoreQueries } from './store-queries';
export type { AddOptions, IndexedText, OperationContext, RetrievalLogEntry, TransitionContext } from './store-types';

/** Column order of the positional parameters `add` binds. */
const INSERT_RECORD_SQL = `INSERT INTO records (id, question, code, language, answer, outcome, output_excerpt, demonstration_ids,
  input_similarity, output_similarity, status, provenance, created_task, created_at, updated_at, embedding, embedder_id, embedding_dim, metadata)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_AUDIT_SQL = 'INSERT INTO audit (at, operation, record_id, trigger, reason, evidence) VALUES (?, ?, ?, ?, ?, ?)';

export const TransitionRules: Record<'approve' | 'unapprove' | 'reject' | 'delete' | 'restore' | 'purge', RecordStatus[]> = {
  approve: ['pending'],
  /** Undo of an approval: active → pending (no longer retrievable). */
  unapprove: ['active'],
  reject: ['pending'],
  delete: ['pending', 'active'],
  restore: ['deleted'],
  purge: ['deleted'],
};

/**
 * The durable memory store: records, retrieval log, tasks, audit log, metadata,
 * in one SQLite database with sqlite-vec. Every multi-row change is one
 * transaction; events fire only after commit.
 *
 * @example
 * const store = MemoryStore.open(':memory:');
 * const [rec] = store.add([{ question: 'how many patients?', execution: { code: 'answer = 1', language: 'python', outcome: 'success' } }], { trigger: 'user' });
 * store.transition([rec.id], 'delete', { trigger: 'user', reason: 'wrong answer' });
 */
export class MemoryStore extends Disposable {
  readonly vectors: VectorIndex;
  private readonly changes = new Emitter<MemoryChangeEvent>();
  readonly onDidChange = this.changes.event;
  private readonly logger: Logger;
  private readonly commits: CommitQueue;
  /** Named read queries for the services above the store (seeding, re-embed, dashboard). */
  readonly queries: StoreQueries;
  /** Endpoint embeddings by embedder and content hash (src/core/similarity/endpoint-embedder.ts). */
  readonly embeddingCache: EmbeddingCache;
  readonly checkpoints: IdleCheckpointer; // checkpoints the WAL once idle after a commit (wal-checkpoint.ts)

  /** The program this store writes for (kept in every audit entry's evidence as `channel`); none in tests and tools that do not say. */
  readonly channel: AuditChannel | undefined;

  constructor(private readonly db: Database, options: { logger?: Logger; channel?: AuditChannel; checkpoints?: CheckpointMode } = {}) {
    super();
    this.channel = options.channel === undefined ? undefined : AuditChannelSchema.parse(options.channel);
    this._register({
      dispose: () => {
        if (!this.db.open) return;
        const file = this.db.memory || this.db.readonly ? null : this.db.name;
        this.db.close();
        // Recorded as cleanly closed: the next open may skip the full integrity check (database.ts).
        if (file) markClean(file);
      },
    });
    this._register(this.changes);
    this.logger = options.logger ?? nullLogger;
    this.commits = new CommitQueue(db);
    this.vectors = new VectorIndex(db);
    this.queries = new StoreQueries(db);
    this.embeddingCache = new EmbeddingCache(db);
    this.checkpoints = this._register(new IdleCheckpointer(db, this.logger, options.checkpoints)); // disposed before the close
  }

  /**
   * @internal The raw connection, for the modules of src/core/memory only (task
   * log, indexes, JSONL, queries/). Nothing outside src/core/memory may call it
   * (test/unit/architecture/house-rules.test.ts enforces this; tests may).
   */
  connectionForQueries(): Database {
    return this.db;
  }

  /** Opens (creating and migrating as needed) a store at `file` (or ':memory:'). */
  static open(file: string, options: OpenDatabaseOptions & { channel?: AuditChannel } = {}): MemoryStore {
    return new MemoryStore(openDatabase(file, options), { logger: options.logger, channel: options.channel, checkpoints: options.checkpoints });
  }

  /** Closes the connection (same as dispose). */
  close(): void {
    this.dispose();
  }

  /** Prepared statements are cached by SQL text (preparing costs more than running a point query). */
  private readonly statements = new Map<string, Statement>();

  private stmt(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  // ---------------------------------------------------------------- metadata

  getMeta(key: string): string | undefined {
    return (this.stmt('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
  }

  deleteMeta(key: string): void {
    this.stmt('DELETE FROM meta WHERE key = ?').run(key);
  }

  setMeta(key: string, value: string): void {
    // An upsert changes the row in place (REPLACE would delete it and insert it again, index entry included).
    this.stmt('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** Monotonic counter bumped by every committed change (used to detect stale derived indexes). */
  get changeId(): number {
    return Number(this.getMeta('change_id') ?? '0');
  }

  private bumpChange(): void {
    this.stmt("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_id'").run();
  }

  /** The embedder the stored vectors come from, if any. */
  get embedder(): { id: string; dimension: number } | null {
    const id = this.getMeta('embedder_id');
    const dim = this.getMeta('embedder_dim');
    return id && dim ? { id, dimension: Number(dim) } : null;
  }

  /**
   * Throws EMBEDDER_MISMATCH when vectors in this store come from another
   * embedder: vectors of different embedders must never be mixed.
   */
  assertEmbedder(id: string, dimension: number): void {
    const stored = this.embedder;
    if (stored) mismatchCheck(stored, id, dimension);
  }

  // ---------------------------------------------------------------- records

  /**
   * Validates every input, then writes all of them in one transaction
   * (nothing is written if any input is invalid).
   */
  add(inputs: NewRecordInput[], options: AddOptions): MemoryRecord[] {
    const trigger = TriggerSchema.parse(options.trigger);
    const parsed: NewRecord[] = parseNewRecords(inputs);
    // Secrets never reach disk: every text field is redacted before the write (counts go to the audit entry).
    const redacted = redactNewRecords(parsed, options.redactions);
    const embeddings = options.embeddings;
    if (embeddings && embeddings.length !== parsed.length) {
      throw new AgentMemoryError('INVALID_INPUT', `Got ${embeddings.length} embeddings for ${parsed.length} records.`);
    }
    if (embeddings && embeddings.length > 0) {
      if (!options.embedderId) throw new AgentMemoryError('INVALID_INPUT', 'embedderId is required with embeddings.');
      const dim = embeddings[0].length;
      if (embeddings.some((v) => v.length !== dim)) throw new AgentMemoryError('INVALID_INPUT', 'All embeddings must have the same dimension.');
    }
    const now = new Date().toISOString();
    const insert = this.stmt(INSERT_RECORD_SQL);
    const audit = this.stmt(INSERT_AUDIT_SQL);
    const operation: AuditOperation = trigger === 'import' ? 'import' : 'add';
    // A reason is the user's words (a CLI --reason, an import's): redacted like every stored text.
    const reason = redactText(options.reason ?? '');
    const evidence = options.evidence;
    const embedderId = embeddings && embeddings.length > 0 ? options.embedderId! : null;
    const ids: string[] = new Array<string>(parsed.length);
    const write = this.db.transaction(() => {
      if (embedderId !== null) {
        // Checked again under the write lock: another process may have re-embedded meanwhile.
        const dim = embeddings![0].length;
        const stored = this.embedder;
        if (stored) mismatchCheck(stored, embedderId, dim);
        else {
          this.setMeta('embedder_id', embedderId);
          this.setMeta('embedder_dim', String(dim));
        }
        this.vectors.ensure(dim);
      }
      for (let i = 0; i < parsed.length; i++) {
        const rec = parsed[i];
        const x = rec.execution;
        const id = rec.id ?? randomUUID();
        const vector = embeddings?.[i];
        let rid: number;
        try {
          // Positional parameters, in INSERT_RECORD_SQL's column order (binding by name costs more).
          rid = Number(
            insert.run(
              id,
              rec.question,
              x.code,
              x.language,
              JSON.stringify(x.answer ?? null),
              x.outcome,
              x.outputExcerpt,
              JSON.stringify(x.demonstrationIds),
              x.inputSimilarity,
              x.outputSimilarity,
              rec.status,
              rec.provenance,
              rec.createdTask,
              rec.createdAt ?? now,
              now,
              vector ? vectorToBlob(vector) : null,
              vector ? embedderId : null,
              vector ? vector.length : null,
              JSON.stringify(rec.metadata),
            ).lastInsertRowid,
          );
        } catch (error) {
          if (String(error).includes('UNIQUE')) {
            throw new AgentMemoryError('INVALID_INPUT', `Record ${i + 1}: a record with id '${id}' already exists. Nothing was written.`, { id });
          }
          throw error;
        }
        if (rec.status === 'active') {
          if (vector) this.vectors.upsert(rid, vector);
        }
        const extra = { ...evidence?.[id], ...(redacted[i].count > 0 ? { redacted: redacted[i].byKind } : {}) };
        audit.run(now, operation, id, trigger, reason, JSON.stringify(redactJson({ status: rec.status, provenance: rec.provenance, ...extra, ...(this.channel ? { channel: this.channel } : {}) }).value));
        ids[i] = id;
      }
      this.bumpChange();
    });
    this.guard(() => write.immediate());
    const secrets = redacted.reduce((n, t) => n + t.count, 0);
    if (secrets > 0) this.logger.warn(`[store] redacted ${secrets} secret(s) from ${redacted.filter((t) => t.count > 0).length} record(s) before storing them (see their audit entries)`);
    this.afterCommit(() => this.changes.fire({ kind: 'added', ids }));
    return options.returnRecords === false ? [] : this.getMany(ids);
  }

  get(id: string): MemoryRecord | undefined {
    const row = this.stmt(`SELECT ${RECORD_COLUMNS} FROM records WHERE id = ?`).get(id) as RecordRow | undefined;
    return row ? rowToRecord(row) : undefined;
  }

  require(id: string): MemoryRecord {
    const rec = this.get(id);
    if (!rec) throw new AgentMemoryError('NOT_FOUND', `No memory record with id '${id}'. It may have been purged; refresh the explorer.`, { id });
    return rec;
  }

  /** Records by id, in the order given (missing ones skipped); one query for the batch. */
  getMany(ids: string[]): MemoryRecord[] {
    if (ids.length === 0) return [];
    const rows = this.stmt(`SELECT ${RECORD_COLUMNS} FROM records WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as RecordRow[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => (byId.has(id) ? [rowToRecord(byId.get(id)!)] : []));
  }

  /** Records by internal row id, in the order given (missing ones skipped). */
  getByRids(rids: number[]): MemoryRecord[] {
    if (rids.length === 0) return [];
    const rows = this.stmt(`SELECT ${RECORD_COLUMNS} FROM records WHERE rid IN (SELECT value FROM json_each(?))`).all(JSON.stringify(rids)) as RecordRow[];
    const byRid = new Map(rows.map((r) => [r.rid, r]));
    return rids.flatMap((rid) => (byRid.has(rid) ? [rowToRecord(byRid.get(rid)!)] : []));
  }

  ridOf(id: string): number | undefined {
    return (this.stmt('SELECT rid FROM records WHERE id = ?').get(id) as { rid: number } | undefined)?.rid;
  }

  idOf(rid: number): string | undefined {
    return (this.stmt('SELECT id FROM records WHERE rid = ?').get(rid) as { id: string } | undefined)?.id;
  }

  getEmbedding(id: string): Float32Array | null {
    const row = this.stmt('SELECT embedding FROM records WHERE id = ?').get(id) as { embedding: Buffer | null } | undefined;
    return row?.embedding ? blobToVector(row.embedding) : null;
  }

  /** Paged, sorted, filtered listing (see ListQuery). */
  list(query: ListQuery = {}): ListResult {
    return listRecords(this.db, query);
  }

  counts(): Record<RecordStatus, number> {
    const rows = this.stmt('SELECT status, COUNT(*) AS n FROM records GROUP BY status').all() as { status: RecordStatus; n: number }[];
    const out: Record<RecordStatus, number> = { pending: 0, active: 0, deleted: 0 };
    for (const r of rows) out[r.status] = r.n;
    return out;
  }

  /** Texts of all active records, for (re)building derived indexes. */
  activeTexts(): IndexedText[] {
    return this.stmt("SELECT rid, id, question, code FROM records WHERE status = 'active'").all() as IndexedText[];
  }

  /**
   * Applies a status change to many records in one transaction.
   * approve: pending→active; reject: pending→deleted; delete: pending|active→deleted;
   * restore: deleted→its previous status; purge: removes deleted records for good
   * (the audit trail keeps their entries). Invalid states fail the whole batch.
   */
  transition(ids: string[], operation: keyof typeof TransitionRules, context: TransitionContext): MemoryRecord[] {
    const trigger = TriggerSchema.parse(context.trigger);
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    // The vector is read only where a record may become active again (approve, restore).
    const embedding = operation === 'approve' || operation === 'restore' ? 'embedding' : 'NULL AS embedding';
    const rows = this.stmt(`SELECT rid, id, question, code, status, status_before_delete, ${embedding} FROM records WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(unique)) as (IndexedText & { status: RecordStatus; status_before_delete: RecordStatus | null; embedding: Buffer | null })[];
    const found = new Map(rows.map((r) => [r.id, r]));
    for (const id of unique) {
      const row = found.get(id);
      if (!row) throw new AgentMemoryError('NOT_FOUND', `Cannot ${operation} '${id}': no such record. Nothing was changed.`, { id });
      if (!TransitionRules[operation].includes(row.status)) {
        throw new AgentMemoryError('INVALID_STATE', `Cannot ${operation} '${id}': it is ${row.status} (${operation} applies to ${TransitionRules[operation].join(' or ')} records). Nothing was changed.`, { id, status: row.status });
      }
    }
    const now = new Date().toISOString();
    const setStatus = this.stmt('UPDATE records SET status = ?, status_before_delete = ?, updated_at = ? WHERE rid = ?');
    const apply = this.db.transaction(() => {
      for (const id of unique) {
        const row = found.get(id)!;
        const evidence = { from: row.status, ...(context.evidence?.[id] ?? {}) };
        if (operation === 'purge') {
          this.stmt('DELETE FROM records WHERE rid = ?').run(row.rid);
          this.writeAudit('purge', id, trigger, context.reason ?? '', evidence);
          continue;
        }
        const next: RecordStatus = operation === 'approve' ? 'active' : operation === 'unapprove' ? 'pending' : operation === 'restore' ? (row.status_before_delete ?? 'active') : 'deleted';
        setStatus.run(next, next === 'deleted' ? row.status : null, now, row.rid);
        if (row.status === 'active' && next !== 'active') {
          this.vectors.remove(row.rid);
        }
        if (next === 'active' && row.status !== 'active') {
          if (row.embedding) this.vectors.upsert(row.rid, blobToVector(row.embedding));
        }
        this.writeAudit(operation, id, trigger, context.reason ?? '', { ...evidence, to: next });
      }
      this.bumpChange();
    });
    this.guard(() => apply.immediate());
    this.afterCommit(() => this.changes.fire({ kind: operation === 'purge' ? 'purged' : 'status', ids: unique }));
    return operation === 'purge' || context.returnRecords === false ? [] : this.getMany(unique);
  }

  /** Replaces the vectors of all records (re-embed), in one transaction. */
  replaceEmbeddings(vectors: Map<string, Float32Array>, embedderId: string, context: OperationContext): void {
    const trigger = TriggerSchema.parse(context.trigger);
    const dims = new Set([...vectors.values()].map((v) => v.length));
    if (dims.size > 1) throw new AgentMemoryError('INVALID_INPUT', 'All re-embedded vectors must have the same dimension.');
    const total = (this.stmt('SELECT COUNT(*) AS n FROM records').get() as { n: number }).n;
    if (vectors.size !== total) throw new AgentMemoryError('INVALID_INPUT', `Re-embedding must cover every record (${vectors.size} of ${total} given); nothing was changed.`);
    const dim = [...dims][0];
    const update = this.stmt('UPDATE records SET embedding = ?, embedder_id = ?, embedding_dim = ? WHERE id = ?');
    const apply = this.db.transaction(() => {
      this.vectors.reset();
      if (dim !== undefined) this.vectors.ensure(dim);
      for (const [id, v] of vectors) update.run(vectorToBlob(v), embedderId, v.length, id);
      const active = this.stmt("SELECT rid, embedding FROM records WHERE status = 'active' AND embedding IS NOT NULL").all() as { rid: number; embedding: Buffer }[];
      for (const r of active) this.vectors.upsert(r.rid, blobToVector(r.embedding));
      this.setMeta('embedder_id', embedderId);
      if (dim !== undefined) this.setMeta('embedder_dim', String(dim));
      this.writeAudit('re-embed', null, trigger, context.reason ?? '', { embedderId, dimension: dim ?? null, records: vectors.size });
      this.bumpChange();
    });
    this.guard(() => apply.immediate());
    this.afterCommit(() => this.changes.fire({ kind: 'reembedded', ids: [...vectors.keys()] }));
  }

  // ---------------------------------------------------------------- audit

  /** Appends an audit entry; the store's channel (editor, cli, mcp), when it has one, is added to the evidence. */
  writeAudit(operation: AuditOperation, recordId: string | null, trigger: Trigger, reason: string, evidence: Record<string, unknown> = {}): void {
    const withChannel = this.channel ? { ...evidence, channel: this.channel } : evidence;
    this.stmt(INSERT_AUDIT_SQL).run(new Date().toISOString(), operation, recordId, trigger, redactText(reason), JSON.stringify(redactJson(withChannel).value));
  }

  /** Audit entries, newest first; optionally for one record. */
  audit(options: { recordId?: string; limit?: number } = {}): AuditEntry[] {
    const limit = z.number().int().positive().max(100_000).parse(options.limit ?? 1000);
    const rows = (options.recordId
      ? this.stmt('SELECT * FROM audit WHERE record_id = ? ORDER BY id DESC LIMIT ?').all(options.recordId, limit)
      : this.stmt('SELECT * FROM audit ORDER BY id DESC LIMIT ?').all(limit)) as { id: number; at: string; operation: AuditOperation; record_id: string | null; trigger: Trigger; reason: string; evidence: string }[];
    return rows.map((r) => ({ id: r.id, at: r.at, operation: r.operation, recordId: r.record_id, trigger: r.trigger, reason: r.reason, evidence: JSON.parse(r.evidence) as Record<string, unknown> }));
  }

  // ---------------------------------------------------------------- internals

  /** Fires a change event (used by the task log, which lives in its own module). */
  fireChange(event: MemoryChangeEvent): void {
    // Inside atomically(): one id-less 'task' event stands for all of them.
    if (event.kind === 'task' && event.ids.length === 0) this.commits.afterCommitOnce(() => this.changes.fire(event));
    else this.commits.afterCommit(() => this.changes.fire(event));
  }

  private afterCommit(action: () => void): void {
    this.commits.afterCommit(action);
  }

  /**
   * Runs `fn` as one IMMEDIATE transaction (one commit for many store and task-log
   * calls). Change events of the changes made
   * inside fire once it has committed, in order (consecutive task events as one);
   * they are dropped if it rolls back. Nested calls join the outer transaction.
   *
   * @example
   * store.atomically(() => { tasks.setUtility(t, 1); store.add([rec], { trigger: 'agent' }); });
   */
  atomically<T>(fn: () => T): T {
    return this.guard(() => this.commits.atomically(fn));
  }

  /** Runs a write, turning raw SQLite errors (locked, disk full, read-only, damaged) into typed ones naming the file; once committed, the WAL is checkpointed when idle. */
  guard<T>(write: () => T): T {
    try {
      const result = write();
      if (!this.db.inTransaction) this.checkpoints.committed();
      return result;
    } catch (error) {
      throw databaseError(error, this.db.name, 'write to', this.db.open ? (this.db.pragma('busy_timeout', { simple: true }) as number) : undefined);
    }
  }

  get log(): Logger {
    return this.logger;
  }
}
