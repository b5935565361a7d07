/**
 * The team memory: records on a PostgreSQL server shared by a team's editors, CLIs and
 * MCP servers, scoped by `space` (docs/team-memory.md). Every method is one round trip or
 * one transaction; a method resolves only after PostgreSQL committed (acknowledged) and
 * rejects with a typed error when it did not (never reported as done).
 *
 * @example
 * const team = await TeamMemoryStore.connect({ url: 'postgres://app@db/mem?sslmode=verify-full', space: 'my-repo', user: 'alice', client: 'cli' });
 * const [rec] = await team.add([input], { trigger: 'agent' }); // pending under strict addition
 * await team.transition([rec.id], 'approve', { trigger: 'user' });
 */
import { randomUUID } from 'node:crypto';
import { Pool, PoolClient, types as pgTypes } from 'pg';
import { AgentMemoryError } from '../../errors';
import { Logger, nullLogger } from '../../logger';
import { redactNewRecords } from '../../security/record-redaction';
import { redactText } from '../../security/redact';
import { dedupKey } from '../dedup';
import { rowToRecord, RecordRow } from '../sqlite/record-row';
import type { TransitionRules } from '../sqlite/store';
import { AddOptions, mismatchCheck, OperationContext, parseNewRecords } from '../sqlite/store-types';
import { AuditEntry, AuditOperation, MemoryRecord, NewRecord, NewRecordInput, RecordStatus, Trigger, TriggerSchema } from '../types';
import { describeConnection, isPasswordProblem, PASSWORD_ENV, poolConfig, TeamConnection, TeamConnectionInput } from './connection';
import { SET_PASSWORD_COMMAND_TITLE } from '../../team/team-config';
import { forbiddenAdvice } from '../../team/team-level';
import { assertSchemaCurrent } from './migrations';
import { EMBEDDER_DIM_META, EMBEDDER_ID_META, readSharedEmbedder } from './team-embedder';
import type { HashingEmbedder } from '../../similarity/hashing-embedder';
import { vectorLiteral } from './vector-text';
import { type AuditRow, insertAudit, insertRecords, type InsertRow, lockSpaceAudit } from './team-batch-writes';
import { transitionTeamRecords } from './team-transitions';

/** A status change TransitionRules allows (approve, reject, restore, delete, unapprove, purge). */
export type TransitionOperation = keyof typeof TransitionRules;

/** A role's level in a space (space_members; 'owner': the schema owner). */
export type SpaceLevel = 'agent' | 'reviewer' | 'owner';

/** Addition policies the server enforces for a space (the names of core/policy/addition). */
export type TeamAdditionPolicy = 'fixed' | 'all' | 'coarse' | 'strict';

export const TEAM_RECORD_COLUMNS = `rid, id, question, code, language, answer, outcome, output_excerpt, demonstration_ids,
  input_similarity, output_similarity, status, provenance, created_task, created_at, updated_at,
  embedder_id, embedding_dim, metadata, retrieval_count, utility_sum, utility_count, last_retrieved_task,
  in_sim_sum, in_sim_count, out_sim_sum, out_sim_count, merged_count`;

/** int8 as a JS number (counts and task indexes stay far below 2^53). */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? (v: string) => Number(v) : pgTypes.getTypeParser(oid, format)) as typeof pgTypes.getTypeParser,
};

const noop = (): void => undefined;

/** deadlock_detected, serialization_failure: the server rolled the whole transaction back, so running it again is safe. */
const ROLLED_BACK_CODES = ['40P01', '40001'];

/** Error codes of a lost or refused connection (server restart, network, shutdown). */
function isConnectionError(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  if (typeof e?.code === 'string' && (/^(08|57P0)/.test(e.code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(e.code))) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e?.message ?? '');
}

export interface TeamAddOptions extends AddOptions {
  /** Merge an identical (normalised question + code) active or pending record instead of adding a twin (default: for trigger 'agent'). */
  merge?: boolean;
  /** Embeds each record's question after redaction (the team's shared embedder; instead of `embeddings`). */
  embedder?: { readonly id: string; readonly dimension: number; embedSync(text: string): Float32Array };
  /** Write inside the caller's transaction on this client (committed by the caller); returns [] (read the records after the commit). */
  client?: PoolClient;
}

export class TeamMemoryStore {
  private closed = false;

  private constructor(
    readonly pool: Pool,
    readonly connection: TeamConnection,
    /** The URL without its password, for messages. */
    readonly where: string,
    readonly log: Logger,
  ) {}

  get space(): string {
    return this.connection.space;
  }

  /** Connects (with backoff while the server is starting) and checks the schema version. */
  static async connect(input: TeamConnectionInput, options: { logger?: Logger; env?: NodeJS.ProcessEnv } = {}): Promise<TeamMemoryStore> {
    const { config, connection } = poolConfig(input, options.env);
    const logger = options.logger ?? nullLogger;
    const pool = new Pool({ ...config, types: TYPES });
    const where = describeConnection(connection.url);
    // An idle client losing its connection (server restart) must not crash the process.
    pool.on('error', (error) => logger.warn(`[team] idle connection to ${where} lost: ${redactText(error.message)}`));
    const store = new TeamMemoryStore(pool, connection, where, logger);
    try {
      await store.withClient((c) => assertSchemaCurrent(c), 'open', { retryBroken: true });
    } catch (error) {
      // A login refused mid-handshake leaves its socket to the server's authentication_timeout (60 s): not waited for.
      const ending = pool.end().catch(() => undefined);
      if (!isPasswordProblem(error)) await ending;
      throw error;
    }
    return store;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** A typed error for `error` (connection lost → UNREACHABLE), with the password never in the message. */
  failure(error: unknown, what: string): AgentMemoryError {
    if (error instanceof AgentMemoryError) return error;
    const message = redactText((error as Error)?.message ?? String(error));
    if (isPasswordProblem(error)) {
      return new AgentMemoryError('CONFIG', `The team memory at ${this.where} refused the login (${message}: no password was given, or a wrong one): set ${PASSWORD_ENV} for the CLI and the MCP server, or run '${SET_PASSWORD_COMMAND_TITLE}' in the editor. Nothing was done (${what}).`, { where: this.where, passwordProblem: true, pgCode: (error as { code?: string }).code });
    }
    if ((error as { code?: string }).code === '42501') {
      return new AgentMemoryError('FORBIDDEN', `The team memory at ${this.where} refused to ${what}: ${message}. ${forbiddenAdvice(message, this.space)} Nothing was changed.`, { where: this.where, pgCode: '42501' });
    }
    if (isConnectionError(error)) {
      return new AgentMemoryError('UNREACHABLE', `The team memory at ${this.where} is unreachable (${message}); ${what} was not done (after retrying for up to ${Math.round(this.connection.retryMs / 1000)} s). Check the server and the network.`, { where: this.where });
    }
    return new AgentMemoryError('DATABASE', `The team memory at ${this.where} refused to ${what}: ${message}. Nothing was changed.`, { where: this.where, pgCode: (error as { code?: string }).code });
  }

  /**
   * Runs `fn` on a pooled connection. Acquiring the connection is retried with backoff
   * (0.25 s doubling to 4 s, up to `retryMs`): nothing was sent yet, so a retry cannot
   * apply a write twice. With `retryBroken` (reads, and transactions before COMMIT is
   * sent: the server rolls those back) a connection lost during `fn` is retried too;
   * otherwise a failure after a statement was sent is reported, never retried.
   */
  async withClient<T>(fn: (client: PoolClient) => Promise<T>, what: string, options: { retryMs?: number; retryBroken?: boolean | (() => boolean) } = {}): Promise<T> {
    const deadline = Date.now() + (options.retryMs ?? this.connection.retryMs);
    let wait = 250;
    for (;;) {
      let client: PoolClient | undefined;
      let broken = false;
      try {
        client = await this.pool.connect();
        // A checked-out client whose connection dies emits 'error': handled here, reported through the query's rejection.
        client.on('error', noop);
        return await fn(client);
      } catch (error) {
        broken = isConnectionError(error);
        const retry = client === undefined || (typeof options.retryBroken === 'function' ? options.retryBroken() : options.retryBroken === true);
        if (!broken || !retry || Date.now() + wait > deadline || this.closed) throw this.failure(error, what);
        this.log.warn(`[team] connection to ${this.where} lost (${redactText((error as Error).message)}); retrying ${what} in ${wait} ms`);
      } finally {
        client?.off('error', noop);
        client?.release(broken);
      }
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 4000);
    }
  }

  /**
   * Runs `fn` in one transaction (committed before the promise resolves; rolled back on any
   * error). A connection lost before COMMIT was sent is retried from the start (the server
   * rolled the transaction back); lost during COMMIT, the outcome is unknown and reported
   * as a failure, never as done.
   */
  async transaction<T>(fn: (client: PoolClient) => Promise<T>, what: string): Promise<T> {
    // A deadlock or serialization failure (e.g. two writers locking keyword statistics rows in
    // opposite orders across statements) was rolled back by the server: run it again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactionOnce(fn, what);
      } catch (error) {
        const code = ((error as AgentMemoryError).details?.pgCode ?? '') as string;
        if (!ROLLED_BACK_CODES.includes(code) || attempt >= 5 || this.closed) throw error;
        this.log.warn(`[team] ${what}: the server rolled the transaction back (${code}); retrying (attempt ${attempt + 1})`);
        await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
      }
    }
  }

  private async transactionOnce<T>(fn: (client: PoolClient) => Promise<T>, what: string): Promise<T> {
    let committing = false;
    return this.withClient(
      async (c) => {
        committing = false;
        await c.query('BEGIN');
        try {
          const out = await fn(c);
          committing = true;
          await c.query('COMMIT');
          return out;
        } catch (error) {
          if (!committing) await c.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      },
      what,
      { retryBroken: () => !committing },
    );
  }

  // ---------------------------------------------------------------- meta

  async getMeta(key: string, client?: PoolClient): Promise<string | undefined> {
    const run = (c: PoolClient) => c.query<{ value: string }>('SELECT value FROM meta WHERE space = $1 AND key = $2', [this.space, key]);
    const r = client ? await run(client) : await this.withClient(run, 'read a setting');
    return r.rows[0]?.value;
  }

  async setMeta(key: string, value: string, client?: PoolClient): Promise<void> {
    const run = (c: PoolClient) =>
      c.query('INSERT INTO meta(space, key, value) VALUES ($1, $2, $3) ON CONFLICT (space, key) DO UPDATE SET value = EXCLUDED.value', [this.space, key, value]);
    if (client) await run(client);
    else await this.withClient(run, 'write a setting');
  }

  /**
   * The space's shared embedder (team-embedder.ts); `stored`: named in the space's meta (else the
   * default, claimed by the first record written with a vector). UNSUPPORTED when the meta names one
   * this client cannot compute.
   */
  sharedEmbedder(): Promise<{ embedder: HashingEmbedder; stored: boolean }> {
    return this.withClient((c) => readSharedEmbedder(c, this.space), 'read the shared embedder', { retryBroken: true });
  }

  /** The space's addition policy (default strict: records from agents wait for a reviewer). */
  async additionPolicy(client?: PoolClient): Promise<TeamAdditionPolicy> {
    return ((await this.getMeta('addition_policy', client)) as TeamAdditionPolicy | undefined) ?? 'strict';
  }

  /** A reviewer's (the server checks the level and the name). */
  async setAdditionPolicy(policy: TeamAdditionPolicy): Promise<void> {
    await this.withClient((c) => c.query('SELECT agent_memory_set_policy($1, $2)', [this.space, policy]), 'set the addition policy');
  }

  // ---------------------------------------------------------------- records

  /**
   * Validates and redacts every input, then writes all of them in one transaction.
   * Under the space's strict policy a record added by an agent is stored pending.
   * An id that exists fails the whole batch; identical agent additions merge into one
   * record (serialised per content by an advisory lock, so concurrent merges do not race).
   */
  async add(inputs: NewRecordInput[], options: TeamAddOptions): Promise<MemoryRecord[]> {
    const trigger = TriggerSchema.parse(options.trigger);
    const parsed: NewRecord[] = parseNewRecords(inputs);
    const redacted = redactNewRecords(parsed, options.redactions);
    // The shared embedder sees the redacted question: a vector never carries a secret the text no longer has.
    const embeddings = options.embeddings ?? (options.embedder ? parsed.map((r) => options.embedder!.embedSync(r.question)) : undefined);
    const embedderId = options.embedderId ?? options.embedder?.id;
    if (embeddings && embeddings.length !== parsed.length) throw new AgentMemoryError('INVALID_INPUT', `Got ${embeddings.length} embeddings for ${parsed.length} records.`);
    const dim = embeddings?.[0]?.length;
    if (dim !== undefined) {
      if (!embedderId) throw new AgentMemoryError('INVALID_INPUT', 'embedderId is required with embeddings.');
      if (embeddings!.some((v) => v.length !== dim)) throw new AgentMemoryError('INVALID_INPUT', 'All embeddings must have the same dimension.');
    }
    const merge = options.merge ?? trigger === 'agent';
    const now = new Date().toISOString();
    const write = async (c: PoolClient): Promise<string[]> => {
      await lockSpaceAudit(c, this.space);
      if (dim !== undefined) await this.claimEmbedder(c, embedderId!, dim);
      const strict = trigger === 'agent' && (await this.additionPolicy(c)) === 'strict';
      const statusOf = (rec: NewRecord): RecordStatus => (strict && rec.status === 'active' ? 'pending' : rec.status);
      const evidenceOf = (i: number, id: string, status: RecordStatus): Record<string, unknown> => ({
        status, provenance: parsed[i].provenance, ...(status !== parsed[i].status ? { strict: true } : {}), ...options.evidence?.[id], ...(redacted[i].count > 0 ? { redacted: redacted[i].byKind } : {}),
      });
      const rowOf = (i: number, id: string): InsertRow => {
        const rec = parsed[i];
        const x = rec.execution;
        const status = statusOf(rec);
        const vector = embeddings?.[i];
        return {
          id, question: rec.question, code: x.code, language: x.language, answer: JSON.stringify(x.answer ?? null), outcome: x.outcome, outputExcerpt: x.outputExcerpt,
          demonstrationIds: JSON.stringify(x.demonstrationIds), inputSimilarity: x.inputSimilarity ?? null, outputSimilarity: x.outputSimilarity ?? null, status,
          provenance: rec.provenance, createdTask: rec.createdTask, createdAt: rec.createdAt ?? now, embedding: vector ? vectorLiteral(vector) : null,
          embedderId: vector ? embedderId! : null, embeddingDim: vector ? vector.length : null, metadata: JSON.stringify(rec.metadata), dedupKey: dedupKey(rec.question, x.code),
          evidence: evidenceOf(i, id, status),
        };
      };
      const audit = { operation: trigger === 'import' ? 'import' : 'add', trigger, reason: options.reason ?? '', user: this.connection.user, client: this.connection.client };
      if (!merge) {
        // Every record is a new row: a few multi-row statements (team-batch-writes.ts).
        const rows = parsed.map((rec, i) => rowOf(i, rec.id ?? randomUUID()));
        await insertRecords(c, this.space, now, rows, audit);
        return rows.map((r) => r.id);
      }
      const out: string[] = [];
      for (let i = 0; i < parsed.length; i++) {
        const rec = parsed[i];
        const key = dedupKey(rec.question, rec.execution.code);
        await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${this.space}:${key}`]);
        const twin = await c.query<{ id: string; merged_count: number }>('SELECT id, merged_count FROM agent_memory_merge_twin($1, $2, $3)', [this.space, key, now]);
        if (twin.rows[0]) {
          const { id, merged_count: n } = twin.rows[0];
          await this.writeAudit(c, 'add', id, trigger, `merged an identical addition (now ×${n}): ${options.reason ?? ''}`, { merged: true, mergedCount: n });
          out.push(id);
          continue;
        }
        // A new row, one at a time: the next record's twin check must see it.
        const row = rowOf(i, rec.id ?? randomUUID());
        await insertRecords(c, this.space, now, [row], audit, i);
        out.push(row.id);
      }
      return out;
    };
    if (options.client) {
      await write(options.client);
      return [];
    }
    const ids = await this.transaction(write, 'add records');
    return options.returnRecords === false ? [] : this.getMany(ids);
  }

  /** Records the embedder on the first vector; refuses vectors of another one (under a row lock). */
  private async claimEmbedder(c: PoolClient, embedderId: string, dim: number): Promise<void> {
    await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${this.space}:embedder`]);
    const id = await this.getMeta(EMBEDDER_ID_META, c);
    const stored = await this.getMeta(EMBEDDER_DIM_META, c);
    if (id && stored) mismatchCheck({ id, dimension: Number(stored) }, embedderId, dim);
    else {
      await this.setMeta(EMBEDDER_ID_META, embedderId, c);
      await this.setMeta(EMBEDDER_DIM_META, String(dim), c);
    }
  }

  async get(id: string): Promise<MemoryRecord | undefined> {
    return (await this.getMany([id]))[0];
  }

  /** Records by id, in the order given (missing ones skipped). */
  async getMany(ids: string[]): Promise<MemoryRecord[]> {
    if (ids.length === 0) return [];
    const r = await this.withClient((c) => c.query<RecordRow>(`SELECT ${TEAM_RECORD_COLUMNS} FROM records WHERE space = $1 AND id = ANY($2::text[])`, [this.space, ids]), 'read records', { retryBroken: true });
    const byId = new Map(r.rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => (byId.has(id) ? [rowToRecord(byId.get(id)!)] : []));
  }

  /** Records with `status`, newest first (a reviewer's queue). */
  async listByStatus(status: RecordStatus, limit = 50): Promise<MemoryRecord[]> {
    const r = await this.withClient(
      (c) => c.query<RecordRow>(`SELECT ${TEAM_RECORD_COLUMNS} FROM records WHERE space = $1 AND status = $2 ORDER BY rid DESC LIMIT $3`, [this.space, status, Math.min(Math.max(1, limit), 10_000)]),
      'list records',
      { retryBroken: true },
    );
    return r.rows.map(rowToRecord);
  }

  async counts(): Promise<Record<RecordStatus, number>> {
    const r = await this.withClient((c) => c.query<{ status: RecordStatus; n: number }>('SELECT status, count(*)::int AS n FROM records WHERE space = $1 GROUP BY status', [this.space]), 'count records', { retryBroken: true });
    const out: Record<RecordStatus, number> = { pending: 0, active: 0, deleted: 0 };
    for (const row of r.rows) out[row.status] = row.n;
    return out;
  }

  /** Applies a status change to many records in one transaction (a reviewer's: team-transitions.ts). */
  async transition(ids: string[], operation: TransitionOperation, context: OperationContext): Promise<MemoryRecord[]> {
    return (await transitionTeamRecords(this, [{ ids, operation }], context))[0];
  }

  /** Several transitions in ONE transaction, in order: all of them or none (team-transitions.ts). */
  transitionSteps(steps: readonly { ids: string[]; operation: TransitionOperation; reason?: string }[], context: OperationContext): Promise<MemoryRecord[][]> {
    return transitionTeamRecords(this, steps, context);
  }

  /** The caller's level in this space as the server sees it (null: none). */
  async level(): Promise<SpaceLevel | null> {
    const r = await this.withClient((c) => c.query<{ l: SpaceLevel | null }>('SELECT agent_memory_level($1) AS l', [this.space]), 'read the role\'s level', { retryBroken: true });
    return r.rows[0].l;
  }

  /** Refuses (FORBIDDEN, from the server) a caller below `level` in this space. */
  async requireLevel(level: 'agent' | 'reviewer', what: string, client?: PoolClient): Promise<void> {
    const run = (c: PoolClient) => c.query('SELECT agent_memory_require($1, $2)', [this.space, level]);
    if (client) await run(client);
    else await this.withClient(run, what, { retryBroken: true });
  }

  // ---------------------------------------------------------------- audit

  /** Appends audit rows naming the acting user and client, in few statements (inside the caller's transaction). */
  async writeAuditRows(c: PoolClient, rows: readonly AuditRow[]): Promise<void> {
    await insertAudit(c, this.space, this.connection, rows);
  }

  /** Appends an audit row naming the acting user and client (inside the caller's transaction). */
  async writeAudit(c: PoolClient, operation: AuditOperation, recordId: string | null, trigger: Trigger, reason: string, evidence: Record<string, unknown> = {}): Promise<void> {
    await this.writeAuditRows(c, [{ operation, recordId, trigger, reason, evidence }]);
  }

  /** Audit entries, newest first, with who did them. */
  async audit(options: { recordId?: string; limit?: number } = {}): Promise<(AuditEntry & { user: string; client: string })[]> {
    const limit = Math.min(Math.max(1, options.limit ?? 1000), 100_000);
    const r = await this.withClient(
      (c) =>
        c.query<{ id: number; at: string; operation: AuditOperation; record_id: string | null; trigger: Trigger; reason: string; evidence: string; actor_user: string; actor_client: string }>(
          `SELECT id, at, operation, record_id, trigger, reason, evidence, actor_user, actor_client FROM audit WHERE space = $1 ${options.recordId ? 'AND record_id = $3' : ''} ORDER BY id DESC LIMIT $2`,
          options.recordId ? [this.space, limit, options.recordId] : [this.space, limit],
        ),
      'read the audit log',
      { retryBroken: true },
    );
    return r.rows.map((row) => ({
      id: row.id, at: row.at, operation: row.operation, recordId: row.record_id, trigger: row.trigger, reason: row.reason,
      evidence: JSON.parse(row.evidence) as Record<string, unknown>, user: row.actor_user, client: row.actor_client,
    }));
  }
}
