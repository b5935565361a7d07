/**
 * One term's results read straight from MiniSearch's postings, with the same
 * float operations as its `search(term)`, for the keyword scorer.
 *
 * MiniSearch's public `search` builds a result object (score, matched terms,
 * fields) per posting, merges them in a Map and sorts them: ~1 µs per posting.
 * After each change of the index the scorer must search its terms again (every
 * score depends on the document count and average field lengths), so in a
 * memory that changes at every task that cost dominated keyword retrieval.
 * This reader walks the term's postings in MiniSearch 7.1's index
 * (`_index`, `_fieldIds`, `_fieldLength`, `_avgFieldLength`, `_documentIds`:
 * internal fields, pinned by the exact version in package.json and checked
 * here at run time) and computes each score as MiniSearch's `termResults` and
 * `calcBM25Score` do, operation for operation, so the results are bit for bit
 * those of `search(term, { tokenize: single })` (unit tests compare both).
 * Where the internals are not as expected it is not used (`null`), and where
 * a posting belongs to a discarded document it gives up (`null`) so the caller
 * asks MiniSearch's public search instead.
 */
import type { TermResults } from './keyword-select';

/** The internal fields of MiniSearch 7.1 this reader reads. */
interface MiniSearchInternals {
  _index: { get(term: string): Map<number, Map<number, number>> | undefined };
  _fieldIds: Record<string, number>;
  _fieldLength: Map<number, number[]>;
  _avgFieldLength: number[];
  _documentIds: Map<number, unknown>;
  documentCount: number;
}

/** What a score is computed from: the queried fields in order, their boosts and BM25's parameters (as given to MiniSearch). */
export interface PostingsScoring {
  fields: readonly string[];
  boost: Readonly<Record<string, number>>;
  bm25: { k: number; b: number; d: number };
}

/**
 * Reads one term's results: all documents, or those `only` accepts (MiniSearch
 * with `boostDocument` 1 for them and 0 for the rest gives them the same
 * scores). `ordinalOf` maps a document id (the record rowid) to the scorer's
 * ordinal; documents without one are left out. Null: a discarded document's
 * posting was met, ask MiniSearch.
 */
export type PostingsReader = (term: string, ordinalOf: ReadonlyMap<number, number>, only?: (rid: number) => boolean) => TermResults | null;

function hasInternals(ms: unknown, fields: readonly string[]): ms is MiniSearchInternals {
  const m = ms as Partial<Record<keyof MiniSearchInternals, unknown>> | null;
  if (!m || typeof m !== 'object') return false;
  const index = m._index as { get?: unknown } | undefined;
  const fieldIds = m._fieldIds as Record<string, unknown> | undefined;
  return (
    typeof index?.get === 'function' &&
    m._fieldLength instanceof Map &&
    Array.isArray(m._avgFieldLength) &&
    m._documentIds instanceof Map &&
    typeof m.documentCount === 'number' &&
    typeof fieldIds === 'object' &&
    fields.every((f) => typeof fieldIds[f] === 'number')
  );
}

/** MiniSearch 7.1's calcBM25Score idf, for a term in `matching` of `total` documents. */
export function inverseDocumentFrequency(total: number, matching: number): number {
  return Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
}

/** MiniSearch 7.1's calcBM25Score (BM25+), its idf given: the same expression, operation for operation. */
export function bm25Score(invDocFreq: number, termFreq: number, fieldLength: number, avgFieldLength: number, bm25: { k: number; b: number; d: number }): number {
  const { k, b, d } = bm25;
  return invDocFreq * (d + (termFreq * (k + 1)) / (termFreq + k * (1 - b + (b * fieldLength) / avgFieldLength)));
}

/** The boost of each field, in order: as MiniSearch's executeQuerySpec, a field without a boost (or boost 0) weighs 1. */
export function fieldBoosts(scoring: Pick<PostingsScoring, 'fields' | 'boost'>): number[] {
  return scoring.fields.map((f) => (Object.prototype.hasOwnProperty.call(scoring.boost, f) ? scoring.boost[f] : undefined) || 1);
}

const EMPTY: TermResults = { ords: new Int32Array(0), scores: new Float64Array(0), field: new Uint8Array(0) };

/**
 * A reader over `ms`, or null when `ms` does not hold MiniSearch 7.1's
 * internals. The index's terms must be the query terms as given (its
 * `processTerm` the identity at search time), as the keyword index's are.
 *
 * @example
 * const read = postingsReader(ms, SCORER_OPTIONS);
 * read?.('aspirin', ordinalOf); // { ords, scores, field }, as ms.search('aspirin', { tokenize: single })
 */
export function postingsReader(ms: unknown, scoring: PostingsScoring): PostingsReader | null {
  if (!hasInternals(ms, scoring.fields)) return null;
  const boosts = fieldBoosts(scoring);
  return (term, ordinalOf, only) => {
    const data = ms._index.get(term);
    if (!data) return EMPTY;
    let capacity = 0;
    let fieldsWithTerm = 0;
    for (const f of scoring.fields) {
      const size = data.get(ms._fieldIds[f])?.size ?? 0;
      capacity += size;
      if (size > 0) fieldsWithTerm++;
    }
    const ords = new Int32Array(capacity);
    const scores = new Float64Array(capacity);
    const field = new Uint8Array(capacity);
    // A document matched in several fields sums its fields' scores in field order, as MiniSearch's result map does.
    const slotOf = fieldsWithTerm > 1 ? new Map<number, number>() : null;
    const totalCount = ms.documentCount;
    let n = 0;
    for (let f = 0; f < scoring.fields.length; f++) {
      const fieldId = ms._fieldIds[scoring.fields[f]];
      const fieldTermFreqs = data.get(fieldId);
      if (!fieldTermFreqs) continue;
      const fieldBoost = boosts[f];
      const matchingCount = fieldTermFreqs.size;
      const avgFieldLength = ms._avgFieldLength[fieldId];
      // calcBM25Score's idf: the same expression, once per field instead of once per posting.
      const invDocFreq = inverseDocumentFrequency(totalCount, matchingCount);
      for (const [docId, termFreq] of fieldTermFreqs) {
        const rid = ms._documentIds.get(docId);
        if (rid === undefined) return null;
        if (only && !only(rid as number)) continue;
        const ordinal = ordinalOf.get(rid as number);
        if (ordinal === undefined) continue;
        const fieldLength = (ms._fieldLength.get(docId) as number[])[fieldId];
        const rawScore = bm25Score(invDocFreq, termFreq, fieldLength, avgFieldLength, scoring.bm25);
        // MiniSearch: termWeight (1) × termBoost (1) × fieldBoost × docBoost (1) × rawScore; the products by 1 are exact.
        const weightedScore = fieldBoost * rawScore;
        const slot = slotOf?.get(docId);
        if (slot !== undefined) {
          scores[slot] += weightedScore;
          continue;
        }
        slotOf?.set(docId, n);
        ords[n] = ordinal;
        scores[n] = weightedScore;
        field[n] = f;
        n++;
      }
    }
    return n === capacity ? { ords, scores, field } : { ords: ords.slice(0, n), scores: scores.slice(0, n), field: field.slice(0, n) };
  };
}
