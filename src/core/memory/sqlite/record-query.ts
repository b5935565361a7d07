import { z } from 'zod';
import type { Database } from './database';
import { RECORD_COLUMNS, RecordRow, rowToRecord } from './record-row';
import { DEFAULT_MISALIGNED, MISALIGNED_CONDITION, misalignedParams } from '../misaligned';
import { LanguageSchema, MemoryRecord, StatusSchema } from '../types';

export { DEFAULT_MISALIGNED };

export const DEFAULT_PAGE_SIZE = 200;

export const ListQuerySchema = z.object({
  status: StatusSchema.optional(),
  /** Case-insensitive substring over question and code. */
  text: z.string().max(500).optional(),
  language: LanguageSchema.optional(),
  /** Only records flagged as misaligned experience replay (see policy/metrics). */
  misalignedOnly: z.boolean().optional(),
  /** Thresholds for the misaligned flag when `misalignedOnly` is set. */
  misaligned: z.object({ minInputSimilarity: z.number(), maxOutputSimilarity: z.number() }).optional(),
  sort: z.enum(['utility', 'retrievals', 'recency']).default('recency'),
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(100_000).default(DEFAULT_PAGE_SIZE),
});
export type ListQuery = z.input<typeof ListQuerySchema>;

export interface ListResult {
  items: MemoryRecord[];
  /** Number of records matching the filter (all pages). */
  total: number;
}


const ORDER = {
  // Never-evaluated records sort after evaluated ones.
  utility: 'CASE WHEN utility_count = 0 THEN 1 ELSE 0 END, utility_sum / MAX(utility_count, 1) DESC, rid DESC',
  retrievals: 'retrieval_count DESC, rid DESC',
  recency: 'rid DESC',
} as const;

/** Runs a paged listing with all filters in SQL (a 100k memory pages in milliseconds). */
export function listRecords(db: Database, input: ListQuery): ListResult {
  const q = ListQuerySchema.parse(input);
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (q.status) {
    where.push('status = @status');
    params.status = q.status;
  }
  if (q.language) {
    where.push('language = @language');
    params.language = q.language;
  }
  if (q.text) {
    where.push("(question LIKE @text ESCAPE '\\' OR code LIKE @text ESCAPE '\\')");
    params.text = `%${q.text.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
  }
  if (q.misalignedOnly) {
    where.push(MISALIGNED_CONDITION);
    Object.assign(params, misalignedParams(q.misaligned ?? DEFAULT_MISALIGNED));
  }
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const total = (db.prepare(`SELECT COUNT(*) AS n FROM records ${clause}`).get(params) as { n: number }).n;
  const rows = db.prepare(`SELECT ${RECORD_COLUMNS} FROM records ${clause} ORDER BY ${ORDER[q.sort]} LIMIT @limit OFFSET @offset`).all({ ...params, limit: q.limit, offset: q.offset }) as RecordRow[];
  return { items: rows.map(rowToRecord), total };
}
