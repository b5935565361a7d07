/**
 * Statistics the hashing embedder can fit on a memory (questions + their
 * code): document frequencies (IDF), how often each word is a value (it
 * appears in a string literal of the record's code), and a learned
 * projection from question features to the code's structure.
 *
 * The projection is what lets paraphrases meet: every feature f gets the
 * (centred, shrunk) mean of the hashed code-structure vectors of the records
 * whose question contains f, so "how should X be taken" and "what is the
 * intake method of X" both point towards `prescriptions.route`. A question's
 * projection is the IDF-weighted sum over its features.
 *
 * Fit only on the memory side (stored records), never on queries being evaluated.
 * The fingerprint identifies the fitted state; embedder ids include it, so
 * vectors from different fits are never mixed.
 *
 * @example
 * ```ts
 * const stats = fitTextStatistics(records.map((r) => ({ question: r.question, code: r.execution.code })));
 * const embedder = new HashingEmbedder({ statistics: stats });
 * ```
 */
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { FUNCTION_WORDS, lexTokens } from '../../memory/text-processing';
import { CALL_TOKEN_PREFIX, codeCallTokens, codeLiteralWords, codeStructureTokens } from './code-tokens';
import { hash32, hashFeature, normalizeInPlace } from './feature-hash';
import { questionFeatures } from './question-features';

/** Buckets of the code-structure space the projection maps into. */
export const DEFAULT_PROJECTION_DIMENSION = 128;
/** P(value) of a word never seen in the memory (unseen words are mostly values). */
export const UNSEEN_WORD_VALUE_PRIOR = 0.9;
/** Pseudo-count of that prior (Beta smoothing of the value ratio). */
export const VALUE_PRIOR_STRENGTH = 1;
/** Pseudo-count shrinking projections of rare features towards zero. */
export const PROJECTION_SMOOTHING = 1;
/** Features seen in fewer records get no projection (bounds memory use). */
export const MIN_PROJECTION_DF = 1;
/**
 * Weight of a call token (`call:groupby`, see codeCallTokens) against the other code-structure tokens in the
 * code vectors the projection learns: what a task's code calls is what general-code retrieval must find
 * (CoNaLa's relevance is "calls the same functions"); variable names are noise there. Chosen on a 5-fold
 * split of the CoNaLa memory only (scripts/conala-dev-folds.ts; hit@1 0.374 at no call tokens, 0.383 at
 * weight 1, 0.389 at 2, 0.399 at 4, 0.400 at 8, 0.399 at 16). EHRSQL is unchanged: its programs' one call,
 * `sql(…)`, is in every record, so its IDF weight is 0.
 */
export const CALL_WEIGHT = 4;
/** At most this many features (most frequent first) keep a projection. */
export const MAX_PROJECTED_FEATURES = 60_000;

export interface TextRecord {
  question: string;
  /** Code of the record; without it the record only feeds the IDF. */
  code?: string | null;
}

export interface FitOptions {
  projectionDimension?: number;
}

const SerializedSchema = z.object({
  format: z.literal('agent-memory.text-statistics/1'),
  fingerprint: z.string(),
  docCount: z.number().int().min(0),
  projectionDimension: z.number().int().min(1),
  featureDf: z.array(z.tuple([z.string(), z.number().int().min(1)])),
  words: z.array(z.tuple([z.string(), z.number().int().min(0), z.number().int().min(1)])),
  projection: z.array(z.tuple([z.string(), z.string()])),
});
export type SerializedTextStatistics = z.infer<typeof SerializedSchema>;

export class TextStatistics {
  private constructor(
    readonly fingerprint: string,
    readonly docCount: number,
    readonly projectionDimension: number,
    private readonly featureDf: Map<string, number>,
    /** word → [records where it is a value, records containing it] */
    private readonly words: Map<string, [number, number]>,
    private readonly projection: Map<string, Float32Array>,
  ) {}

  /** @internal used by {@link fitTextStatistics} and {@link TextStatistics.fromJSON}. */
  static create(
    fingerprint: string,
    docCount: number,
    projectionDimension: number,
    featureDf: Map<string, number>,
    words: Map<string, [number, number]>,
    projection: Map<string, Float32Array>,
  ): TextStatistics {
    return new TextStatistics(fingerprint, docCount, projectionDimension, featureDf, words, projection);
  }

  /** Smoothed inverse document frequency, ln((N + 1) / (df + 1)) + 1. */
  idf(feature: string): number {
    return Math.log((this.docCount + 1) / ((this.featureDf.get(feature) ?? 0) + 1)) + 1;
  }

  /** Probability that `word` is a value; 0 for function words. */
  readonly valueProbability = (word: string): number => {
    if (FUNCTION_WORDS.has(word)) return 0;
    const [value, total] = this.words.get(word) ?? [0, 0];
    return (value + VALUE_PRIOR_STRENGTH * UNSEEN_WORD_VALUE_PRIOR) / (total + VALUE_PRIOR_STRENGTH);
  };

  projectionOf(feature: string): Float32Array | undefined {
    return this.projection.get(feature);
  }

  /** JSON-safe form (projections as base64 float32). */
  toJSON(): SerializedTextStatistics {
    return {
      format: 'agent-memory.text-statistics/1',
      fingerprint: this.fingerprint,
      docCount: this.docCount,
      projectionDimension: this.projectionDimension,
      featureDf: [...this.featureDf],
      words: [...this.words].map(([w, [v, t]]) => [w, v, t]),
      projection: [...this.projection].map(([f, a]) => [f, Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64')]),
    };
  }

  static fromJSON(value: unknown): TextStatistics {
    const parsed = SerializedSchema.safeParse(value);
    if (!parsed.success) {
      throw new AgentMemoryError('INVALID_INPUT', `Text statistics are not valid (${parsed.error.issues[0]?.message}); re-fit them from the memory with fitTextStatistics().`);
    }
    const s = parsed.data;
    const projection = new Map<string, Float32Array>();
    for (const [f, b64] of s.projection) {
      const bytes = Buffer.from(b64, 'base64');
      if (bytes.byteLength !== s.projectionDimension * 4) throw new AgentMemoryError('INVALID_INPUT', `Projection of '${f}' has the wrong size; re-fit the text statistics.`);
      projection.set(f, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
    }
    const words = new Map<string, [number, number]>(s.words.map(([w, v, t]) => [w, [v, t]]));
    return new TextStatistics(s.fingerprint, s.docCount, s.projectionDimension, new Map(s.featureDf), words, projection);
  }
}

/**
 * Fits {@link TextStatistics} on the memory's records (never on evaluation queries).
 * Identical records (same question and code) count once: copies of a record do not
 * change what is learned, so a memory ranks the same with or without them.
 */
export function fitTextStatistics(input: readonly TextRecord[], options: FitOptions = {}): TextStatistics {
  const seenRecords = new Set<string>();
  const records = input.filter((r) => {
    const key = `${r.question}\u0000${r.code ?? ''}`;
    if (seenRecords.has(key)) return false;
    seenRecords.add(key);
    return true;
  });
  const dim = options.projectionDimension ?? DEFAULT_PROJECTION_DIMENSION;
  // v2: call tokens in the code vectors (a fit of v1 never gets the same fingerprint, so its vectors are re-embedded).
  let fp = hash32(`v2|${dim}|${records.length}`);
  // Pass 1: value ratios (from code literals) and fingerprint.
  const words = new Map<string, [number, number]>();
  for (const r of records) {
    fp = hash32(`${r.question}\u0000${r.code ?? ''}`, fp);
    if (!r.code) continue;
    const literals = codeLiteralWords(r.code);
    const seen = new Set<string>();
    for (const t of lexTokens(r.question)) {
      if (t.kind !== 'word' || seen.has(t.text)) continue;
      seen.add(t.text);
      const entry = words.get(t.text) ?? [0, 0];
      if (literals.has(t.text)) entry[0] += 1;
      entry[1] += 1;
      words.set(t.text, entry);
    }
  }
  const partial = TextStatistics.create('', records.length, dim, new Map(), words, new Map());
  // Pass 2: features (with value masking from pass 1) and their document frequencies.
  const featureSets = records.map((r) => questionFeatures(r.question, partial.valueProbability));
  const featureDf = new Map<string, number>();
  for (const f of featureSets) for (const k of f.keys()) featureDf.set(k, (featureDf.get(k) ?? 0) + 1);
  // Pass 3: hashed, IDF-weighted, normalised code-structure vector per record with code.
  const coded = records.map((r, i) => ({ i, tokens: r.code ? new Set([...codeStructureTokens(r.code), ...codeCallTokens(r.code)]) : null })).filter((x) => x.tokens !== null && x.tokens.size > 0);
  const tokenDf = new Map<string, number>();
  for (const c of coded) for (const t of c.tokens!) tokenDf.set(t, (tokenDf.get(t) ?? 0) + 1);
  const codeVectors = new Map<number, Float32Array>();
  const mean = new Float32Array(dim);
  for (const c of coded) {
    const v = new Float32Array(dim);
    for (const t of c.tokens!) {
      const { index, sign } = hashFeature(t, dim, 0x5eed);
      v[index] += sign * Math.log((coded.length + 1) / (tokenDf.get(t)! + 1)) * (t.startsWith(CALL_TOKEN_PREFIX) ? CALL_WEIGHT : 1);
    }
    normalizeInPlace(v);
    codeVectors.set(c.i, v);
    for (let d = 0; d < dim; d++) mean[d] += v[d] / coded.length;
  }
  // Pass 4: projection = shrunk, centred mean code vector of the records containing the feature.
  const kept = [...featureDf].filter(([, df]) => df >= MIN_PROJECTION_DF).sort((a, b) => b[1] - a[1]).slice(0, MAX_PROJECTED_FEATURES);
  const keep = new Set(kept.map(([k]) => k));
  const sums = new Map<string, { sum: Float32Array; n: number }>();
  featureSets.forEach((features, i) => {
    const v = codeVectors.get(i);
    if (!v) return;
    for (const k of features.keys()) {
      if (!keep.has(k)) continue;
      let s = sums.get(k);
      if (!s) sums.set(k, (s = { sum: new Float32Array(dim), n: 0 }));
      s.n += 1;
      for (let d = 0; d < dim; d++) s.sum[d] += v[d];
    }
  });
  const projection = new Map<string, Float32Array>();
  for (const [k, { sum, n }] of sums) {
    const denom = n + PROJECTION_SMOOTHING;
    for (let d = 0; d < dim; d++) sum[d] = (sum[d] - mean[d] * n) / denom;
    projection.set(k, sum);
  }
  return TextStatistics.create((fp >>> 0).toString(16).padStart(8, '0'), records.length, dim, featureDf, words, projection);
}
