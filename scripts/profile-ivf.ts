/**
 * Scratch measurement (brief p50k42): the inverted file over the binary codes against the full scan at one
 * size (DIR: a kept bench:retrieval memory, written to: the inverted file is saved in it). Alternating per
 * query in this process: candidates (128) p50/p95 of each, the share of the full scan's candidates the
 * inverted file keeps, recall@4 of a dense search from each against the exact float scan; the open (training
 * or the saved lists) and the RSS after it. Usage: npx tsx scripts/profile-ivf.ts DIR [queries=200] [minCodes=0] [probe fractions, e.g. 0.0625,0.125]
 */
import * as path from 'node:path';
import { SyntheticRecords } from '../src/core/bench/synthetic-records';
import { DenseIndex } from '../src/core/memory/dense/dense-index';
import { MemoryStore } from '../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../src/core/similarity/hashing-embedder';
import { dot, blobToVector } from '../src/core/memory/dense/vector-index';

const now = () => Number(process.hrtime.bigint()) / 1e6;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `p50 ${at(0.5).toFixed(3)} p95 ${at(0.95).toFixed(3)} mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(3)}`;
};
const mb = () => `rss ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`;

function main(): void {
  const dir = process.argv[2];
  const count = Number(process.argv[3] ?? 200);
  const minCodes = Number(process.argv[4] ?? 0);
  const store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
  const queryGen = SyntheticRecords.fromFile(path.join(process.cwd(), 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl'), 1234);
  const embedder = new HashingEmbedder();
  const qvecs = Array.from({ length: count }, () => embedder.embedSync(queryGen.question()));
  process.stdout.write(`start ${mb()}\n`);
  let t = now();
  const full = DenseIndex.open(store, { ivfMinCodes: Infinity, halfCopies: false });
  full.candidates(qvecs[0], 128);
  process.stdout.write(`full open ${(now() - t).toFixed(0)} ms, ${full.size} codes, ${mb()}\n`);
  t = now();
  const ivf = DenseIndex.open(store, { ivfMinCodes: minCodes, halfCopies: false });
  ivf.candidates(qvecs[0], 128);
  process.stdout.write(`ivf open ${(now() - t).toFixed(0)} ms (${ivf.invertedFile?.lists ?? 0} lists), ${mb()}\n`);
  t = now();
  const again = DenseIndex.open(store, { ivfMinCodes: minCodes, halfCopies: false });
  again.candidates(qvecs[0], 128);
  process.stdout.write(`ivf reopen (saved lists) ${(now() - t).toFixed(0)} ms, ${mb()}\n`);
  again.dispose();
  // Exact top-4 by a float scan of every active record.
  const rows = store.connectionForQueries().prepare("SELECT rid, embedding FROM records WHERE status = 'active' AND embedding IS NOT NULL").raw(true).all() as [number, Buffer][];
  const rids = rows.map((r) => r[0]);
  const vecs = rows.map((r) => blobToVector(r[1]));
  const exact = (q: Float32Array) => {
    const scores = vecs.map((v) => dot(q, v));
    const fourth = [...scores].sort((a, b) => b - a)[3];
    return { fourth, score: new Map(rids.map((rid, i) => [rid, scores[i]])) };
  };
  const fractions = (process.argv[5] ?? '').split(',').filter(Boolean).map(Number);
  for (const f of fractions.length ? fractions : [0]) {
  if (f > 0 && ivf.invertedFile) ivf.invertedFile.probeFraction = f;
  process.stdout.write(`probe fraction ${ivf.invertedFile?.probeFraction ?? 0}\n`);
  const times = { ivf: [] as number[], full: [] as number[] };
  let kept = 0;
  const hits = { ivf: 0, full: 0 };
  for (let rep = 0; rep < (fractions.length ? 2 : 3); rep++) {
    times.ivf.length = 0;
    times.full.length = 0;
    qvecs.forEach((v, i) => {
      let a: number[] = [];
      let b: number[] = [];
      const order = i % 2 === 0 ? ['ivf', 'full'] as const : ['full', 'ivf'] as const;
      for (const which of order) {
        const s = now();
        if (which === 'ivf') a = ivf.candidates(v, 128) ?? [];
        else b = full.candidates(v, 128) ?? [];
        times[which].push(now() - s);
      }
      if (rep > 0) return;
      const held = new Set(a);
      kept += b.filter((rid) => held.has(rid)).length / b.length;
      const e = exact(v);
      for (const [which, index] of [['ivf', ivf], ['full', full]] as const) {
        const got = (index.search(v, 4, 128) ?? []).map((h) => h.rid);
        hits[which] += got.filter((rid) => (e.score.get(rid) ?? -2) >= e.fourth - 1e-6).length;
      }
    });
  }
  process.stdout.write(`candidates(128) ivf ${stats(times.ivf)}\ncandidates(128) full ${stats(times.full)}\n`);
  process.stdout.write(`kept ${(kept / count).toFixed(4)} of the full scan's candidates; recall@4 ivf ${(hits.ivf / (4 * count)).toFixed(4)} full ${(hits.full / (4 * count)).toFixed(4)}\n`);
  }
  ivf.dispose();
  full.dispose();
  store.close();
}

main();
