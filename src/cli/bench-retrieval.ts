/**
 * Retrieval benchmark: `npm run bench:retrieval [-- --json] [-- --sizes 1000,10000,100000] [-- --keywords inline|worker]`.
 *
 * `--keywords worker` answers the keyword side from the worker thread (as the extension does for a
 * file-backed memory: it searches while this thread does the dense side); default inline.
 *
 * One file-backed store (WAL) grows through the sizes; at each size it measures
 * - insert_per_s: `store.add` of 1000-record batches with 384-d HashingEmbedder vectors
 *   (durable commit incl. the vec0 bit codes; the keyword index catches up lazily
 *   before the next query, reported separately as keyword_catchup_ms),
 * - hybrid_p50/p95_ms and vector_p50_ms: HybridSearch top-4 once its warm caches are full
 *   (Hamming scan over the cached sqlite-vec bit codes, rescoring from the vector copies (int8 by default) with the
 *   exact vectors read where the copies leave the order undecided, MiniSearch BM25, RRF,
 *   collapse: the CLI's default), and hybrid_rerank_p50/p95_ms the same search with the
 *   re-ranking of the collapsed top (the editor's default) (`rerank: true`), the two alternating per query (which
 *   goes first alternates too); shapes_load_ms: the re-ranking's state read from scratch at that
 *   size (ShapeIndex.open, synchronous); hybrid_agreement_p50_ms / hybrid_no_agreement_p50_ms: the fused search
 *   again on the same queries with and without the agreement of programs (`callAgreement: false`), alternating per
 *   query (which goes first alternates; the stage's call-set cache emptied before),
 * - float_scan_p50_ms: plain sqlite-vec brute force over a vec0 `float[384]` table
 *   holding the same vectors, top-4 (kept in a second database file beside the store,
 *   same pragmas: written in the same transaction scheme, its pages would otherwise be
 *   checkpointed by the store's next timed commit and charged to insert_per_s),
 * - recall_at_4: dense top-4 (vector mode) against an exact float64 scan, tie-aware
 *   (a returned record counts when its exact cosine reaches the 4th best, within 1e-6),
 * - the dense stage side by side: the 128 nearest binary codes by sqlite-vec's own `bit[dim]`
 *   KNN on `vec_bits` (bit_knn_p50_ms) against the WASM Hamming kernel over the same codes
 *   (hamming_p50_ms), and how often both return the same candidate set (candidate_overlap),
 * - the keyword stage side by side: KeywordIndex.search top-32 (MiniSearch's per-term results
 *   combined, keyword32_p50_ms) against one MiniSearch `search` of the whole query
 *   (keyword32_direct_p50_ms, the 0.2.0 path), alternating per query in this process, and on how
 *   many queries both return the same top-32 (records, scores and order: keyword32_identical),
 * - first_open_ms: the store and a new HybridSearch opened on the memory just measured, until an
 *   answer fuses both sides (the search the next size uses), and the dense side alone
 *   (bench-retrieval-dense.ts: its open, the inverted file's candidates against a full scan).
 *
 * `--dir DIR` builds the memory in DIR and keeps it; a later run with the same DIR reuses the records
 * already there (a million is built once). `--dense-only` times the dense side alone (no keyword index,
 * no question shapes: the hybrid fields are null).
 */
import { DEFAULT_MEMORY_BUDGET_MB, DEFAULT_VECTOR_COPY_FORM, memoryBudget, VectorCopyFormSchema } from '../core/memory/memory-budget';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { SyntheticRecords } from '../core/bench/synthetic-records';
import { HybridSearch } from '../core/memory/search/hybrid-search';
import { readDomainValues } from '../core/data/domain-values-reader';
import { DEMO_DATABASE_FILE } from '../core/data/ehr-tasks';
import { RERANK_NEEDS_VALUES } from '../core/memory/search/rerank';
import { DenseIndex } from '../core/memory/dense/dense-index';
import { DENSE_OVERFETCH_LARGE, DENSE_OVERFETCH_SMALL, LARGE_MEMORY } from '../core/memory/search/search-contract';
import { InlineKeywords } from '../core/memory/keyword/keyword-service';
import { ShapeIndex } from '../core/memory/search/shape-index';
import { openDatabase } from '../core/memory/sqlite/database';
import { MemoryStore } from '../core/memory/sqlite/store';
import { vectorToBlob } from '../core/memory/dense/vector-index';
import { ExactFloat, measureDense, DenseFigures, percentile, round, timeMs } from './bench-retrieval-dense';
import { HashingEmbedder } from '../core/similarity/hashing-embedder';
import { runMain } from './run-main';
import { HELP_SHOWN, parseBenchArgs } from './args';

/** The float-scan baseline's SQLite page cache (KiB): a bulk reader on its own connection (a memory's connections take theirs from the memory budget). */
const FLOAT_SCAN_CACHE_SIZE_KIB = 65_536;

const USAGE = `Usage: npm run bench:retrieval -- [--json] [--sizes 1000,10000,100000] [--queries 200] [--tasks FILE] [--keywords inline|worker] [--dir DIR] [--dense-only] [--memory-budget-mb N] [--vector-copies auto|int8|float16]

Grows one file-backed memory through --sizes records and measures at each size: insert rate,
hybrid / vector / keyword search latency, recall@4 against an exact scan (see the file comment).
--memory-budget-mb N: the hybrid search's cache budget (default ${DEFAULT_MEMORY_BUDGET_MB}, agentMemory.memoryBudgetMB's);
--vector-copies auto|int8|float16: the form of the dense side's vector copies (default ${DEFAULT_VECTOR_COPY_FORM}).`;

const ArgsSchema = z.object({
  json: z.boolean().default(false),
  sizes: z
    .string()
    .default('1000,10000,100000')
    .transform((s) => s.split(',').map(Number))
    .pipe(z.array(z.number().int().positive(), { message: 'a comma-separated list of positive whole numbers' }).min(1)),
  queries: z.coerce.number().int().positive().default(200),
  tasks: z.string().min(1).default(path.join(process.cwd(), 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl')),
  keywords: z.enum(['inline', 'worker']).default('inline'),
  dir: z.string().min(1).optional(),
  'dense-only': z.boolean().default(false),
  'memory-budget-mb': z.coerce.number().int().default(DEFAULT_MEMORY_BUDGET_MB),
  'vector-copies': VectorCopyFormSchema.default(DEFAULT_VECTOR_COPY_FORM),
});

export interface BenchRow extends DenseFigures {
  /** Opening the store and a new HybridSearch on it until an answer fused both sides. */
  first_open_ms: number;
  /** `--dense-only`: DenseIndex.search top-4 (the product's dense side alone, vector copies full). */
  dense_search_p50_ms?: number;
  n: number;
  dim: number;
  insert_per_s: number;
  hybrid_p50_ms: number;
  hybrid_p95_ms: number;
  /** The same hybrid search with the re-ranking stage (opt-in), alternating with the default one. */
  hybrid_rerank_p50_ms: number;
  hybrid_rerank_p95_ms: number;
  /** The fused hybrid search again on the same queries, with (the default) and without the agreement of programs (callAgreement: false), alternating. */
  hybrid_agreement_p50_ms: number;
  hybrid_no_agreement_p50_ms: number;
  /** Reading every active record's question shape from scratch (ShapeIndex.open, synchronous). */
  shapes_load_ms: number;
  /** Records whose question shape the timed search held (all of them: the timing waits for the load). */
  shapes_held: number;
  vector_p50_ms: number;
  float_scan_p50_ms: number;
  recall_at_4: number;
  keyword_catchup_ms: number;
  /** Waiting after the catch-up until the keyword term cache re-warmed and the dense vector copies are full. */
  warm_ms: number;
  rss_mb: number;
  keyword_p50_ms: number;
  bit_knn_p50_ms: number;
  hamming_p50_ms: number;
  candidate_overlap: number;
  keyword32_p50_ms: number;
  keyword32_direct_p50_ms: number;
  keyword32_identical: number;
  /** Hybrid answers (of `queries`) that fused both sides (the rest answered without the keyword side). */
  hybrid_fused: number;
  load_avg_1m: number;
  /** The budget the hybrid search ran with, the form its vector copies took (--vector-copies, resolved), and the float vectors its rescoring read from SQLite per timed search (hybrid and re-ranked). */
  memory_budget_mb?: number;
  vector_copy_form?: string;
  dense_exact_reads_per_search?: number;
}

/** Candidates the dense stage compares (the over-fetch of a top-4 query at 100k). */
const DENSE_STAGE_CANDIDATES = 128;


async function run(argv: string[]): Promise<BenchRow[]> {
  const args = parseBenchArgs(argv, { usage: USAGE, flags: ['json', 'dense-only'], valued: ['sizes', 'queries', 'tasks', 'keywords', 'dir', 'memory-budget-mb', 'vector-copies'] }, ArgsSchema);
  if (args === HELP_SHOWN) return [];
  const embedder = new HashingEmbedder();
  const dim = embedder.dimension;
  const dir = args.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-bench-'));
  fs.mkdirSync(dir, { recursive: true });
  const storeFile = path.join(dir, 'memory.sqlite');
  let store = MemoryStore.open(storeFile);
  const budget = memoryBudget(args['memory-budget-mb'], args['vector-copies']); // out of bounds: fails here, before building
  // The keyword index keeps its file beside the memory, as the product does: a reopen (first_open_ms) loads it and catches up.
  // The re-ranked searches re-rank as the editor's do, with the agent database's values (the re-ranking applies only
  // with them, rerank.ts rerankApplies): the demo database beside the task file; none there, they time the fused search.
  const valuesFile = path.join(path.dirname(args.tasks), DEMO_DATABASE_FILE);
  const domainValues = fs.existsSync(valuesFile) ? readDomainValues(valuesFile) : undefined;
  if (!domainValues) process.stderr.write(`bench-retrieval: ${valuesFile} not found: ${RERANK_NEEDS_VALUES}\n`);
  const openSearch = () => HybridSearch.open(store, { background: args.keywords === 'worker', memoryBudget: budget, domainValues });
  let search: HybridSearch | null = args['dense-only'] ? null : openSearch();
  const floatDb = openDatabase(path.join(dir, 'float-scan.sqlite'));
  floatDb.pragma(`cache_size = -${FLOAT_SCAN_CACHE_SIZE_KIB}`);
  floatDb.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS vec_float USING vec0(embedding float[${dim}] distance_metric=cosine)`);
  const insertFloat = floatDb.prepare('INSERT INTO vec_float(rowid, embedding) VALUES (?, ?)');
  const floatKnn = floatDb.prepare('SELECT rowid, distance FROM vec_float WHERE embedding MATCH ? AND k = 4');
  const gen = SyntheticRecords.fromFile(args.tasks, 7);
  const queryGen = SyntheticRecords.fromFile(args.tasks, 1234);
  const rows: BenchRow[] = [];
  let insertMs = 0;
  // A kept memory (--dir) is reused: its records count as inserted (the generator skips past them).
  let inserted = Object.values(store.counts()).reduce((a, b) => a + b, 0);
  for (let skipped = 0; skipped < inserted; skipped += 1000) gen.records(Math.min(1000, inserted - skipped));
  try {
    for (const n of [...args.sizes].sort((a, b) => a - b)) {
      insertMs = 0;
      const startCount = inserted;
      while (inserted < n) {
        const batch = gen.records(Math.min(1000, n - inserted));
        const vectors = batch.map((r) => embedder.embedSync(r.question));
        insertMs += timeMs(() => store.add(batch, { trigger: 'import', embeddings: vectors, embedderId: embedder.id, returnRecords: false }));
        const fill = floatDb.transaction(() => {
          vectors.forEach((v, i) => insertFloat.run(BigInt(store.ridOf(batch[i].id!)!), vectorToBlob(v)));
        });
        fill();
        inserted += batch.length;
      }
      const queries = Array.from({ length: args.queries }, () => queryGen.question());
      const exact = new ExactFloat(floatKnn, store);
      if (!search) {
        const qvecs = queries.map((q) => embedder.embedSync(q));
        rows.push(denseOnlyRow(n, dim, store, qvecs, exact, startCount, insertMs));
        if (!args.json) process.stdout.write(`${JSON.stringify(rows[rows.length - 1])}\n`);
        continue;
      }
      const live = search;
      const keywordsWarm = live.keywords.nextWarm();
      // The worker rebuilds its index when it starts and after a large catch-up: wait until it answers.
      if (args.keywords === 'worker') waitForKeywords(live, queries[0]);
      const qvecs = queries.map((q) => embedder.embedSync(q));
      // The catch-up query applies the whole batch: the keyword index then re-warms its term cache (after a
      // quiet second) and the dense side fills its vector copies. Timing starts once both are warm.
      const catchup = timeMs(() => live.search({ text: queries[0], vector: qvecs[0] }, 4));
      void live.shapes; // the re-ranking's state: read now (in the background with the worker), awaited with search.ready
      const warmStarted = process.hrtime.bigint();
      const keepAlive = setInterval(() => undefined, 1000);
      // The re-ranking's question shapes load across event-loop turns too (search.ready): timing starts once they are complete.
      await Promise.all([keywordsWarm, live.dense.warmed, live.ready]);
      clearInterval(keepAlive);
      if (!live.shapes.loaded) throw new Error('the question shapes are not loaded after search.ready');
      const warmMs = Number(process.hrtime.bigint() - warmStarted) / 1e6;
      const shapesHeld = live.shapes.shapes()?.size ?? 0;
      for (let i = 0; i < Math.min(20, queries.length); i++) {
        live.search({ text: queries[i], vector: qvecs[i] }, 4);
        live.search({ text: queries[i], vector: qvecs[i] }, 4, { rerank: true });
      }

      let fused = 0;
      const readsBefore = live.dense.rescoreReads;
      const hybrid: number[] = [];
      const reranked: number[] = [];
      const noAgreement: number[] = [];
      queries.forEach((q, i) => {
        const product = (): number => timeMs(() => (fused += live.answer({ text: q, vector: qvecs[i] }, 4).sides.length === 2 ? 1 : 0));
        const withRerank = (): number => timeMs(() => live.answer({ text: q, vector: qvecs[i] }, 4, { rerank: true }));
        if (i % 2 === 0) {
          hybrid.push(product());
          reranked.push(withRerank());
        } else {
          reranked.push(withRerank());
          hybrid.push(product());
        }
      });
      const exactReads = (live.dense.rescoreReads - readsBefore) / (2 * queries.length);
      const copyForm = live.dense.vectorCopies.form;
      // The agreement of programs' cost: the same queries again, with and without it alternating (which goes first
      // alternates), its call-set cache emptied first (the records it takes part with read and keyed again).
      const agreement: number[] = [];
      live.clearCallSets();
      queries.forEach((q, i) => {
        const time = (callAgreement: boolean): number => timeMs(() => live.answer({ text: q, vector: qvecs[i] }, 4, { callAgreement }));
        if (i % 2 === 0) {
          agreement.push(time(true));
          noAgreement.push(time(false));
        } else {
          noAgreement.push(time(false));
          agreement.push(time(true));
        }
      });
      agreement.sort((a, b) => a - b);
      noAgreement.sort((a, b) => a - b);
      hybrid.sort((a, b) => a - b);
      reranked.sort((a, b) => a - b);
      let shapes: ShapeIndex | null = null;
      const shapesMs = timeMs(() => (shapes = ShapeIndex.open(store)));
      (shapes as ShapeIndex | null)?.dispose();
      let recallHits = 0;
      const vectorTimes: number[] = [];
      queries.forEach((_, i) => {
        let hits: { rid: number }[] = [];
        vectorTimes.push(timeMs(() => (hits = live.search({ text: '', vector: qvecs[i] }, 4, { mode: 'vector' }))));
        recallHits += exact.hits(hits.map((h) => h.rid), qvecs[i]);
      });
      vectorTimes.sort((a, b) => a - b);
      const keywordTimes = queries.map((q) => timeMs(() => live.search({ text: q }, 4, { mode: 'keyword' }))).sort((a, b) => a - b);
      const stageQueries = qvecs.slice(0, Math.min(qvecs.length, 50));
      let sameSets = 0;
      const bitTimes: number[] = [];
      const hammingTimes: number[] = [];
      for (const v of stageQueries) {
        let viaSqlite: number[] = [];
        let viaKernel: number[] = [];
        bitTimes.push(timeMs(() => (viaSqlite = store.vectors.candidates(v, DENSE_STAGE_CANDIDATES))));
        hammingTimes.push(timeMs(() => (viaKernel = live.dense.candidates(v, DENSE_STAGE_CANDIDATES) ?? [])));
        sameSets += overlap(viaSqlite, viaKernel);
      }
      bitTimes.sort((a, b) => a - b);
      hammingTimes.sort((a, b) => a - b);
      // Queries not asked before (no cached term results from the timings above).
      const keywordStage = compareKeywordStage(live, Array.from({ length: args.queries }, () => queryGen.question()));
      const floatTimes = [...exact.times].sort((a, b) => a - b);
      const dense = measureDense(store, qvecs, exact, DENSE_STAGE_CANDIDATES);
      // First open: the store and a new search on it, until an answer fuses both sides (that search serves the next size).
      search.close();
      store.close();
      let firstOpen = 0;
      const opened = process.hrtime.bigint();
      store = MemoryStore.open(storeFile);
      search = openSearch();
      const keepOpen = setInterval(() => undefined, 1000);
      while (search.answer({ text: queries[0], vector: qvecs[0] }, 4).sides.length < 2) await new Promise<void>((resolve) => setImmediate(resolve));
      clearInterval(keepOpen);
      firstOpen = Number(process.hrtime.bigint() - opened) / 1e6;
      rows.push({
        n: inserted,
        first_open_ms: Math.round(firstOpen),
        ...dense,
        dim,
        insert_per_s: Math.round(((n - startCount) / insertMs) * 1000),
        hybrid_p50_ms: round(percentile(hybrid, 0.5)),
        hybrid_p95_ms: round(percentile(hybrid, 0.95)),
        hybrid_rerank_p50_ms: round(percentile(reranked, 0.5)),
        hybrid_agreement_p50_ms: round(percentile(agreement, 0.5)),
        hybrid_no_agreement_p50_ms: round(percentile(noAgreement, 0.5)),
        hybrid_rerank_p95_ms: round(percentile(reranked, 0.95)),
        shapes_load_ms: Math.round(shapesMs),
        shapes_held: shapesHeld,
        vector_p50_ms: round(percentile(vectorTimes, 0.5)),
        float_scan_p50_ms: round(percentile(floatTimes, 0.5)),
        recall_at_4: round(recallHits / (queries.length * 4), 4),
        keyword_catchup_ms: Math.round(catchup),
        warm_ms: Math.round(warmMs),
        rss_mb: Math.round(process.memoryUsage().rss / 1e6),
        keyword_p50_ms: round(percentile(keywordTimes, 0.5)),
        bit_knn_p50_ms: round(percentile(bitTimes, 0.5)),
        hamming_p50_ms: round(percentile(hammingTimes, 0.5)),
        candidate_overlap: round(sameSets / stageQueries.length, 3),
        ...keywordStage,
        hybrid_fused: fused,
        load_avg_1m: round(os.loadavg()[0], 2),
        memory_budget_mb: budget.megabytes,
        vector_copy_form: copyForm ?? 'none',
        dense_exact_reads_per_search: round(exactReads, 1),
      });
      if (!args.json) printRow(rows[rows.length - 1], rows.length === 1, search.dense.kernelKind ?? '-');
    }
  } finally {
    search?.close();
    store.close();
    floatDb.close();
    if (!args.dir) fs.rmSync(dir, { recursive: true, force: true });
  }
  if (args.json) process.stdout.write(JSON.stringify(rows.map(({ keyword_catchup_ms: _c, keyword_p50_ms: _k, hybrid_fused: _f, warm_ms: _w, ...r }) => r)) + '\n');
  else {
    const last = rows[rows.length - 1];
    process.stdout.write(`hybrid re-ranked (the editor's default), alternating per query with the fused one (the CLI's default): ${rows.map((r) => `n=${r.n} p50 ${r.hybrid_rerank_p50_ms} ms (fused ${r.hybrid_p50_ms}), p95 ${r.hybrid_rerank_p95_ms} ms (fused ${r.hybrid_p95_ms})`).join('; ')}; question shapes read from scratch (synchronously, beside the search's own, held by the timed search: ${rows.map((r) => r.shapes_held).join(', ')} records): ${rows.map((r) => `n=${r.n} ${r.shapes_load_ms} ms`).join(', ')}\n`);
    process.stdout.write(`hybrid answers that fused both sides (${args.keywords} keyword index): ${rows.map((r) => `n=${r.n} ${r.hybrid_fused}/${args.queries}`).join(', ')}\n`);
    process.stdout.write(`warm caches full after the catch-up (waited, incl. the keyword side's quiet second): ${rows.map((r) => `n=${r.n} ${r.warm_ms} ms`).join(', ')}; process RSS when timed: ${rows.map((r) => `n=${r.n} ${r.rss_mb} MB`).join(', ')}\n`);
    for (const r of rows.filter((row) => !Number.isNaN(row.keyword32_p50_ms))) {
      process.stdout.write(
        `keyword stage at n=${r.n} (top-32, ${args.queries} new queries, alternating): per-term results ${r.keyword32_p50_ms} ms vs MiniSearch whole-query search ${r.keyword32_direct_p50_ms} ms (×${round(r.keyword32_direct_p50_ms / r.keyword32_p50_ms, 1)}); identical top-32 on ${r.keyword32_identical}/${args.queries}\n`,
      );
    }
    process.stdout.write(
      `dense stage at n=${last.n} (${DENSE_STAGE_CANDIDATES} candidates): sqlite-vec bit KNN ${last.bit_knn_p50_ms} ms vs WASM Hamming ${last.hamming_p50_ms} ms (×${round(last.bit_knn_p50_ms / last.hamming_p50_ms, 1)}); candidate sets overlap ${(last.candidate_overlap * 100).toFixed(1)} %\n`,
    );
  }
  return rows;
}

function waitForKeywords(search: HybridSearch, text: string): void {
  const deadline = Date.now() + 600_000;
  while (search.keywords.search(text, 1, true) === null && Date.now() < deadline) {
    // The index catches up inside the worker; the call answers once it is done.
  }
}

/** The keyword stage: the index's search against one MiniSearch search of the whole query, alternating per query (inline index only). */
function compareKeywordStage(search: HybridSearch, queries: string[]): Pick<BenchRow, 'keyword32_p50_ms' | 'keyword32_direct_p50_ms' | 'keyword32_identical'> {
  if (!(search.keywords instanceof InlineKeywords)) return { keyword32_p50_ms: NaN, keyword32_direct_p50_ms: NaN, keyword32_identical: 0 };
  const index = search.keywords.index;
  const fast: number[] = [];
  const direct: number[] = [];
  let identical = 0;
  for (const q of queries) {
    let a: unknown = null;
    let b: unknown = null;
    fast.push(timeMs(() => (a = index.search(q, 32))));
    direct.push(timeMs(() => (b = index.searchDirect(q, 32))));
    if (JSON.stringify(a) === JSON.stringify(b)) identical++;
  }
  fast.sort((x, y) => x - y);
  direct.sort((x, y) => x - y);
  return { keyword32_p50_ms: round(percentile(fast, 0.5)), keyword32_direct_p50_ms: round(percentile(direct, 0.5)), keyword32_identical: identical };
}

/** Fraction of `a` also in `b` (the two scans may order ties at the cut differently). */
function overlap(a: number[], b: number[]): number {
  if (a.length === 0) return b.length === 0 ? 1 : 0;
  const set = new Set(b);
  return a.filter((rid) => set.has(rid)).length / a.length;
}

function printRow(r: BenchRow, header: boolean, kernel: string): void {
  if (header) {
    process.stdout.write(`Retrieval benchmark (dim ${r.dim}, top-4, Hamming kernel: ${kernel}; float scan = sqlite-vec vec0 float[${r.dim}] brute force)\n`);
    process.stdout.write('       n   insert/s  hybrid p50  hybrid p95  vector p50  float-scan p50  recall@4  keyword p50  kw catch-up  load(1m)\n');
  }
  process.stdout.write(
    `${String(r.n).padStart(8)} ${String(r.insert_per_s).padStart(10)} ${r.hybrid_p50_ms.toFixed(3).padStart(8)} ms ${r.hybrid_p95_ms.toFixed(3).padStart(8)} ms ${r.vector_p50_ms.toFixed(3).padStart(8)} ms ${r.float_scan_p50_ms.toFixed(3).padStart(11)} ms ${r.recall_at_4.toFixed(4).padStart(9)} ${r.keyword_p50_ms.toFixed(3).padStart(9)} ms ${String(r.keyword_catchup_ms).padStart(8)} ms ${r.load_avg_1m.toFixed(2).padStart(9)}\n`,
  );
}

/** A row of `--dense-only`: the dense figures, the hybrid ones null (NaN). */
function denseOnlyRow(n: number, dim: number, store: MemoryStore, qvecs: Float32Array[], exact: ExactFloat, startCount: number, insertMs: number): BenchRow {
  const dense = measureDense(store, qvecs, exact, DENSE_STAGE_CANDIDATES);
  const searchDense = DenseIndex.open(store);
  // As many candidates as the product's dense side asks for a top-4 at this size.
  const candidates = 4 * (searchDense.size >= LARGE_MEMORY ? DENSE_OVERFETCH_LARGE : DENSE_OVERFETCH_SMALL);
  let hits = 0;
  const times = qvecs.map((v) => {
    let got: number[] = [];
    const ms = timeMs(() => (got = (searchDense.search(v, 4, candidates) ?? []).map((h) => h.rid)));
    hits += exact.hits(got, v);
    return ms;
  }).sort((a, b) => a - b);
  const rss = Math.round(process.memoryUsage().rss / 1e6);
  searchDense.dispose();
  const none = NaN;
  return {
    ...dense, n, dim, first_open_ms: none, insert_per_s: insertMs > 0 ? Math.round(((n - startCount) / insertMs) * 1000) : none,
    hybrid_p50_ms: none, hybrid_p95_ms: none, hybrid_agreement_p50_ms: none, hybrid_no_agreement_p50_ms: none, hybrid_rerank_p50_ms: none, hybrid_rerank_p95_ms: none, shapes_load_ms: none, shapes_held: 0,
    vector_p50_ms: none, float_scan_p50_ms: round(percentile([...exact.times].sort((a, b) => a - b), 0.5)), recall_at_4: round(hits / (qvecs.length * 4), 4),
    keyword_catchup_ms: none, warm_ms: none, rss_mb: rss, keyword_p50_ms: none, bit_knn_p50_ms: round(percentile(bitKnnTimes(store, qvecs), 0.5)), hamming_p50_ms: dense.candidates_p50_ms,
    candidate_overlap: none, keyword32_p50_ms: none, keyword32_direct_p50_ms: none, keyword32_identical: 0, hybrid_fused: 0, load_avg_1m: round(os.loadavg()[0], 2),
    dense_search_p50_ms: round(percentile(times, 0.5)),
  };
}

/** sqlite-vec's own bit KNN (128 nearest codes on `vec_bits`), sorted times of the first 50 queries. */
function bitKnnTimes(store: MemoryStore, qvecs: Float32Array[]): number[] {
  return qvecs.slice(0, 50).map((v) => timeMs(() => store.vectors.candidates(v, DENSE_STAGE_CANDIDATES))).sort((a, b) => a - b);
}

if (require.main === module) runMain('bench:retrieval', () => run(process.argv.slice(2)).then(() => 0));

export { run as runRetrievalBench };
