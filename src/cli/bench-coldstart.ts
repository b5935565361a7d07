/**
 * Cold-start benchmark: `npm run bench:coldstart [-- --n 100000] [-- --runs 5] [-- --db FILE] [-- --json] [-- --rerank] [-- --memory-budget-mb N] [-- --vector-copies auto|int8|float16] [-- --new-only]` (`--rerank`: the new path searches with the re-ranking; its question shapes load in the background after both sides, and `keyword_join_ms` then includes them; `--memory-budget-mb`: the new path's memory budget, default agentMemory.memoryBudgetMB's; `--vector-copies`: the form of the new path's vector copies, default auto (float16 while the budget holds every record's, else int8); `--new-only`: the old path is not run, no ratios).
 *
 * Spawns real child processes (node + tsx, as `npm run` does) that open a memory
 * of N synthetic records (`agent-memory seed --synthetic N`, seeded once) and
 * answer one hybrid query, and reports, median of `runs`:
 * - spawn_to_first_ms: from the child's process start to its first hybrid result (the child's clock);
 * - first_thread_cpu_ms: the CPU time of the child's main thread until then (user + system,
 *   process.threadCpuUsage), with imports_cpu_ms and dense_cpu_ms its shares of the imports and
 *   the dense open: figures a loaded machine inflates far less than the wall-clock ones;
 * - first_rss_mb: the child's RSS at that moment; the child's own breakdown (imports, store open,
 *   dense codes loaded, first search) and the sides that answered;
 * - keyword_join_ms: when the keyword side joined (worker loaded);
 * - warm_ms / steady_rss_mb: when the warm caches filled after loading were full (`search.warmed`:
 *   the dense side's vector copies; the old path has none: its warm_ms is its join) and the
 *   RSS one second after that;
 * - max_block_ms: the longest event-loop block from opening the memory until the caches are warm
 *   (a 5 ms setInterval probe: the largest gap between ticks, minus 5 ms);
 * - steady_memory (new path, last run): where the steady RSS goes (issue 37 item 1): the main
 *   isolate's V8 heap, its external memory and ArrayBuffers (the dense side's codes and vector
 *   copies among them, also given by size), the keyword worker's own V8 heap, and the RSS split
 *   by the kernel (/proc/self/status) into anonymous memory and file pages (the SQLite file's pages
 *   and the loaded libraries); the anonymous memory no live JS object or buffer accounts for
 *   (anon_beyond_js_used_mb) is native or free: SQLite's page caches (≤ cache_size per
 *   connection), free pages of the V8 heaps, code and malloc arenas. Per thread: the main
 *   isolate's heap used/committed, external and ArrayBuffers; the keyword worker's heap
 *   used/committed and external (v8.getHeapStatistics in the worker). The caches' byte sizes
 *   (binary codes, vector copies with their form and cap) and the budget in effect (memory-budget.ts:
 *   its shares, and the cache_size / mmap_size read back from the store's connection). SQLite's
 *   own allocation count (sqlite3_memory_used) is not available: better-sqlite3 has no call for
 *   it and is built with SQLITE_DEFAULT_MEMSTATUS=0, so its page caches are bounded by the
 *   budget's cache_size, not measured.
 *
 * Each child runs under tsx with its own transform cache (TMPDIR in the run's temp dir, filled by
 * the preparing runs): tsx keeps one cache for every process of the user (os.tmpdir()/tsx-UID),
 * which grows with each edited file of every work tree (15.7k entries here) and costs each child
 * a read of its listing and a linear lookup per module: measured ~70 ms of main-thread CPU before
 * the first answer and 20–57 MB of steady RSS with 15.7k entries against a cache of its own.
 * The product runs its bundle (dist/), without tsx.
 *
 * The same run measures the OLD path: the source tree of the baseline commit (`--baseline`,
 * default the last commit before this change) extracted with `git archive` into the run's temp
 * dir (outside the work tree; removed on exit, error, SIGINT or SIGTERM), opening a copy of the
 * same memory (its own keyword file format), through the same probe. Ratios old / new are printed.
 */
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { HELP_SHOWN, parseBenchArgs, usageError } from './args';
import { tempDirRemovedOnExit } from './exit-cleanup';
import { runMain } from './run-main';
import { DEFAULT_MEMORY_BUDGET_MB, DEFAULT_VECTOR_COPY_FORM, memoryBudget, VectorCopyFormSchema, type MemoryBudget } from '../core/memory/memory-budget';
import type { VectorCopyChoice } from '../core/memory/dense/vector-copy-choice';
import { DEMO_DATABASE_FILE } from '../core/data/ehr-tasks';

const ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_BASELINE = '97d0e4e';
const QUERY = 'how many patients were prescribed aspirin since 2100?';

const ArgsSchema = z.object({
  n: z.coerce.number().int().positive().default(100_000),
  runs: z.coerce.number().int().min(1).max(50).default(5),
  db: z.string().optional(),
  baseline: z.string().min(1).default(DEFAULT_BASELINE),
  json: z.boolean().default(false),
  probe: z.enum(['new', 'old']).optional(),
  src: z.string().optional(),
  /** The new path searches with the re-ranking (`rerank: true`): its question shapes load in the background. */
  rerank: z.boolean().default(false),
  /** The new path's memory budget (MB); default: the setting's default. */
  'memory-budget-mb': z.coerce.number().int().optional(),
  /** The form of the new path's vector copies (default DEFAULT_VECTOR_COPY_FORM). */
  'vector-copies': VectorCopyFormSchema.optional(),
  /** Run the new path only (no baseline checkout, no ratios). */
  'new-only': z.boolean().default(false),
});

const USAGE = `Usage: npm run bench:coldstart -- [--n 100000] [--runs 5] [--db FILE] [--baseline COMMIT] [--rerank] [--memory-budget-mb N] [--vector-copies auto|int8|float16] [--new-only] [--json]

Spawns child processes that open a memory of --n synthetic records and answer one hybrid query,
for this tree and for the --baseline commit's tree (extracted to a temp dir outside the work
tree, removed on exit or Ctrl+C); prints the median of --runs runs and the old/new ratios.
--memory-budget-mb N: the new path's memory budget (default ${DEFAULT_MEMORY_BUDGET_MB}, agentMemory.memoryBudgetMB's);
--vector-copies auto|int8|float16: the form of the new path's vector copies (default ${DEFAULT_VECTOR_COPY_FORM});
--new-only: run the new path only (no baseline, no ratios).`;

const VALUED = ['n', 'runs', 'db', 'baseline', 'probe', 'src', 'memory-budget-mb', 'vector-copies'] as const;

const ProbeSchema = z.object({
  imports_ms: z.number(),
  store_ms: z.number(),
  dense_ms: z.number(),
  search_ms: z.number(),
  first_ms: z.number(),
  first_rss_mb: z.number(),
  sides: z.array(z.string()),
  keyword_join_ms: z.number(),
  warm_ms: z.number(),
  max_block_ms: z.number(),
  steady_rss_mb: z.number(),
  top4: z.array(z.string()),
  steady_memory: z.record(z.string(), z.number()).optional(),
  first_thread_cpu_ms: z.number(),
  imports_cpu_ms: z.number(),
  dense_cpu_ms: z.number(),
});
type Probe = z.infer<typeof ProbeSchema>;

// ------------------------------------------------------------------ child side

interface ProbeStore {
  close(): void;
  connectionForQueries?(): { pragma(source: string, options: { simple: true }): unknown };
}
interface ProbeModules {
  store: { MemoryStore: { open(file: string, options?: { memoryBudget?: MemoryBudget }): ProbeStore } };
  embedding: { storeEmbedder(store: unknown, logger: unknown): { embedSync(t: string): Float32Array } };
  logger: { nullLogger: unknown };
  hybrid: { HybridSearch: { open(store: unknown, options: object): ProbeSearch } };
}
interface ProbeSearch {
  setDomainValues?(values: unknown): void;
  search(q: { text: string; vector?: Float32Array }, k: number): { recordId: string }[];
  answer?(q: { text: string; vector?: Float32Array }, k: number, options?: { rerank?: boolean }): { hits: { recordId: string }[]; sides: string[] };
  dense: { ready?: Promise<void>; vectorCopies?: { form: string | null; bytes: number; records: number; capacity: number };
    /** A baseline tree's name for the float16 copies. */
    halfCopies?: { bytes: number; records: number; capacity?: number }; size?: number; dimension?: number | null; codeBytes?: number };
  /** The keyword side; its worker (when it has one) is read for its heap statistics only. */
  keywords?: { worker?: { getHeapStatistics?(): Promise<{ used_heap_size: number; total_heap_size: number; external_memory?: number }> } };
  ready?: Promise<void>;
  warmed?: Promise<void>;
  close(): void;
}

/** CPU time of this thread so far (user + system), in ms. */
function threadCpuMs(): number {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
}

/** The demo database's values, read off the main thread with the probed tree's reader (`--rerank`: what the editor's agent passes). */
function demoValues(src: string): Promise<unknown> {
  const reader = require(path.join(src, 'core', 'data', 'domain-values-reader')) as { readDomainValuesOffThread(file: string): Promise<unknown> };
  const file = path.join(ROOT, 'data', 'ehr', DEMO_DATABASE_FILE);
  if (!fs.existsSync(file)) throw new Error(`bench-coldstart: --rerank needs the demo database's values, and ${file} is missing (it ships in the repository: git checkout -- data/ehr).`);
  return reader.readDomainValuesOffThread(file);
}

async function probe(kind: 'new' | 'old', src: string, db: string, rerank: boolean, budgetMB: number | undefined, form: VectorCopyChoice | undefined): Promise<void> {
  const t0 = performance.now();
  const cpu0 = threadCpuMs();
  const load = (m: string) => require(path.join(src, 'core', m)) as unknown;
  // The memory's modules moved into folders (sqlite/, search/); a baseline tree may predate that.
  const loadFirst = (...candidates: string[]) => load(candidates.find((m) => fs.existsSync(path.join(src, 'core', `${m}.ts`))) ?? candidates[0]);
  const mods = {
    store: loadFirst('memory/sqlite/store', 'memory/store'),
    embedding: load(kind === 'new' ? 'app/embedding' : 'app-embedding'),
    logger: load('logger'),
    hybrid: loadFirst('memory/search/hybrid-search', 'memory/hybrid-search'),
  } as ProbeModules;
  const options = rerank && kind === 'new' ? { rerank: true } : {};
  // The new path opens with the budget in effect (passed explicitly: the same as the default without --memory-budget-mb).
  const budget = kind === 'new' ? memoryBudget(budgetMB, form) : undefined;
  const tImports = performance.now();
  const cpuImports = threadCpuMs();
  let maxGap = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 5);
  const store = mods.store.MemoryStore.open(db, budget ? { memoryBudget: budget } : undefined);
  const embedder = mods.embedding.storeEmbedder(store, mods.logger.nullLogger);
  const tStore = performance.now();
  const cpuStore = threadCpuMs();
  last = performance.now();
  const search = mods.hybrid.HybridSearch.open(store, kind === 'new' ? { background: true, memoryBudget: budget } : {});
  // A re-ranked probe re-ranks as the editor does, with the agent database's values (the re-ranking applies only with
  // them), read in a worker thread while the memory opens, as the editor's agent reads them.
  const valuesRead = kind === 'new' && rerank ? demoValues(src).then((values) => search.setDomainValues?.(values)) : Promise.resolve();
  await search.dense.ready;
  const tDense = performance.now();
  const cpuDense = threadCpuMs();
  const query = { text: QUERY, vector: embedder.embedSync(QUERY) };
  const first = search.answer ? search.answer(query, 4, options) : { hits: search.search(query, 4), sides: ['dense', 'keyword'] };
  const tFirst = performance.now();
  const cpuFirst = threadCpuMs();
  const firstRss = process.memoryUsage().rss / 1e6;
  await valuesRead;
  await search.ready;
  const tJoin = performance.now();
  await search.warmed;
  const tWarm = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(tick);
  const blocked = Math.max(0, maxGap - 5);
  const after = search.answer ? search.answer(query, 4, options) : { hits: search.search(query, 4) };
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const steadyMemory = budget ? await memoryBreakdown(search, store, budget) : undefined;
  const result: Probe = {
    imports_ms: tImports - t0,
    store_ms: tStore - tImports,
    dense_ms: tDense - tStore,
    search_ms: tFirst - tDense,
    first_ms: tFirst,
    first_rss_mb: firstRss,
    sides: first.sides,
    keyword_join_ms: tJoin,
    warm_ms: tWarm,
    max_block_ms: blocked,
    steady_rss_mb: process.memoryUsage().rss / 1e6,
    top4: after.hits.map((h) => h.recordId),
    first_thread_cpu_ms: cpuFirst,
    imports_cpu_ms: cpuImports - cpu0,
    dense_cpu_ms: cpuDense - cpuStore,
    ...(steadyMemory ? { steady_memory: steadyMemory } : {}),
  };
  search.close();
  store.close();
  process.stdout.write(JSON.stringify(result) + '\n');
}

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;

/** The kernel's split of this process's RSS (Linux; empty elsewhere), in MB. */
function rssSplit(): Record<string, number> {
  try {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rss_anon_mb: mb(kb('RssAnon') * 1024), rss_file_mb: mb(kb('RssFile') * 1024), rss_shmem_mb: mb(kb('RssShmem') * 1024) };
  } catch {
    return {};
  }
}

/** Where the steady RSS goes (see the file comment), in MB, with the budget in effect. */
async function memoryBreakdown(search: ProbeSearch, store: ProbeStore, budget: MemoryBudget): Promise<Record<string, number>> {
  const m = process.memoryUsage();
  const out: Record<string, number> = { rss_mb: mb(m.rss), heap_used_mb: mb(m.heapUsed), heap_total_mb: mb(m.heapTotal), external_mb: mb(m.external), array_buffers_mb: mb(m.arrayBuffers), ...rssSplit() };
  const dim = search.dense.dimension ?? 0;
  if (search.dense.size !== undefined) out.dense_codes_mb = mb(search.dense.codeBytes ?? (search.dense.size * dim) / 8);
  const copies = search.dense.vectorCopies ?? search.dense.halfCopies;
  if (copies) {
    // The form the copies took: 1 int8, 2 float16 (a figure among figures; the run's vector_copy_form names the choice).
    out.dense_copies_bytes_per_value = search.dense.vectorCopies ? (search.dense.vectorCopies.form === 'int8' ? 1 : 2) : 2;
    out.dense_copies_mb = mb(copies.bytes);
    out.dense_copies_records = copies.records;
    if (copies.capacity !== undefined) out.dense_copies_capacity_records = copies.capacity;
  }
  const worker = search.keywords?.worker;
  if (worker?.getHeapStatistics) {
    const h = await worker.getHeapStatistics();
    out.keyword_worker_heap_used_mb = mb(h.used_heap_size);
    out.keyword_worker_heap_total_mb = mb(h.total_heap_size);
    if (h.external_memory !== undefined) out.keyword_worker_external_mb = mb(h.external_memory);
  }
  out.budget_mb = budget.megabytes;
  out.budget_vector_copies_mb = mb(budget.vectorCopyBytes);
  out.budget_keyword_caches_mb = mb(budget.keywordCacheBytes);
  const db = store.connectionForQueries?.();
  // Read back from the store's connection: what SQLite applies (cache_size < 0: KiB).
  out.sqlite_cache_size_mb = mb(-Number(db?.pragma('cache_size', { simple: true }) ?? -budget.sqlitePageCacheKiB) * 1024);
  out.sqlite_mmap_size_mb = mb(Number(db?.pragma('mmap_size', { simple: true }) ?? budget.sqliteMmapBytes));
  // Anonymous RSS not holding live JS objects or external buffers: SQLite's page caches, free V8 heap pages, code, malloc arenas.
  if (out.rss_anon_mb !== undefined) out.anon_beyond_js_used_mb = Math.round((out.rss_anon_mb - out.heap_used_mb - out.external_mb - (out.keyword_worker_heap_used_mb ?? 0)) * 10) / 10;
  return out;
}

// ------------------------------------------------------------------ parent side

function runChild(args: string[], tmpdir: string): Promise<{ wallMs: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstLineAt = 0;
    let stdout = '';
    let stderr = '';
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', __filename, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmpdir } });
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!firstLineAt && stdout.includes('\n')) firstLineAt = performance.now();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve({ wallMs: (firstLineAt || performance.now()) - started, stdout }) : reject(new Error(`probe exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

async function runProbe(kind: 'new' | 'old', src: string, db: string, tmpdir: string, rerank = false, budgetMB?: number, form?: VectorCopyChoice): Promise<Probe & { spawn_to_first_ms: number }> {
  const budget = budgetMB === undefined ? [] : ['--memory-budget-mb', String(budgetMB)];
  const copies = form === undefined ? [] : ['--vector-copies', form];
  const { stdout } = await runChild(['--probe', kind, '--src', src, '--db', db, ...(rerank ? ['--rerank'] : []), ...budget, ...copies], tmpdir);
  const p = ProbeSchema.parse(JSON.parse(stdout.trim().split('\n').pop() ?? '{}'));
  // The child prints after closing; spawn → first result = spawn → child start + the child's own first_ms.
  return { ...p, spawn_to_first_ms: p.first_ms };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const r1 = (x: number) => Math.round(x * 10) / 10;

/** Extracts the baseline tree to `oldRoot` and copies the memory to `oldDb` for it (schema version set back). */
function prepareOldPath(baseline: string, db: string, oldRoot: string, oldDb: string): void {
  fs.mkdirSync(oldRoot);
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(oldRoot, 'node_modules'), 'dir');
  execFileSync('bash', ['-c', `git -C ${JSON.stringify(ROOT)} archive ${baseline} src | tar -x -C ${JSON.stringify(oldRoot)}`]);
  const Database = require('better-sqlite3') as new (f: string) => { exec(s: string): void; pragma(s: string): unknown; close(): void };
  const raw = new Database(db);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  raw.close();
  fs.copyFileSync(db, oldDb);
  const oldRaw = new Database(oldDb);
  oldRaw.pragma('user_version = 3');
  oldRaw.close();
}

async function main(argv: string[]): Promise<number> {
  const args = parseBenchArgs(argv, { usage: USAGE, flags: ['json', 'rerank', 'new-only'], valued: VALUED }, ArgsSchema);
  if (args === HELP_SHOWN) return 0;
  const budgetMB = args['memory-budget-mb'];
  if (args.probe) {
    await probe(args.probe, args.src ?? path.join(ROOT, 'src'), args.db!, args.rerank, budgetMB, args['vector-copies']);
    return 0;
  }
  memoryBudget(budgetMB); // a budget out of bounds fails here, before seeding
  if (args.db !== undefined && !args.probe && !fs.existsSync(args.db)) {
    // Opening a missing file would create an empty memory and time it as if it held --n records.
    throw usageError(`--db ${args.db}: no such memory; seed it first (npx tsx src/cli/main.ts seed --synthetic ${args.n} --db ${args.db}) or leave --db out`, USAGE);
  }
  const kinds = args['new-only'] ? (['new'] as const) : (['new', 'old'] as const);
  // Everything this run writes (the seeded memory, the baseline checkout) lives in one temp dir outside
  // the work tree, removed when the run ends, fails or is interrupted.
  const { dir: work, remove } = tempDirRemovedOnExit('agent-memory-coldstart-');
  try {
    const db = args.db ?? path.join(work, 'memory.sqlite');
    if (!args.db) {
      process.stderr.write(`seeding ${args.n} synthetic records (agent-memory seed --synthetic)…\n`);
      execFileSync(process.execPath, ['-r', 'tsx/cjs', path.join(ROOT, 'src', 'cli', 'main.ts'), 'seed', '--synthetic', String(args.n), '--db', db], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    }
    // The old path: the baseline source tree, on its own copy of the memory (schema version set back,
    // the added change-log table is ignored by it). Its imports resolve through a link to this tree's node_modules.
    const oldRoot = path.join(work, 'baseline');
    const oldDb = path.join(work, 'old.sqlite');
    if (kinds.length > 1) prepareOldPath(args.baseline, db, oldRoot, oldDb);
    const srcOf = (kind: 'new' | 'old') => path.join(kind === 'new' ? ROOT : oldRoot, 'src');
    // The children's own tsx cache (see the file comment), filled by the preparing runs below.
    const childTmp = path.join(work, 'tmp');
    fs.mkdirSync(childTmp);
    const probeOnce = (kind: 'new' | 'old') => runProbe(kind, srcOf(kind), kind === 'new' ? db : oldDb, childTmp, kind === 'new' && args.rerank, kind === 'new' ? budgetMB : undefined, kind === 'new' ? args['vector-copies'] : undefined);
    process.stderr.write('preparing: first opens write each path\'s keyword index file and fill the children\'s tsx cache…\n');
    for (const kind of kinds) await probeOnce(kind);
    const rows: { kind: string; p: Probe & { spawn_to_first_ms: number } }[] = [];
    for (let i = 0; i < args.runs; i++) {
      for (const kind of kinds) {
        const p = await probeOnce(kind);
        rows.push({ kind, p });
        process.stderr.write(`run ${i + 1} ${kind}: first ${r1(p.first_ms)} ms (main thread CPU ${r1(p.first_thread_cpu_ms)} ms), rss ${r1(p.first_rss_mb)} MB, keyword joined ${r1(p.keyword_join_ms)} ms, warm ${r1(p.warm_ms)} ms, max block ${r1(p.max_block_ms)} ms, steady rss ${r1(p.steady_rss_mb)} MB\n`);
      }
    }
    const agree = rows.filter((r) => r.kind === 'new').map((r) => r.p.top4.join()).every((t, _, all) => t === all[0]);
    const summary = kinds.map((kind) => {
      const ps = rows.filter((r) => r.kind === kind).map((r) => r.p);
      const m = (f: (p: Probe) => number) => r1(median(ps.map(f)));
      return {
        path: kind,
        n: args.n,
        spawn_to_first_ms: m((p) => p.first_ms),
        first_thread_cpu_ms: m((p) => p.first_thread_cpu_ms),
        imports_cpu_ms: m((p) => p.imports_cpu_ms),
        dense_cpu_ms: m((p) => p.dense_cpu_ms),
        imports_ms: m((p) => p.imports_ms),
        store_ms: m((p) => p.store_ms),
        dense_ms: m((p) => p.dense_ms),
        first_search_ms: m((p) => p.search_ms),
        first_rss_mb: m((p) => p.first_rss_mb),
        first_sides: ps[0].sides.join('+'),
        keyword_join_ms: m((p) => p.keyword_join_ms),
        warm_ms: m((p) => p.warm_ms),
        max_block_ms: m((p) => p.max_block_ms),
        steady_rss_mb: m((p) => p.steady_rss_mb),
      };
    });
    const [fresh, old] = summary;
    const ratios = old
      ? {
          spawn_to_first: r1(old.spawn_to_first_ms / fresh.spawn_to_first_ms),
          first_rss: r1(old.first_rss_mb / fresh.first_rss_mb),
          max_block: r1(old.max_block_ms / Math.max(1, fresh.max_block_ms)),
        }
      : null;
    const steadyMemory = rows.filter((r) => r.kind === 'new').pop()?.p.steady_memory ?? null;
    const sameTop4 = old ? rows.filter((r) => r.kind === 'new')[0].p.top4.join() === rows.filter((r) => r.kind === 'old')[0].p.top4.join() : null;
    const budget = memoryBudget(budgetMB, args['vector-copies']);
    if (args.json) process.stdout.write(JSON.stringify({ summary, ratios_old_over_new: ratios, same_top4_as_old: sameTop4, steady_memory_new: steadyMemory, memory_budget_mb: budget.megabytes, vector_copy_form: budget.vectorCopyForm, load_avg_1m: os.loadavg()[0] }) + '\n');
    else {
      process.stdout.write(`cold start at n=${args.n}, median of ${args.runs} runs (child processes: node -r tsx/cjs; time from process start), memory budget ${budget.megabytes} MB, ${budget.vectorCopyForm} vector copies, load avg ${os.loadavg()[0].toFixed(1)}\n`);
      const cols = Object.keys(fresh) as (keyof typeof fresh)[];
      for (const c of cols) process.stdout.write(`${c.padEnd(18)} ${String(fresh[c]).padStart(12)} ${old ? String(old[c]).padStart(12) : ''}\n`);
      if (ratios) process.stdout.write(`old/new ratios: first answer ×${ratios.spawn_to_first}, RSS at first answer ×${ratios.first_rss}, longest block ×${ratios.max_block}\n`);
      if (steadyMemory) process.stdout.write(`steady memory of the new path (MB): ${Object.entries(steadyMemory).map(([k, v]) => `${k.replace(/_mb$/, '')} ${v}`).join(', ')}\n`);
      process.stdout.write(`top-4 of the query after warm-up${sameTop4 === null ? '' : ` identical to the old path: ${sameTop4};`} stable across runs: ${agree}\n`);
    }
  } finally {
    remove();
  }
  return 0;
}

if (require.main === module) runMain('bench:coldstart', () => main(process.argv.slice(2)));
