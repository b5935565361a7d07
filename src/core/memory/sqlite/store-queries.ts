import type { Statement } from 'better-sqlite3';
import type { Database } from './database';
import { MISALIGNED_CONDITION, misalignedParams, type MisalignedThresholds } from '../misaligned';

/** A record the misaligned-replay view lists (mean similarities over its retrievals). */
export interface MisalignedRow {
  recordId: string;
  question: string;
  meanInputSimilarity: number;
  meanOutputSimilarity: number;
  retrievals: number;
}

const SQL = {
  seedSourceIds: "SELECT json_extract(metadata, '$.sourceId') AS s FROM records WHERE provenance = 'seed'",
  embeddingSources: 'SELECT id, question, code FROM records',
  activeWithTemplate: "SELECT count(*) AS n FROM records WHERE status = 'active' AND json_extract(metadata, '$.template') = ?",
  activeMeanUtilities: "SELECT utility_sum / utility_count AS u FROM records WHERE status = 'active' AND utility_count > 0",
  misaligned: `SELECT id, question, in_sim_sum / in_sim_count AS mi, out_sim_sum / out_sim_count AS mo, retrieval_count AS n FROM records
    WHERE status = 'active' AND ${MISALIGNED_CONDITION}
    ORDER BY (in_sim_sum / in_sim_count) - (out_sim_sum / out_sim_count) DESC LIMIT @limit`,
} as const;

/**
 * Named read queries of the memory database for the services above the store
 * (seeding, re-embedding, dashboard). Reached as `store.queries`; nothing outside
 * src/core/memory writes SQL.
 *
 * @example
 * store.queries.activeMeanUtilities(); // [0.5, 1, …]
 */
export class StoreQueries {
  private readonly statements = new Map<keyof typeof SQL, Statement>();

  constructor(private readonly db: Database) {}

  private stmt(name: keyof typeof SQL): Statement {
    let s = this.statements.get(name);
    if (!s) this.statements.set(name, (s = this.db.prepare(SQL[name])));
    return s;
  }

  /** `metadata.sourceId` of every seed record (any status), e.g. the EHR task ids the demo memory was drawn from. */
  seedSourceIds(): Set<string> {
    return new Set((this.stmt('seedSourceIds').all() as { s: unknown }[]).filter((r) => r.s !== null && r.s !== undefined).map((r) => String(r.s)));
  }

  /** Question and code of every record (any status): what a re-embed fits and embeds. */
  embeddingSources(): { id: string; question: string; code: string }[] {
    return this.stmt('embeddingSources').all() as { id: string; question: string; code: string }[];
  }

  /** How many active records carry `metadata.template` = `template` (the bench's EHRSQL templates). */
  activeWithTemplate(template: string): number {
    return (this.stmt('activeWithTemplate').get(template) as { n: number }).n;
  }

  /** Mean Φ of every active record evaluated at least once. */
  activeMeanUtilities(): number[] {
    return (this.stmt('activeMeanUtilities').all() as { u: number }[]).map((r) => r.u);
  }

  /** Active records replayed with high input and low output similarity, most misaligned first. */
  misaligned(thresholds: MisalignedThresholds, limit = 50): MisalignedRow[] {
    const rows = this.stmt('misaligned').all({ ...misalignedParams(thresholds), limit }) as { id: string; question: string; mi: number; mo: number; n: number }[];
    return rows.map((r) => ({ recordId: r.id, question: r.question, meanInputSimilarity: r.mi, meanOutputSimilarity: r.mo, retrievals: r.n }));
  }
}
