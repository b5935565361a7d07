/**
 * Scratch profile of the hybrid search's tail (issue 37): opens a kept bench:retrieval memory (--dir) as the
 * bench does, runs its queries (same generator, seed 1234) and times each search split into the keyword side,
 * the dense side (candidates, exact reads), the rest (fusion, collapse, re-rank); prints the slowest 10.
 * Usage: npx tsx scripts/profile-tail.ts DIR [queries=100]
 */
import * as path from 'node:path';
import { SyntheticRecords } from '../src/core/bench/synthetic-records';
import { HybridSearch } from '../src/core/memory/search/hybrid-search';
import { InlineKeywords } from '../src/core/memory/keyword/keyword-service';
import { MemoryStore } from '../src/core/memory/sqlite/store';
import { memoryBudget } from '../src/core/memory/memory-budget';
import { HashingEmbedder } from '../src/core/similarity/hashing-embedder';
import { tokenizeForKeywords } from '../src/core/memory/text-processing';
import { readDomainValues } from '../src/core/data/domain-values-reader';
import { DEMO_DATABASE_FILE } from '../src/core/data/ehr-tasks';

const now = () => Number(process.hrtime.bigint()) / 1e6;

async function main(): Promise<void> {
  const dir = process.argv[2];
  const count = Number(process.argv[3] ?? 100);
  const store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
  const t0 = now();
  const tasks = path.join(process.cwd(), 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');
  // The re-ranked searches re-rank as the bench's do: with the demo database's values (else they are the fused search).
  const domainValues = readDomainValues(path.join(path.dirname(tasks), DEMO_DATABASE_FILE));
  const search = HybridSearch.open(store, { background: false, memoryBudget: memoryBudget(), domainValues });
  const embedder = new HashingEmbedder();
  const queryGen = SyntheticRecords.fromFile(tasks, 1234);
  const queries = Array.from({ length: count }, () => queryGen.question());
  const qvecs = queries.map((q) => embedder.embedSync(q));
  const warm = search.keywords.nextWarm();
  search.search({ text: queries[0], vector: qvecs[0] }, 4);
  void search.shapes;
  const keep = setInterval(() => undefined, 1000);
  await Promise.all([warm, search.dense.warmed, search.ready]);
  clearInterval(keep);
  process.stderr.write(`open+warm ${Math.round(now() - t0)} ms\n`);
  for (let i = 0; i < Math.min(20, queries.length); i++) {
    search.search({ text: queries[i], vector: qvecs[i] }, 4);
    search.search({ text: queries[i], vector: qvecs[i] }, 4, { rerank: true });
  }
  // Instrument the two sides.
  const parts = { kw: 0, dense: 0, cand: 0, reads: 0, nreads: 0, kwCalls: 0, denseCalls: 0 };
  const dense = search.dense;
  const origDense = dense.search.bind(dense);
  const origCand = dense.candidates.bind(dense);
  dense.candidates = (v, c) => { const t = now(); try { return origCand(v, c); } finally { parts.cand += now() - t; } };
  dense.search = (v, k, c, known) => { const t = now(); const r0 = dense.rescoreReads; try { return origDense(v, k, c, known); } finally { parts.dense += now() - t; parts.nreads += dense.rescoreReads - r0; parts.denseCalls++; } };
  const kws = search.keywords as InlineKeywords;
  const origKw = kws.search.bind(kws);
  kws.search = (text: string, limit: number) => { const t = now(); try { return origKw(text, limit); } finally { parts.kw += now() - t; parts.kwCalls++; } };
  const hs = search as unknown as Record<string, { database?: unknown; get: (...a: unknown[]) => unknown; all: (...a: unknown[]) => unknown[] }>;
  const rowParts = { n: 0, ms: 0 };
  for (const name of ['rowStmt', 'programStmt', 'utilitiesStmt']) {
    const st = hs[name];
    const get = st.get.bind(st);
    const all = st.all.bind(st);
    hs[name] = { database: st.database, get: (...a: unknown[]) => { const t = now(); try { return get(...a); } finally { rowParts.n++; rowParts.ms += now() - t; } }, all: (...a: unknown[]) => { const t = now(); try { return all(...a); } finally { rowParts.n++; rowParts.ms += now() - t; } } };
  }
  const rankOrig = (search as unknown as { rank: (...a: unknown[]) => unknown }).rank.bind(search);
  const depths: number[] = [];
  (search as unknown as { rank: (...a: unknown[]) => unknown }).rank = (...a: unknown[]) => { depths.push(a[2] as number); return rankOrig(...a); };
  const perField = (kws.index as unknown as { engine: { terms: { total(t: string): number; select(t: string, m: number): string[] } } }).engine.terms;
  const rows: { i: number; mode: string; total: number; kw: number; dense: number; cand: number; nreads: number; calls: string; terms: string }[] = [];
  queries.forEach((q, i) => {
    for (const rerank of i % 2 === 0 ? [false, true] : [true, false]) {
      rowParts.n = 0; rowParts.ms = 0; depths.length = 0;
      Object.assign(parts, { kw: 0, dense: 0, cand: 0, reads: 0, nreads: 0, kwCalls: 0, denseCalls: 0 });
      const t = now();
      search.answer({ text: q, vector: qvecs[i] }, 4, { rerank });
      const total = now() - t;
      const selected = perField.select(q, 5000);
      const terms = [...new Set(tokenizeForKeywords(q))].map((w) => `${w}:${perField.total(w)}${selected.includes(w) ? '*' : ''}`).join(' ');
      rows.push({ i, mode: rerank ? 'rerank' : 'fused', total, kw: parts.kw, dense: parts.dense, cand: parts.cand, nreads: parts.nreads, calls: `${parts.kwCalls}/${parts.denseCalls} depths ${depths.join(',')} rows ${rowParts.n} ${rowParts.ms.toFixed(1)}ms`, terms });
    }
  });
  const fmt = (x: number) => x.toFixed(2).padStart(7);
  for (const mode of ['fused', 'rerank']) {
    const list = rows.filter((r) => r.mode === mode).sort((a, b) => a.total - b.total);
    const pct = (p: number) => list[Math.min(list.length - 1, Math.floor(p * list.length))].total;
    process.stdout.write(`${mode}: p50 ${pct(0.5).toFixed(2)} p95 ${pct(0.95).toFixed(2)}; sums: kw ${list.reduce((s, r) => s + r.kw, 0).toFixed(0)} dense ${list.reduce((s, r) => s + r.dense, 0).toFixed(0)} (exact reads ${list.reduce((s, r) => s + r.nreads, 0)}) total ${list.reduce((s, r) => s + r.total, 0).toFixed(0)}\n`);
    for (const r of list.slice(-10).reverse()) process.stdout.write(`  q${String(r.i).padStart(3)} total${fmt(r.total)} kw${fmt(r.kw)} dense${fmt(r.dense)} (cand${fmt(r.cand)}, reads ${r.nreads}) rest${fmt(r.total - r.kw - r.dense)} calls ${r.calls} | ${r.terms}\n`);
  }
  search.close();
  store.close();
}

main().catch((e: unknown) => { process.stderr.write(`${String(e)}\n`); process.exit(1); });
