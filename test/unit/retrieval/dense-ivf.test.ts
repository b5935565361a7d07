import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BinaryCodeCache, quantizeBinary } from '../../../src/core/memory/dense/binary-code-cache';
import { DenseIndex } from '../../../src/core/memory/dense/dense-index';
import { IVF_MIN_SCAN_PER_CANDIDATE, IvfCodeIndex } from '../../../src/core/memory/dense/ivf-code-index';
import { IVF_TABLE, loadIvf } from '../../../src/core/memory/dense/ivf-persist';
import { trainCentroids } from '../../../src/core/memory/dense/ivf-train';
import { nullLogger } from '../../../src/core/logger';
import { seededRandom } from '../../../src/core/random';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { dot } from '../../../src/core/memory/dense/vector-index';
import { sampleRecord } from '../../support/records';

const DIM = 128;

/** Vectors around `clusters` random centres (a templated memory is clustered like this), L2-normalised. */
function clustered(count: number, clusters: number, seed: number, spread = 0.35): Float32Array[] {
  const rand = seededRandom(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const centres = Array.from({ length: clusters }, () => Float32Array.from({ length: DIM }, gauss));
  return Array.from({ length: count }, () => {
    const c = centres[Math.floor(rand() * clusters) % clusters];
    const v = Float32Array.from(c, (x) => x + spread * gauss());
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

function fill(store: MemoryStore, vectors: Float32Array[], prefix: string): void {
  for (let from = 0; from < vectors.length; from += 1000) {
    const batch = vectors.slice(from, from + 1000);
    store.add(batch.map((_, i) => sampleRecord({ id: `${prefix}${from + i}` })), { trigger: 'import', embeddings: batch, embedderId: `random-${DIM}`, returnRecords: false });
  }
}

/** Exact top `k` rids by float cosine over `vectors` (rid of vector i from `ridOf`). */
function exactTop(q: Float32Array, vectors: Map<number, Float32Array>, k: number): number[] {
  return [...vectors].map(([rid, v]) => ({ rid, s: dot(q, v) })).sort((a, b) => b.s - a.s || a.rid - b.rid).slice(0, k).map((x) => x.rid);
}

function capture(): { logger: typeof nullLogger; lines: string[] } {
  const lines: string[] = [];
  return { lines, logger: { ...nullLogger, debug: (m: string) => lines.push(m), info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) } };
}

describe('inverted file over the binary codes', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-ivf-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds the exact top 4 about as often as the full scan (real store, 12k records)', () => {
    const store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
    const vectors = clustered(12_000, 300, 5);
    fill(store, vectors, 'v');
    const byRid = new Map(vectors.map((v, i) => [store.ridOf(`v${i}`)!, v]));
    const ivf = DenseIndex.open(store, { ivfMinCodes: 5_000 });
    const full = DenseIndex.open(store, { ivfMinCodes: Infinity });
    assert.ok(ivf.invertedFile, 'above the threshold the candidates come from the inverted file');
    assert.equal(full.invertedFile, null);
    assert.equal(ivf.size, 12_000);
    const queries = clustered(100, 300, 5).map((_, i) => vectors[(i * 97) % vectors.length].map((x, d) => x + (d === i % DIM ? 0.05 : 0)));
    let ivfHits = 0;
    let fullHits = 0;
    for (const q of queries) {
      const want = new Set(exactTop(q, byRid, 4));
      // 32 candidates: the inverted file scans 32 × IVF_MIN_SCAN_PER_CANDIDATE codes, a quarter of them (128 would scan all 12k).
      ivfHits += ivf.search(q, 4, 32)!.filter((h) => want.has(h.rid)).length;
      fullHits += full.search(q, 4, 32)!.filter((h) => want.has(h.rid)).length;
    }
    const scanned = ivf.invertedFile;
    assert.ok(scanned && scanned.lists >= 16, `lists: ${scanned.lists}`);
    assert.ok(ivfHits >= fullHits - 0.02 * queries.length * 4, `inverted file ${ivfHits} vs full scan ${fullHits} of ${queries.length * 4}`);
    assert.ok(ivfHits / (queries.length * 4) >= 0.9, `recall@4 ${ivfHits / (queries.length * 4)}`);
    store.close();
  });

  it('keeps its lists right through inserts (past the room of a list) and deletes', () => {
    const store = MemoryStore.open(':memory:');
    const vectors = clustered(6_000, 100, 9);
    fill(store, vectors, 'v');
    const dense = DenseIndex.open(store, { ivfMinCodes: 1_000 });
    const before = dense.invertedFile!;
    // 2,500 near-copies of one vector: its list overflows, then the overflow area does (the lists are laid out again).
    const crowd = Array.from({ length: 2_500 }, (_, i) => vectors[0].map((x, d) => x + (d === i % DIM ? 1e-3 * ((i % 7) + 1) : 0)));
    fill(store, crowd, 'c');
    const late = clustered(300, 100, 9).map((v) => v.map((x) => -x));
    fill(store, late, 'n');
    store.transition(Array.from({ length: 500 }, (_, i) => `v${i * 3}`), 'delete', { trigger: 'user' });
    store.transition(Array.from({ length: 300 }, (_, i) => `c${i}`), 'delete', { trigger: 'user' });
    dense.search(late[0], 4, 64); // a query catches up with the changes
    assert.equal(dense.size, 6_000 + 2_500 + 300 - 800);
    assert.equal(dense.invertedFile, before, 'the same inverted file, updated in place');
    const deleted = new Set([...Array.from({ length: 500 }, (_, i) => store.ridOf(`v${i * 3}`)!), ...Array.from({ length: 300 }, (_, i) => store.ridOf(`c${i}`)!)]);
    // Every record still held is found by its own vector (its code is in the list its centroid points at, or the overflow).
    for (const [prefix, list] of [['n', late], ['c', crowd], ['v', vectors]] as const) {
      for (let i = 0; i < list.length; i += prefix === 'v' ? 37 : 11) {
        const rid = store.ridOf(`${prefix}${i}`)!;
        // The crowd's codes are equal: a record is one of 2,200 at distance 0, so it is looked for among all of them.
        const found = prefix === 'c' ? dense.candidates(list[i], 2_400)!.includes(rid) : dense.search(list[i], 4, 64)!.some((h) => h.rid === rid && h.similarity > 0.9999);
        assert.equal(found, !deleted.has(rid), `${prefix}${i} ${deleted.has(rid) ? 'is deleted' : 'finds itself'}`);
      }
    }
    for (let i = 0; i < 40; i++) for (const h of dense.search(crowd[i], 16, 256)!) assert.ok(!deleted.has(h.rid));
    store.close();
  });

  it('saves its lists and the next open reads them instead of training', () => {
    const file = path.join(dir, 'memory.sqlite');
    let store = MemoryStore.open(file);
    const vectors = clustered(5_000, 80, 3);
    fill(store, vectors, 'v');
    const first = capture();
    const a = DenseIndex.open(store, { ivfMinCodes: 1_000, logger: first.logger });
    assert.ok(first.lines.some((l) => /inverted file over 5000 codes .*trained/.test(l)), first.lines.join('\n'));
    const saved = loadIvf(store.connectionForQueries(), DIM);
    assert.ok(saved, `${IVF_TABLE} holds the inverted file`);
    assert.equal(saved.rids.length, 5_000);
    const queries = vectors.slice(0, 30).map((v) => v.map((x, d) => x + (d === 3 ? 0.1 : 0)));
    const answers = queries.map((q) => a.search(q, 4, 128));
    a.dispose();
    store.close();
    store = MemoryStore.open(file);
    const second = capture();
    const b = DenseIndex.open(store, { ivfMinCodes: 1_000, logger: second.logger });
    assert.ok(second.lines.some((l) => /inverted file over 5000 codes .*, 0 placed/.test(l)), second.lines.join('\n'));
    queries.forEach((q, i) => assert.deepEqual(b.search(q, 4, 128), answers[i], `query ${i}`));
    b.dispose();
    fill(store, clustered(40, 80, 4), 'w');
    const third = capture();
    const c = DenseIndex.open(store, { ivfMinCodes: 1_000, logger: third.logger });
    assert.ok(third.lines.some((l) => /inverted file over 5040 codes .*, 40 placed/.test(l)), third.lines.join('\n'));
    assert.equal(c.size, 5_040);
    store.close();
  });

  it('opens across event-loop turns (codes, then the saved lists placed in steps) and answers the same candidates as a synchronous open', async () => {
    const file = path.join(dir, 'turns.sqlite');
    const store = MemoryStore.open(file);
    const vectors = clustered(5_000, 80, 13);
    fill(store, vectors, 'v');
    const queries = vectors.slice(0, 40).map((v) => v.map((x, d) => x + (d === 5 ? 0.1 : 0)));
    const sync = DenseIndex.open(store, { ivfMinCodes: 1_000, halfCopies: false });
    const want = queries.map((q) => sync.candidates(q, 64));
    sync.dispose();
    for (const pass of ['saved lists', 'trained']) {
      if (pass === 'trained') store.connectionForQueries().exec(`DROP TABLE ${IVF_TABLE}`);
      const background = DenseIndex.open(store, { ivfMinCodes: 1_000, halfCopies: false, background: true });
      let turns = 0;
      let done = false;
      void background.warmed.then(() => (done = true));
      while (!done) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        turns++;
      }
      // 5 vec0 chunks of codes, then the inverted file in turns of its own: opening (saved lists or training), finding each code's list, assigning, placing.
      assert.ok(turns >= 8, `${pass}: ready after ${turns} turns (6 when the inverted file opened in one turn)`);
      assert.ok(background.invertedFile, pass);
      if (pass === 'saved lists') queries.forEach((q, i) => assert.deepEqual(background.candidates(q, 64), want[i], `${pass}: query ${i}`));
      else assert.ok(queries.filter((q, i) => background.candidates(q, 64)![0] === want[i]![0]).length >= 38, `${pass}: same nearest code`);
      background.dispose();
    }
    store.close();
  });

  it('a search during a background open does not wait for the layout: the full scan answers, unless a record changed since the codes were read', async () => {
    const file = path.join(dir, 'early.sqlite');
    const store = MemoryStore.open(file);
    const vectors = clustered(5_000, 80, 19);
    fill(store, vectors, 'e');
    const queries = vectors.slice(0, 20).map((v) => v.map((x, d) => x + (d === 7 ? 0.1 : 0)));
    const scan = DenseIndex.open(store, { ivfMinCodes: Infinity, halfCopies: false });
    const want = queries.map((q) => scan.candidates(q, 64));
    scan.dispose();
    for (const pass of ['saved lists', 'trained']) {
      if (pass === 'trained') store.connectionForQueries().exec(`DROP TABLE IF EXISTS ${IVF_TABLE}`);
      // 2,000: more than the one chunk (1,024 codes) the open has read when the first search comes.
      const background = DenseIndex.open(store, { ivfMinCodes: 2_000, halfCopies: false, background: true });
      assert.equal(background.size, vectors.length);
      queries.forEach((q, i) => assert.deepEqual(background.candidates(q, 64), want[i], `${pass}: query ${i} answered by the full scan`));
      assert.ok(background.opening, `${pass}: the searches did not finish the open (the inverted file's layout)`);
      await background.ready;
      assert.ok(background.opening, `${pass}: ready once the codes are read, before the layout`);
      await background.warmed;
      assert.ok(!background.opening && background.invertedFile !== null, `${pass}: laid out in the background`);
      background.dispose();
    }
    // A record added after the open began: the first search finishes the open and catches up, as before.
    const background = DenseIndex.open(store, { ivfMinCodes: 1_000, halfCopies: false, background: true });
    const late = vectors[42].map((x, d) => x + (d === 3 ? 0.05 : 0));
    const norm = Math.hypot(...late);
    fill(store, [late.map((x) => x / norm)], 'late');
    const rid = Number(store.connectionForQueries().prepare("SELECT rid FROM records WHERE id = 'late0'").pluck().get());
    assert.ok(background.candidates(late, 8)!.includes(rid), 'the record added during the open is found');
    assert.ok(!background.opening && background.invertedFile !== null, 'that search finished the open');
    background.dispose();
    store.close();
  });

  it('an inverted file built in small steps equals one built at once', () => {
    const vectors = clustered(4_000, 40, 17);
    const stride = 16;
    const codes = new Uint8Array(vectors.length * stride);
    vectors.forEach((v, i) => codes.set(quantizeBinary(v), i * stride));
    const rids = vectors.map((_, i) => i + 1);
    const centroids = trainCentroids(codes, vectors.length, 1, 64, 5);
    const lists = new Int32Array(vectors.length).map((_, i) => (i % 3 === 0 ? -1 : i % 64));
    const whole = IvfCodeIndex.build(DIM, centroids, codes, rids, lists.slice());
    const builder = IvfCodeIndex.builder(DIM, centroids, codes, rids, lists.slice(), vectors.length, 100);
    let steps = 1;
    while (builder.step()) steps++;
    assert.ok(steps > 40, `${steps} steps`);
    assert.deepEqual(builder.index.assignment(), whole.assignment());
    for (let i = 0; i < 50; i++) {
      const q = codes.subarray(i * 7 * stride, (i * 7 + 1) * stride);
      assert.deepEqual(builder.index.nearest(q, 32), whole.nearest(q, 32), `query ${i}`);
    }
  });

  it('a code index built from the same codes answers like a scan of all of them when every list is probed', () => {
    const vectors = clustered(3_000, 40, 11);
    const codes = new Uint8Array(vectors.length * 16);
    vectors.forEach((v, i) => codes.set(quantizeBinary(v), i * 16));
    const rids = vectors.map((_, i) => i + 1);
    const index = IvfCodeIndex.build(DIM, trainCentroids(codes, vectors.length, 1, 40, 1), codes, rids, null);
    index.probeFraction = 1;
    const q = quantizeBinary(vectors[5]);
    const distance = (i: number) => {
      let d = 0;
      for (let b = 0; b < 16; b++) for (let x = codes[i * 16 + b] ^ q[b]; x; x >>= 1) d += x & 1;
      return d;
    };
    const want = rids.map((rid, i) => ({ rid, d: distance(i) })).sort((x, y) => x.d - y.d || x.rid - y.rid).slice(0, 50).map((x) => x.rid);
    assert.deepEqual(index.nearest(q, 50), want);
  });
});

describe('inverted file: codes scanned per candidate', () => {
  it(`scans IVF_MIN_SCAN_PER_CANDIDATE (${IVF_MIN_SCAN_PER_CANDIDATE}) codes per candidate asked: all of them from n / that many candidates on, fewer below`, () => {
    const n = 6_000;
    const vectors = clustered(n, 60, 23);
    const codes = new Uint8Array(n * 16);
    vectors.forEach((v, i) => codes.set(quantizeBinary(v), i * 16));
    const rids = vectors.map((_, i) => i + 1);
    const index = IvfCodeIndex.build(DIM, trainCentroids(codes, n, 1, 77, 3), codes, rids, null);
    const full = new BinaryCodeCache(DIM);
    rids.forEach((rid, i) => full.set(rid, codes.subarray(i * 16, (i + 1) * 16)));
    const all = Math.ceil(n / IVF_MIN_SCAN_PER_CANDIDATE);
    let differs = 0;
    for (let i = 0; i < 40; i++) {
      const q = quantizeBinary(vectors[(i * 131) % n].map((x, d) => x + (d % 5 === i % 5 ? 0.2 : 0)));
      const byDistance = (rs: number[]) => rs.map((rid) => distanceTo(codes, rid - 1, q)).sort((a, b) => a - b);
      // Every code scanned: the full scan's distances exactly (tied codes may differ: the IVF breaks ties by rid).
      assert.deepEqual(byDistance(index.nearest(q, all)), byDistance(full.nearest(q, all)), `query ${i}`);
      // A third as many candidates: a third of the codes scanned; some query misses one of the full scan's.
      const third = Math.floor(all / 3);
      if (byDistance(index.nearest(q, third)).join() !== byDistance(full.nearest(q, third)).join()) differs++;
    }
    assert.ok(differs > 0, 'below n / IVF_MIN_SCAN_PER_CANDIDATE candidates the inverted file probes only some lists');
  });
});

function distanceTo(codes: Uint8Array, row: number, q: Uint8Array): number {
  let d = 0;
  for (let b = 0; b < 16; b++) for (let x = codes[row * 16 + b] ^ q[b]; x; x >>= 1) d += x & 1;
  return d;
}
