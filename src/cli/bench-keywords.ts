#!/usr/bin/env node
/**
 * Keyword index memory and open time, per engine: `npx tsx src/cli/bench-keywords.ts [--n 100000] [--db FILE] [--json]`.
 *
 * Fills a file-backed memory with --n synthetic EHRSQL records (no vectors: the keyword side only; kept for the
 * next run when --db is given), then for each engine (minisearch, compact) runs a fresh child process
 * (`node --expose-gc`) that measures `process.memoryUsage()` after a GC before the index opens and after it
 * opened and answered the queries: once building it from the database (no file) and once loading its file.
 * The product runs the index in a worker thread; a process's main thread holds the same structures.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';
import { SyntheticRecords } from '../core/bench/synthetic-records';
import { nullLogger } from '../core/logger';
import { CompactPostings } from '../core/memory/keyword/keyword-compact';
import { readCompactFile, writeCompactFile } from '../core/memory/keyword/keyword-compact-file';
import { ENGINE_FILE_SUFFIX, KeywordEngineKind } from '../core/memory/keyword/keyword-engine';
import { tokenizeForKeywords } from '../core/memory/text-processing';
import { KeywordIndex } from '../core/memory/keyword/keyword-index';
import { MemoryStore } from '../core/memory/sqlite/store';
import { HELP_SHOWN, parseBenchArgs } from './args';
import { runMain } from './run-main';

const ROOT = path.resolve(__dirname, '..', '..');
const TASKS = path.join(ROOT, 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');
const USAGE = `Usage: npx tsx src/cli/bench-keywords.ts [--n 100000] [--db FILE] [--queries 200] [--json] [--postings-only]

Measures the keyword index of a memory of --n synthetic records, per engine (minisearch, compact):
heap, external and array-buffer memory after a GC, before and after it opens (built, then loaded
from its file) and answers --queries searches; the build and load times; the file size.
--postings-only: the compact postings alone, no database (build from generated records, write,
load), for sizes a database would take long to fill (1M).
--tile FILE --times K: write a compact index file holding K copies of FILE's documents (ordinals and
rowids shifted; the same terms) and time loading it: the load of K times the postings, without
building them (its term dictionary is FILE's, smaller than K times the records would have).
--measure compact|minisearch --db FILE: one run in this process on an existing memory (open: build or load,
--queries searches of --limit hits), then --append N new records caught up and persisted (the delta
appended beside the base, timed), then opened again (base + delta).`;

const ArgsSchema = z.object({
  n: z.coerce.number().int().min(1).default(100_000),
  db: z.string().min(1).optional(),
  queries: z.coerce.number().int().min(1).default(200),
  json: z.boolean().default(false),
  measure: z.enum(['compact', 'minisearch']).optional(),
  'postings-only': z.boolean().default(false),
  tile: z.string().min(1).optional(),
  times: z.coerce.number().int().min(1).default(10),
  append: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).default(32),
  'one-term-min': z.coerce.number().int().min(0).optional(),
});

const MB = 1024 * 1024;
type Usage = { heap_used_mb: number; external_mb: number; array_buffers_mb: number; rss_mb: number };

function usage(): Usage {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const r = (b: number) => Math.round((b / MB) * 10) / 10;
  return { heap_used_mb: r(m.heapUsed), external_mb: r(m.external), array_buffers_mb: r(m.arrayBuffers), rss_mb: r(m.rss) };
}

/** In the child: open the index (build when no file, else load), answer the queries, report memory and times. */
function measure(db: string, engine: KeywordEngineKind, queries: number, limit = 32, append = 0, oneTermTopMinPostings?: number): Record<string, unknown> {
  const store = MemoryStore.open(db);
  const gen = SyntheticRecords.fromFile(TASKS, 99);
  const texts = Array.from({ length: queries }, () => gen.question());
  const before = usage();
  const started = performance.now();
  const index = KeywordIndex.open(store, { engine, persistDebounceMs: 3_600_000, oneTermTopMinPostings });
  const openMs = performance.now() - started;
  const firstStarted = performance.now();
  index.search(texts[0], limit);
  const firstMs = performance.now() - firstStarted;
  const times: number[] = [];
  for (const q of texts) {
    const t = performance.now();
    index.search(q, limit);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const after = usage();
  const origin = index.origin;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  const file = index.persistFile;
  const mb = (f: string) => (fs.existsSync(f) ? Math.round((fs.statSync(f).size / MB) * 100) / 100 : 0);
  let appended: Record<string, unknown> = {};
  process.stderr.write(`[bench:keywords] ${engine} ${origin}: open ${round(openMs)} ms, search p50 ${round(times[Math.floor(times.length / 2)])} / p95 ${round(times[Math.floor(times.length * 0.95)])} ms\n`);
  if (append > 0 && file) {
    index.flush();
    const tag = Date.now().toString(36);
    const added = gen.records(append).map((r, i) => ({ ...r, id: `bench-keywords-${tag}-${i}` }));
    store.add(added, { trigger: 'import' });
    let t = performance.now();
    index.search(added[0].question, limit);
    const catchUpMs = performance.now() - t;
    t = performance.now();
    index.flush();
    const persistMs = performance.now() - t;
    index.close();
    t = performance.now();
    const again = KeywordIndex.open(store, { engine, persistDebounceMs: 3_600_000 });
    const reopenMs = performance.now() - t;
    appended = { appended: append, catch_up_ms: round(catchUpMs), persist_ms: round(persistMs), delta_mb: mb(file + '.delta'), reopen_ms: round(reopenMs), reopen_origin: again.origin };
    again.close();
  } else index.close();
  store.close();
  return { engine, origin, open_ms: round(openMs), first_search_ms: round(firstMs), search_p50_ms: round(times[Math.floor(times.length / 2)]), search_p95_ms: round(times[Math.floor(times.length * 0.95)]), search_max_ms: round(times[times.length - 1]), before, after, file_mb: file ? mb(file) : null, ...appended };
}

/** The compact postings alone: built from --n generated records, written, loaded back (times and memory). */
function postingsOnly(n: number, queries: number): Record<string, unknown> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-keywords-'));
  const file = path.join(dir, 'memory.sqlite' + ENGINE_FILE_SUFFIX.compact);
  const round = (ms: number) => Math.round(ms);
  try {
    const gen = SyntheticRecords.fromFile(TASKS, 7);
    const before = usage();
    let started = performance.now();
    let postings = CompactPostings.empty();
    for (let id = 1; id <= n; ) {
      for (const r of gen.records(Math.min(10_000, n - id + 1))) postings.add({ id: id++, question: r.question, code: r.execution.code });
      postings.maybeCompact();
    }
    const buildMs = performance.now() - started;
    started = performance.now();
    writeCompactFile(file, 0, postings.state());
    const writeMs = performance.now() - started;
    const sizes = postings.sizes;
    const built = usage();
    postings = CompactPostings.empty();
    const afterDrop = usage();
    started = performance.now();
    const read = readCompactFile(file, nullLogger);
    if (read.origin !== 'loaded') throw new Error(`the written file did not load (${read.origin})`);
    postings = CompactPostings.fromState(read.state);
    const loadMs = performance.now() - started;
    const loaded = usage();
    const qgen = SyntheticRecords.fromFile(TASKS, 99);
    const ordinals = new Map<number, number>();
    let o = 0;
    for (const rid of postings.documentIds()) ordinals.set(rid, o++);
    const withOrdinals = usage();
    const terms = Array.from({ length: queries }, () => qgen.question()).flatMap((q) => tokenizeForKeywords(q));
    started = performance.now();
    let read1 = 0;
    for (const t of terms) read1 += postings.readTerm(t, ordinals)?.ords.length ?? 0;
    const readMs = performance.now() - started;
    return { n, build_ms: round(buildMs), write_ms: round(writeMs), load_ms: round(loadMs), file_mb: Math.round((fs.statSync(file).size / MB) * 10) / 10, ...sizes, compactions: postings.compactions, before, built, after_drop: afterDrop, loaded, with_scorer_ordinals: withOrdinals, term_reads: terms.length, postings_read: read1, read_all_terms_ms: round(readMs) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** K copies of a compact file's documents in one file, then loaded: the load time of K times its postings. */
function tiled(source: string, k: number): Record<string, unknown> {
  const read = readCompactFile(source, nullLogger);
  if (read.origin !== 'loaded') throw new Error(`${source} is not a compact keyword index file (${read.origin})`);
  const s = read.state;
  const docs = s.rid.length;
  const slots = s.start.length - 1;
  const start = new Int32Array(slots + 1);
  for (let i = 0; i < slots; i++) start[i + 1] = start[i] + k * (s.start[i + 1] - s.start[i]);
  const out = new Int32Array(s.docs.length * k);
  const tfs = new Uint16Array(s.docs.length * k);
  for (let i = 0; i < slots; i++) {
    const len = s.start[i + 1] - s.start[i];
    for (let c = 0; c < k; c++) {
      for (let j = 0; j < len; j++) {
        out[start[i] + c * len + j] = s.docs[s.start[i] + j] + c * docs;
        tfs[start[i] + c * len + j] = s.tfs[s.start[i] + j];
      }
    }
  }
  const maxRid = s.rid.reduce((m, r) => Math.max(m, r), 0);
  const tile = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T, shift: number): T => {
    const b = make(a.length * k);
    for (let c = 0; c < k; c++) for (let i = 0; i < a.length; i++) b[c * a.length + i] = a[i] + c * shift;
    return b;
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-keywords-'));
  const file = path.join(dir, 'tiled' + ENGINE_FILE_SUFFIX.compact);
  try {
    writeCompactFile(file, read.seq, { terms: s.terms, start, docs: out, tfs, rid: tile(s.rid, (n) => new Float64Array(n), maxRid), hash: tile(s.hash, (n) => new Float64Array(n), 0), lengths: s.lengths.map((l) => tile(l, (n) => new Uint32Array(n), 0)), avg: s.avg });
    const before = usage();
    const started = performance.now();
    const again = readCompactFile(file, nullLogger);
    if (again.origin !== 'loaded') throw new Error('the tiled file did not load');
    const postings = CompactPostings.fromState(again.state);
    const loadMs = performance.now() - started;
    const loaded = usage();
    return { source, times: k, ...postings.sizes, file_mb: Math.round((fs.statSync(file).size / MB) * 10) / 10, load_ms: Math.round(loadMs), before, loaded };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function fill(db: string, n: number): void {
  const store = MemoryStore.open(db);
  try {
    const have = { n: store.counts().active };
    const gen = SyntheticRecords.fromFile(TASKS, 7);
    if (have.n > 0) gen.records(have.n); // the same records as a run that filled it at once
    for (let done = have.n; done < n; done += 5_000) store.add(gen.records(Math.min(5_000, n - done)), { trigger: 'import', returnRecords: false });
  } finally {
    store.close();
  }
}

function main(argv: string[]): Promise<number> {
  const o = parseBenchArgs(argv, { usage: USAGE, flags: ['json', 'postings-only'], valued: ['n', 'db', 'queries', 'measure', 'tile', 'times', 'append', 'limit', 'one-term-min'] }, ArgsSchema);
  if (o === HELP_SHOWN) return Promise.resolve(0);
  if (o.tile) {
    process.stdout.write(JSON.stringify(tiled(o.tile, o.times)) + '\n');
    return Promise.resolve(0);
  }
  if (o['postings-only']) {
    process.stdout.write(JSON.stringify(postingsOnly(o.n, o.queries)) + '\n');
    return Promise.resolve(0);
  }
  if (o.measure) {
    if (!o.db) throw new Error('--measure needs --db');
    process.stdout.write(JSON.stringify(measure(o.db, o.measure, o.queries, o.limit, o.append, o['one-term-min'])) + '\n');
    return Promise.resolve(0);
  }
  const dir = o.db ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-keywords-'));
  const db = o.db ?? path.join(dir!, 'memory.sqlite');
  try {
    const filled = performance.now();
    fill(db, o.n);
    process.stderr.write(`[bench:keywords] memory of ${o.n} records ready in ${Math.round(performance.now() - filled)} ms\n`);
    const rows: Record<string, unknown>[] = [];
    for (const engine of ['minisearch', 'compact'] as const) {
      fs.rmSync(db + ENGINE_FILE_SUFFIX[engine], { force: true });
      for (const pass of ['build', 'load']) {
        const child = spawnSync(process.execPath, ['--expose-gc', '--require', 'tsx/cjs', __filename, '--measure', engine, '--db', db, '--queries', String(o.queries)], { encoding: 'utf8', maxBuffer: 16 * MB });
        if (child.status !== 0) throw new Error(`the ${engine} ${pass} run failed: ${child.stderr}`);
        const row = { n: o.n, pass, ...(JSON.parse(child.stdout.trim().split('\n').pop()!) as Record<string, unknown>) };
        rows.push(row);
        process.stdout.write(o.json ? JSON.stringify(row) + '\n' : `${engine} ${pass}: ${JSON.stringify(row)}\n`);
      }
    }
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
  return Promise.resolve(0);
}

if (require.main === module) runMain('bench:keywords', () => main(process.argv.slice(2)));
