/**
 * The re-ranking of a team search (issue 18, the personal memory's stage in ../search/rerank.ts):
 * the memory-side state the re-ranking reads (each active record's question shape, the value
 * vocabulary of the space's programs, the words its questions use, the columns its values are
 * compared with) for one space, held in the client process that searches.
 *
 * - **Read once**, in pages of {@link PAGE_ROWS} records (rid order), when `load()` is first called
 *   (or the first re-ranked search starts it). Until that read is complete a search keeps its fused
 *   order, as the personal memory's shapes do while they load; callers that can wait (a task, a
 *   test) `await load()` first.
 * - **Kept true from `change_log`**, not from a listener: before each re-ranking the changes after the
 *   last sequence number seen (utility counters left out) are read in one statement, and only their
 *   records are read again (active and not stale: kept; otherwise: dropped). So another client's new
 *   record, retirement or edit counts from the next search on, and a client that was offline catches
 *   up by the same read. A failed catch-up leaves the search in its fused order.
 * - The re-ranking key of a record is its `rid` (a server-wide bigint, exact as a JS number).
 *
 * @example
 * ```ts
 * const shapes = teamShapesFor(team, { domainValues });
 * await shapes.load();
 * const hits = await searchTeam(team, question, vector, 4, { rerank: shapes });
 * ```
 */
import { QuestionShapes, type RerankParts, ALL_RERANK_PARTS, rerankApplies } from '../search/rerank';
import type { DomainValues } from '../search/domain-values';
import { errorMessage } from '../../errors';
import { Logger, nullLogger } from '../../logger';
import { redactText } from '../../security/redact';
import type { TeamMemoryStore } from './team-store';

/** Records read per page of the first read. */
export const PAGE_ROWS = 2000;

/** What the re-ranking reads of a candidate: its record's rid (the shapes' key), text and program. */
export interface ShapedCandidate {
  rid: number;
  score: number;
  question: string;
  code: string;
}

interface ShapeRow {
  rid: string;
  question: string;
  code: string;
  language: string;
}

export interface TeamShapesOptions {
  /** The values of the data the agent works on (the re-ranking's value columns); null: the space's programs only. */
  domainValues?: DomainValues | null;
  parts?: RerankParts;
  logger?: Logger;
}

export class TeamShapes {
  private readonly shapes = new QuestionShapes();
  private readonly parts: RerankParts;
  private readonly log: Logger;
  private values: DomainValues | null;
  private lastSeq = 0;
  private loading: Promise<void> | undefined;
  private loaded = false;
  /** Catch-ups run one at a time, so an older read never lands after a newer one. */
  private sync: Promise<void> = Promise.resolve();

  constructor(private readonly team: TeamMemoryStore, options: TeamShapesOptions = {}) {
    this.parts = options.parts ?? ALL_RERANK_PARTS;
    this.log = options.logger ?? nullLogger;
    this.values = options.domainValues ?? null;
    this.shapes.setDomainValues(this.values);
  }

  /**
   * Whether the re-ranking applies (rerank.ts, rerankApplies): only with the values of the data the programs
   * query; without them a search given these shapes is the fused search and nothing is read for them.
   */
  get applies(): boolean {
    return rerankApplies(this.values);
  }

  /** Whether the first read is complete (searches re-rank from then on). */
  get ready(): boolean {
    return this.loaded;
  }

  /** Number of records held. */
  get size(): number {
    return this.shapes.size;
  }

  /** The memory-wide counts and the records held, sorted (tests compare a state kept from change_log with a fresh read). */
  snapshot(): ReturnType<QuestionShapes['snapshot']> {
    return this.shapes.snapshot();
  }

  /** The values of the data the agent works on (null: none). */
  setDomainValues(values: DomainValues | null): void {
    this.values = values;
    this.shapes.setDomainValues(values);
  }

  /** Reads the space's active records (once; a failed read is tried again by the next call). */
  load(): Promise<void> {
    this.loading ??= this.readAll().then(
      () => {
        this.loaded = true;
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  /**
   * What a re-ranked search needs before it orders (a search starts it with its own first read, so the two
   * round trips overlap): the catch-up once the space is read; before that, the first read is started. Resolves
   * true when the search can re-rank, false otherwise (logged); never rejects.
   */
  async prepare(): Promise<boolean> {
    if (!this.loaded) {
      this.load().catch((error: unknown) => this.log.warn(`[team] the re-ranking could not read space '${this.team.space}' (${redactText(errorMessage(error))}); searches keep the fused order.`));
      return false;
    }
    try {
      await this.catchUp();
      return true;
    } catch (error) {
      this.log.warn(`[team] the re-ranking could not read the space's changes (${redactText(errorMessage(error))}); this search keeps the fused order.`);
      return false;
    }
  }

  /**
   * `hits` (best first) with the best RERANK_DEPTH (rerank.ts) re-ordered by the question's shape, links and
   * value columns, from the state held (after {@link prepare} resolved true).
   */
  order<C extends ShapedCandidate>(query: string, hits: readonly C[]): C[] {
    // A candidate whose record is not held (changed after the catch-up) is shaped from its own text.
    return this.shapes.rerank(query, hits.map((h) => ({ h, key: h.rid, score: h.score, question: h.question, code: h.code })), this.parts).map((c) => c.h);
  }

  /** Brings the shapes up to the changes committed so far (see the file comment); before the first read: that read. */
  catchUp(): Promise<void> {
    if (!this.loaded) return this.load();
    const next = this.sync.then(() => this.readChanges());
    this.sync = next.catch(() => undefined);
    return next;
  }

  private async readAll(): Promise<void> {
    const started = Date.now();
    await this.team.withClient(
      async (c) => {
        // A read that failed part-way (here, or retried on a broken connection) starts over: a record it held may have left since.
        this.shapes.clear();
        // The sequence first: a change committed during the read is read again by the next catch-up (reads are idempotent).
        const seq = await c.query<{ s: string }>('SELECT coalesce(max(seq), 0)::text AS s FROM change_log WHERE space = $1', [this.team.space]);
        this.lastSeq = Number(seq.rows[0].s);
        for (let after = '0'; ; ) {
          const page = await c.query<ShapeRow>(
            `SELECT rid::text, question, code, language FROM records
              WHERE space = $1 AND status = 'active' AND NOT stale AND rid > $2 ORDER BY rid LIMIT ${PAGE_ROWS}`,
            [this.team.space, after],
          );
          for (const r of page.rows) this.hold(r);
          if (page.rows.length < PAGE_ROWS) break;
          after = page.rows[page.rows.length - 1].rid;
        }
      },
      're-rank the team memory',
      { retryBroken: true },
    );
    this.log.info(`[team] re-ranking: ${this.shapes.size} records of space '${this.team.space}' read in ${Date.now() - started} ms`);
  }

  private async readChanges(): Promise<void> {
    await this.team.withClient(
      async (c) => {
        const r = await c.query<{ last: string | null; rids: string[] }>(
          `SELECT (SELECT max(seq) FROM change_log WHERE space = $1 AND seq > $2)::text AS last,
                  coalesce((SELECT array_agg(DISTINCT rid)::text[] FROM change_log WHERE space = $1 AND seq > $2 AND kind <> 'utility'), '{}') AS rids`,
          [this.team.space, String(this.lastSeq)],
        );
        const { last, rids } = r.rows[0];
        if (last === null) return;
        if (rids.length > 0) {
          const kept = await c.query<ShapeRow>(
            `SELECT rid::text, question, code, language FROM records
              WHERE space = $1 AND rid = ANY($2::bigint[]) AND status = 'active' AND NOT stale`,
            [this.team.space, rids],
          );
          const held = new Set(kept.rows.map((row) => row.rid));
          for (const rid of rids) if (!held.has(rid)) this.shapes.delete(Number(rid));
          for (const row of kept.rows) this.hold(row);
        }
        this.lastSeq = Number(last);
      },
      're-rank the team memory',
      { retryBroken: true },
    );
  }

  private hold(row: ShapeRow): void {
    this.shapes.set(Number(row.rid), row.question, row.code, row.language);
  }
}

/** One TeamShapes per store (per space connection), so tasks and tool calls of one process share the read. */
const perStore = new WeakMap<TeamMemoryStore, TeamShapes>();

/** The store's TeamShapes (created on first use; `options` apply then, except domainValues, set every call it is given). */
export function teamShapesFor(team: TeamMemoryStore, options: TeamShapesOptions = {}): TeamShapes {
  let shapes = perStore.get(team);
  if (!shapes) {
    shapes = new TeamShapes(team, options);
    perStore.set(team, shapes);
  } else if (options.domainValues !== undefined) {
    shapes.setDomainValues(options.domainValues);
  }
  return shapes;
}
