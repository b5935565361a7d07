/**
 * Retrieval-quality evaluation (issue 2 item 7): load a memory file as active
 * records, retrieve for every query, and score whether the retrieved records
 * share the query's template.
 *
 * - hit@1: the top-1 record has the query's template;
 * - precision@k: mean fraction of the k retrieved records with the query's template.
 *
 * The search backend is a parameter ({@link RetrievalBackend}). The default,
 * {@link StoreBackend}, measures the product: the memory goes as active records
 * into a temporary SQLite store (sqlite-vec + MiniSearch) and is searched with
 * {@link HybridSearch}. {@link InProcessBackend} is a brute-force cosine over the
 * same fitted embedder + MiniSearch + {@link fuseRankings}, for comparison.
 * Both fit the hashing embedder on the memory records only (question + code, the
 * code being a line's `code` or its `gold_sql` as the toolbox program that a
 * record stores, see {@link goldProgram}).
 *
 * @example
 * ```ts
 * const memory = loadEvalFile('M.jsonl'), queries = loadEvalFile('Q.jsonl');
 * const result = await evaluateRetrieval({ memory, queries, k: 4, mode: 'hybrid' }); // real store
 * // { n: 1198, k: 4, mode: 'hybrid', hit_at_1: 0.6…, precision_at_k: 0.5… }
 * ```
 */
import * as fs from 'node:fs';
import MiniSearch from 'minisearch';
import { z } from 'zod';
import { AgentMemoryError } from '../errors';
import { fuseRankings } from '../memory/search/fusion';
import { HybridSearch } from '../memory/search/hybrid-search';
import { MemoryStore } from '../memory/sqlite/store';
import { tokenizeForKeywords } from '../memory/text-processing';
import { HashingEmbedder } from '../similarity/hashing-embedder';
import { fitTextStatistics } from '../similarity/text/text-statistics';
import { goldProgram } from '../data/gold-program';
import { TfidfBaselineIndex } from './tfidf-baseline';
import { programKey } from '../memory/search/program-collapse';
import { indexableMaskedText, ValueVocabulary } from '../memory/search/value-masking';
import type { RerankParts } from '../memory/search/rerank';
import type { DomainValues } from '../memory/search/domain-values';
import { hasContentWords, recordTerms, relevanceScorer, type ValueTerms } from '../memory/search/relevance';

export const RETRIEVAL_MODES = ['hybrid', 'vector', 'keyword', 'tfidf-baseline'] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];
/** Default number of records retrieved per query. */
export const DEFAULT_EVAL_K = 4;
/** Each side of a hybrid search contributes this many candidates per requested hit (at least {@link MIN_FUSION_CANDIDATES}). */
export const FUSION_OVERFETCH = 10;
export const MIN_FUSION_CANDIDATES = 50;

/** One line of a memory or query file; extra fields are ignored. */
export const EvalLineSchema = z
  .object({
    question: z.string().trim().min(1, 'question must be a non-empty string'),
    template: z.string().min(1, 'template must be a non-empty string'),
    code: z.string().optional(),
    gold_sql: z.string().optional(),
    /** CoNaLa's query files: false when no memory line has the query's template (scored apart, see EvalResult). */
    answerable: z.boolean().optional(),
  })
  .refine((line) => line.code !== undefined || line.gold_sql !== undefined, { message: 'each line needs `code` or `gold_sql`', path: ['code'] });

export interface EvalItem {
  key: string;
  question: string;
  template: string;
  code: string;
  /** As the line says (absent: answerable). */
  answerable?: boolean;
}

/** Parses JSONL text; throws INVALID_INPUT naming the line number and field of the first bad line. */
export function parseEvalJsonl(text: string, source = 'input'): EvalItem[] {
  const items: EvalItem[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const lineNo = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new AgentMemoryError('INVALID_INPUT', `${source}:${lineNo}: not valid JSON (${(error as Error).message}); each line must be one JSON object.`);
    }
    const parsed = EvalLineSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? issue.path.join('.') : '(line)';
      throw new AgentMemoryError('INVALID_INPUT', `${source}:${lineNo}: field '${field}': ${issue?.message ?? 'invalid'}; fix or remove that line.`);
    }
    const line = parsed.data;
    items.push({ key: String(items.length), question: line.question, template: line.template, code: line.code ?? programOf(line.gold_sql), ...(line.answerable === undefined ? {} : { answerable: line.answerable }) });
  });
  return items;
}

/** A gold SQL as the product stores it: the toolbox program `answer = sql("…")`. */
function programOf(sql: string | undefined): string {
  return sql !== undefined && sql.trim() !== '' ? goldProgram(sql, 'python') : '';
}

/** Reads and validates a JSONL evaluation file. */
export function loadEvalFile(file: string): EvalItem[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new AgentMemoryError('NOT_FOUND', `Cannot read '${file}' (${(error as Error).message}); pass an existing JSONL file.`);
  }
  return parseEvalJsonl(text, file);
}

/** A searchable memory for the evaluation; the real store plugs in here. */
export interface RetrievalBackend {
  /** Adds records as active; `key` is the id search results must return. */
  add(records: readonly { key: string; question: string; code: string }[]): Promise<void>;
  /** Best-first keys of at most `k` records. */
  search(query: string, k: number, mode: RetrievalMode): Promise<{ key: string; score: number }[]>;
  close?(): Promise<void>;
}

/**
 * Brute-force in-process backend: fits the hashing embedder on the added
 * records (memory side only), exact cosine scan, MiniSearch BM25, RRF fusion.
 * All records must be added in one `add` call before searching.
 */
export class InProcessBackend implements RetrievalBackend {
  private keys: string[] = [];
  private vectors: Float32Array[] = [];
  private embedder = new HashingEmbedder();
  private readonly keyword = new MiniSearch<{ id: string; question: string }>({
    fields: ['question'],
    tokenize: tokenizeForKeywords,
    processTerm: (term) => term,
  });
  private readonly baseline = new TfidfBaselineIndex();

  async add(records: readonly { key: string; question: string; code: string }[]): Promise<void> {
    if (this.keys.length > 0) throw new AgentMemoryError('INVALID_STATE', 'InProcessBackend.add() fits on the whole memory: call it once.');
    this.embedder = new HashingEmbedder({ statistics: fitTextStatistics(records) });
    this.keys = records.map((r) => r.key);
    this.vectors = await this.embedder.embed(records.map((r) => r.question));
    this.keyword.addAll(records.map((r) => ({ id: r.key, question: r.question })));
    this.baseline.add(records.map((r) => ({ key: r.key, text: r.question })));
  }

  get embedderId(): string {
    return this.embedder.id;
  }

  async search(query: string, k: number, mode: RetrievalMode): Promise<{ key: string; score: number }[]> {
    if (mode === 'tfidf-baseline') return this.baseline.search(query, k);
    const n = Math.max(k * FUSION_OVERFETCH, MIN_FUSION_CANDIDATES);
    if (mode === 'vector') return this.dense(query, k);
    if (mode === 'keyword') return this.bm25(query, k);
    return fuseRankings(this.dense(query, n), this.bm25(query, n), { limit: k });
  }

  private dense(query: string, k: number): { key: string; score: number }[] {
    const q = this.embedder.embedSync(query);
    const scored = this.vectors.map((v, i) => {
      let dot = 0;
      for (let d = 0; d < v.length; d++) dot += v[d] * q[d];
      return { key: this.keys[i], score: dot, i };
    });
    scored.sort((a, b) => b.score - a.score || a.i - b.i);
    return scored.slice(0, k).map(({ key, score }) => ({ key, score }));
  }

  private bm25(query: string, k: number): { key: string; score: number }[] {
    return this.keyword
      .search(query, { combineWith: 'OR' })
      .slice(0, k)
      .map((r) => ({ key: String(r.id), score: r.score }));
  }
}

/** Which backend `agent-memory eval-retrieval` uses (`store` by default; `team`: a team memory space, team-retrieval-backend.ts). */
export const RETRIEVAL_BACKENDS = ['store', 'in-process', 'team'] as const;
export type RetrievalBackendName = (typeof RETRIEVAL_BACKENDS)[number];

export interface StoreBackendOptions {
  /** Database file (default ':memory:'). */
  file?: string;
  /** Index and query the value-masked views of the questions (ablation; default off). */
  mask?: boolean;
  /** Fit the hashing embedder on the memory (default true; false: the unfitted embedder, as the bench stream uses). */
  fit?: boolean;
  /** Collapse identical programs (default: the search's own default, on in hybrid mode). */
  collapse?: boolean;
  /** Re-rank the collapsed top by question shape and program links (rerank.ts): all parts, none, or these (default: the search's own, DEFAULT_RERANK). */
  rerank?: boolean | RerankParts;
  /** The values of the database the questions are about, by column (the re-ranking's value columns). */
  domainValues?: DomainValues;
  /** Hybrid mode's agreement of programs (call-agreement.ts; default: the search's own, on); false ablates it. */
  callAgreement?: boolean;
}

/**
 * The real store as the evaluation backend: records are written with
 * `MemoryStore.add` (active, provenance `import`, python programs) into a
 * temporary database (`':memory:'` by default, or `file`), with vectors from
 * the hashing embedder fitted on those records, and searched through
 * {@link HybridSearch} (sqlite-vec bit codes + exact rescoring, MiniSearch BM25,
 * RRF) in mode hybrid, vector or keyword. `tfidf-baseline` uses the baseline index.
 * All records must be added in one `add` call before searching.
 *
 * @example
 * ```ts
 * const backend = new StoreBackend();
 * const result = await evaluateRetrieval({ memory, queries, mode: 'hybrid', backend });
 * ```
 */
export class StoreBackend implements RetrievalBackend {
  private store: MemoryStore | null = null;
  private index: HybridSearch | null = null;
  private embedder = new HashingEmbedder();
  private readonly baseline = new TfidfBaselineIndex();

  /** The value vocabulary of the memory's programs (for `explain` and the `mask` ablation). */
  readonly vocabulary = new ValueVocabulary();

  constructor(private readonly options: StoreBackendOptions = {}) {}

  async add(input: readonly { key: string; question: string; code: string }[]): Promise<void> {
    if (this.store) throw new AgentMemoryError('INVALID_STATE', 'StoreBackend.add() fits on the whole memory: call it once.');
    for (const r of input) this.vocabulary.add(r.code);
    // The mask ablation indexes each question's masked view (its own program's values masked too).
    const records = this.options.mask ? input.map((r) => ({ ...r, question: indexableMaskedText(this.vocabulary.mask(r.question, r.code)) })) : input;
    this.embedder = new HashingEmbedder(this.options.fit === false ? {} : { statistics: fitTextStatistics(records) });
    const vectors = await this.embedder.embed(records.map((r) => r.question));
    const store = MemoryStore.open(this.options.file ?? ':memory:');
    try {
      store.add(
        records.map((r) => ({ id: r.key, question: r.question, execution: { code: r.code, language: 'python' as const, outcome: 'success' as const }, provenance: 'import' as const })),
        { trigger: 'import', reason: 'eval-retrieval memory', embeddings: vectors, embedderId: this.embedder.id, returnRecords: false },
      );
      this.index = HybridSearch.open(store, { file: null, domainValues: this.options.domainValues });
    } catch (error) {
      store.close();
      throw error;
    }
    this.store = store;
    this.baseline.add(records.map((r) => ({ key: r.key, text: r.question })));
  }

  get embedderId(): string {
    return this.embedder.id;
  }

  async search(query: string, k: number, mode: RetrievalMode): Promise<{ key: string; score: number }[]> {
    if (mode === 'tfidf-baseline') return this.baseline.search(query, k);
    if (!this.index) throw new AgentMemoryError('INVALID_STATE', 'StoreBackend.search() before add(): load the memory first.');
    const text = this.options.mask ? indexableMaskedText(this.vocabulary.mask(query)) : query;
    const vector = mode === 'keyword' ? undefined : this.embedder.embedSync(text);
    return this.index.search({ text, vector }, k, { mode, collapse: this.options.collapse, rerank: this.options.rerank, callAgreement: this.options.callAgreement }).map((h) => ({ key: h.recordId, score: h.score }));
  }

  async close(): Promise<void> {
    this.index?.close();
    this.store?.close();
    this.index = null;
    this.store = null;
  }
}

/** A fresh backend by name. */
export function createRetrievalBackend(name: Exclude<RetrievalBackendName, 'team'>, options: Omit<StoreBackendOptions, 'file'> = {}): StoreBackend | InProcessBackend {
  return name === 'in-process' ? new InProcessBackend() : new StoreBackend(options);
}

export interface EvalResult {
  n: number;
  k: number;
  mode: RetrievalMode;
  hit_at_1: number;
  precision_at_k: number;
  /** Share of queries with a record of their template anywhere in the top k (the bench stream's same_template_at_4 on a fixed memory). */
  hit_at_k: number;
  /** Mean number of distinct normalised programs among the k retrieved records. */
  distinct_at_k: number;
  /** With a floor (EvalOptions.minScore): the floor, and the share of the n queries with at least one record at or above it. */
  min_score?: number;
  answered_rate?: number;
  /**
   * Query lines marked `answerable: false` (no memory line has their template): left out of n and every
   * rate above; how many there were and, with a floor, the share of them that got a record anyway.
   */
  unanswerable_n?: number;
  unanswerable_answered_rate?: number;
}

/** What `explain` is told about each query's top hit. */
export interface ExplainedHit {
  query: string;
  /** Words of the query the value vocabulary and the literal patterns mask. */
  queryMasked: string[];
  hitKey: string;
  hitQuestion: string;
  /** Words of the hit's question masked (its own program's values included). */
  hitMasked: string[];
  sameTemplate: boolean;
}

export interface EvalOptions {
  memory: readonly EvalItem[];
  queries: readonly EvalItem[];
  k?: number;
  mode?: RetrievalMode;
  /** Defaults to a fresh {@link StoreBackend}. */
  backend?: RetrievalBackend;
  /** Called with the top hit of every query and the masked words of both (value vocabulary of the memory's programs). */
  explain?: (hit: ExplainedHit) => void;
  /**
   * Return only records whose relevance (search/relevance.ts; the memory's words known from its lines) is at
   * least this: a query may then get none (a miss). Default: no floor, every hit.
   */
  minScore?: number;
  /**
   * With a floor: the words of a query that are values of the data the questions are about (DomainValues.valueTerms,
   * `--values-from`), left out of the relevance's known share. Default: none.
   */
  valueTerms?: ValueTerms;
}

/** Loads the memory into the backend, runs every query, returns the metrics (rounded to 4 decimals). */
export async function evaluateRetrieval(options: EvalOptions): Promise<EvalResult> {
  const k = options.k ?? DEFAULT_EVAL_K;
  const mode = options.mode ?? 'hybrid';
  if (!Number.isInteger(k) || k < 1) throw new AgentMemoryError('INVALID_INPUT', `k must be a positive integer (got ${k}).`);
  if (options.memory.length === 0) throw new AgentMemoryError('INVALID_INPUT', 'The memory file has no records; pass a JSONL file with at least one line.');
  const backend: RetrievalBackend = options.backend ?? new StoreBackend();
  const templateOf = new Map(options.memory.map((m) => [m.key, m.template]));
  const itemOf = new Map(options.memory.map((m) => [m.key, m]));
  await backend.add(options.memory.map(({ key, question, code }) => ({ key, question, code })));
  let vocabulary: ValueVocabulary | null = null;
  if (options.explain) {
    vocabulary = new ValueVocabulary();
    for (const m of options.memory) vocabulary.add(m.code);
  }
  let hits = 0;
  let precision = 0;
  let anyHits = 0;
  let distinct = 0;
  let answered = 0;
  let unanswerableAnswered = 0;
  const floor = options.minScore;
  const frequencies = floor === undefined ? null : memoryFrequencies(options.memory);
  const scored = options.queries.filter((q) => q.answerable !== false);
  try {
    for (const q of options.queries) {
      let results = await backend.search(q.question, k, mode);
      if (frequencies && floor !== undefined) {
        const relevance = relevanceScorer(q.question, (terms) => terms.map((t) => frequencies.get(t) ?? 0), options.memory.length, options.valueTerms);
        results = hasContentWords(q.question) ? results.filter((r) => relevance(itemOf.get(r.key)?.question ?? '', itemOf.get(r.key)?.code ?? '') >= floor) : [];
      }
      if (q.answerable === false) {
        if (results.length > 0) unanswerableAnswered += 1;
        continue;
      }
      if (results.length > 0) answered += 1;
      if (results[0] && templateOf.get(results[0].key) === q.template) hits += 1;
      const same = results.slice(0, k).filter((r) => templateOf.get(r.key) === q.template).length;
      precision += same / k;
      if (same > 0) anyHits += 1;
      distinct += new Set(results.slice(0, k).map((r) => programKey(itemOf.get(r.key)?.code ?? '', 'python'))).size;
      const top = results[0] ? itemOf.get(results[0].key) : undefined;
      if (options.explain && vocabulary && top) {
        options.explain({
          query: q.question,
          queryMasked: vocabulary.mask(q.question).masked,
          hitKey: top.key,
          hitQuestion: top.question,
          hitMasked: vocabulary.mask(top.question, top.code).masked,
          sameTemplate: top.template === q.template,
        });
      }
    }
  } finally {
    await backend.close?.();
  }
  const n = scored.length;
  const left = options.queries.length - n;
  const round = (x: number): number => Math.round(x * 10_000) / 10_000;
  return {
    n,
    k,
    mode,
    hit_at_1: n ? round(hits / n) : 0,
    precision_at_k: n ? round(precision / n) : 0,
    hit_at_k: n ? round(anyHits / n) : 0,
    distinct_at_k: n ? round(distinct / n) : 0,
    ...(floor === undefined ? {} : { min_score: floor, answered_rate: n ? round(answered / n) : 0 }),
    ...(left === 0 ? {} : { unanswerable_n: left, ...(floor === undefined ? {} : { unanswerable_answered_rate: round(unanswerableAnswered / left) }) }),
  };
}

/** How many memory lines hold each term (question words, code identifier words), as the keyword index counts them. */
function memoryFrequencies(memory: readonly EvalItem[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const m of memory) for (const t of recordTerms(m.question, m.code)) df.set(t, (df.get(t) ?? 0) + 1);
  return df;
}
