import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import { DenseIndex } from '../../../src/core/memory/dense/dense-index';
import { HalfVectorCache } from '../../../src/core/memory/dense/half-vector-cache';
import { Int8VectorCache } from '../../../src/core/memory/dense/int8-vector-cache';
import { VECTOR_COPY_FORMS } from '../../../src/core/memory/dense/vector-copies';
import { copiesFor } from '../../../src/core/memory/dense/vector-copy-choice';
import {
  budgetFromCommandLine,
  BUDGET_SHARES,
  DEFAULT_MEMORY_BUDGET_MB,
  DEFAULT_VECTOR_COPY_FORM,
  KEYWORD_CACHE_BYTES_PER_POSTING,
  keywordCachePostings,
  MAX_MEMORY_BUDGET_MB,
  MEMORY_BUDGET_ENV,
  memoryBudget,
  MIN_MEMORY_BUDGET_MB,
  SQLITE_CONNECTIONS,
} from '../../../src/core/memory/memory-budget';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { parseSettings } from '../../../src/core/settings';
import { mcpServerCommand } from '../../../src/core/tools/mcp-server-command';
import { sampleRecord, unitVector } from '../../support/records';

const DIM = 64;

function normalised(v: Float32Array): Float32Array {
  let norm = 0;
  for (const x of v) norm += x * x;
  return v.map((x) => x / Math.sqrt(norm));
}

/** Near-duplicate clusters (ordered only by 1e-6 nudges) and spread vectors, as in dense-rescoring.test.ts. */
function testVectors(): Float32Array[] {
  const bases = Array.from({ length: 12 }, (_, i) => unitVector(500 + i, DIM));
  const clustered = Array.from({ length: 600 }, (_, i) => {
    const v = Float32Array.from(bases[i % bases.length]);
    v[i % DIM] += (i % 5) * 1e-6;
    return normalised(v);
  });
  return [...clustered, ...Array.from({ length: 600 }, (_, i) => unitVector(9000 + i, DIM))];
}

const expectError = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(fn, (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT') && pattern.test(e.message));

describe('memory budget (agentMemory.memoryBudgetMB)', () => {
  describe('the split', () => {
    it('gives every share its fraction and never more than the budget in all', () => {
      for (const mb of [MIN_MEMORY_BUDGET_MB, 100, DEFAULT_MEMORY_BUDGET_MB, 1000, MAX_MEMORY_BUDGET_MB]) {
        const b = memoryBudget(mb);
        const total = b.vectorCopyBytes + b.keywordCacheBytes + SQLITE_CONNECTIONS * (b.sqlitePageCacheKiB * 1024 + b.sqliteMmapBytes);
        assert.ok(total <= mb * 1e6, `${mb} MB: ${total} bytes`);
        assert.ok(total > mb * 1e6 - 4096, `${mb} MB: the shares use the budget (${total} bytes)`);
        assert.equal(b.megabytes, mb);
        assert.equal(b.vectorCopyBytes, Math.floor(mb * 1e6 * BUDGET_SHARES.vectorCopies));
        assert.equal(b.vectorCopyForm, DEFAULT_VECTOR_COPY_FORM);
        assert.equal(b.keywordCacheBytes, Math.floor(mb * 1e6 * BUDGET_SHARES.keywordCaches));
      }
      const shares = Object.values(BUDGET_SHARES).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(shares - 1) < 1e-12, `the shares sum to ${shares}`);
    });

    it('by default holds copies of every record of a 100k memory at 384 dimensions: int8 there (float16 would hold half), float16 at 10k or at 160 MB', () => {
      const b = memoryBudget();
      assert.equal(b.megabytes, DEFAULT_MEMORY_BUDGET_MB);
      assert.equal(b.vectorCopyForm, 'auto');
      const at100k = copiesFor(b.vectorCopyForm, 384, b.vectorCopyBytes, 100_000);
      assert.equal(at100k.form, 'int8');
      assert.ok(at100k.capacity >= 100_000, `int8 capacity ${at100k.capacity}`);
      assert.equal(copiesFor(b.vectorCopyForm, 384, b.vectorCopyBytes, 10_000).form, 'float16');
      assert.equal(copiesFor(b.vectorCopyForm, 384, memoryBudget(160).vectorCopyBytes, 100_000).form, 'float16');
      assert.equal(copiesFor('int8', 384, b.vectorCopyBytes, 10).form, 'int8');
      assert.equal(copiesFor('float16', 384, b.vectorCopyBytes, 100_000).form, 'float16');
      const halves = new HalfVectorCache(384, { maxBytes: memoryBudget(DEFAULT_MEMORY_BUDGET_MB, 'float16').vectorCopyBytes }).capacity;
      assert.ok(halves >= 50_000 && halves < 100_000, `default float16 capacity ${halves}`);
      assert.ok(new HalfVectorCache(384, { maxBytes: memoryBudget(160, 'float16').vectorCopyBytes }).capacity >= 100_000);
      assert.equal(keywordCachePostings(b), Math.floor(b.keywordCacheBytes / KEYWORD_CACHE_BYTES_PER_POSTING));
    });

    it('refuses a budget outside its bounds, saying what to give', () => {
      expectError(() => memoryBudget(MIN_MEMORY_BUDGET_MB - 1), /whole number of MB from 16 to 65536/);
      expectError(() => memoryBudget(100.5), /100\.5 MB is not a memory budget/);
    });

    it('comes from --memory-budget-mb, else the environment, else the default', () => {
      assert.equal(budgetFromCommandLine(64, { [MEMORY_BUDGET_ENV]: '500' }).megabytes, 64);
      assert.equal(budgetFromCommandLine(undefined, { [MEMORY_BUDGET_ENV]: '500' }).megabytes, 500);
      assert.equal(budgetFromCommandLine(undefined, {}).megabytes, DEFAULT_MEMORY_BUDGET_MB);
      expectError(() => budgetFromCommandLine(undefined, { [MEMORY_BUDGET_ENV]: 'lots' }), new RegExp(`^${MEMORY_BUDGET_ENV}=lots is not a memory budget`));
      expectError(() => budgetFromCommandLine(4, {}), /^--memory-budget-mb 4 is not a memory budget/);
    });

    it('is a setting with the same default, and reaches the MCP server the editor starts', () => {
      assert.equal(parseSettings(() => undefined).settings.memoryBudgetMB, DEFAULT_MEMORY_BUDGET_MB);
      const { settings, problems } = parseSettings((key) => (key === 'memoryBudgetMB' ? 8 : undefined));
      assert.equal(settings.memoryBudgetMB, DEFAULT_MEMORY_BUDGET_MB);
      assert.deepEqual(problems, ['agentMemory.memoryBudgetMB: must be at least 16 (using the default)']);
      const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { default: unknown; minimum: number; maximum: number }> } } };
      const property = pkg.contributes.configuration.properties['agentMemory.memoryBudgetMB'];
      assert.deepEqual([property.default, property.minimum, property.maximum], [DEFAULT_MEMORY_BUDGET_MB, MIN_MEMORY_BUDGET_MB, MAX_MEMORY_BUDGET_MB]);
      assert.deepEqual(mcpServerCommand('/ext', '/m.sqlite', 'strict', '/bin/node', false, 300).args.slice(-2), ['--memory-budget-mb', '300']);
    });
  });

  describe('the vector copies within their cap', () => {
    it('hold at most maxBytes (measured) and refuse new records when full, replacing held ones', () => {
      const perRecord = DIM * 2 + 8;
      const cap = 100 * perRecord + perRecord - 1;
      const cache = new HalfVectorCache(DIM, { maxBytes: cap });
      assert.equal(cache.capacity, 100);
      cache.reserve(10_000);
      assert.ok(cache.bytes <= cap, `reserve stays within the cap: ${cache.bytes} bytes`);
      for (let rid = 1; rid <= 150; rid++) assert.equal(cache.set(rid, unitVector(rid, DIM)), rid <= 100, `rid ${rid}`);
      assert.equal(cache.size, 100);
      assert.ok(cache.full);
      assert.ok(cache.bytes <= cap, `${cache.bytes} bytes held under a cap of ${cap}`);
      assert.equal(cache.bytes, 100 * perRecord);
      assert.equal(cache.set(50, unitVector(7, DIM)), true, 'a held copy is replaced');
      cache.delete(3);
      assert.equal(cache.set(120, unitVector(120, DIM)), true, 'a freed slot takes a new record');
      assert.equal(cache.has(120), true);
      assert.equal(cache.has(121), false);
      assert.equal(new HalfVectorCache(DIM, { maxBytes: 0 }).set(1, unitVector(1, DIM)), false);
      // Uncapped, as before: grows past the count above.
      const open = new HalfVectorCache(DIM);
      for (let rid = 1; rid <= 150; rid++) open.set(rid, unitVector(rid, DIM));
      assert.equal(open.size, 150);
    });

    for (const form of VECTOR_COPY_FORMS) {
      it(`a dense search with ${form} copies capped below the record count ranks as the uncapped one (real store), reading the rest from SQLite`, () => {
        const store = MemoryStore.open(':memory:');
        try {
          const vectors = testVectors();
          store.add(vectors.map((_, i) => sampleRecord({ id: `v${i}` })), { trigger: 'user', embeddings: vectors, embedderId: 'random-64' });
          const full = DenseIndex.open(store, { copyForm: form });
          const perRecord = (form === 'int8' ? new Int8VectorCache(DIM) : new HalfVectorCache(DIM)).bytesPerRecord;
          const cap = 300 * perRecord;
          const capped = DenseIndex.open(store, { vectorCopyBytes: cap, copyForm: form });
          assert.deepEqual([full.vectorCopies.form, full.vectorCopies.records], [form, vectors.length]);
          assert.equal(capped.vectorCopies.records, 300);
          assert.ok(capped.vectorCopies.bytes <= cap, `${capped.vectorCopies.bytes} bytes under a cap of ${cap}`);
          for (let qi = 0; qi < 40; qi++) {
            const q = qi % 2 ? unitVector(20_000 + qi, DIM) : normalised(Float32Array.from(vectors[qi * 7], (x, d) => x + (d === qi % DIM ? 1e-3 : 0)));
            const want = full.search(q, 16, 128)!;
            const got = capped.search(q, 16, 128)!;
            assert.deepEqual(got.map((h) => h.rid), want.map((h) => h.rid), `query ${qi}`);
            // Both within their copies' bounds of the exact cosine (int8: at most √dim / 254 for unit vectors).
            got.forEach((h, i) => assert.ok(Math.abs(h.similarity - want[i].similarity) <= (form === 'int8' ? (2 * Math.sqrt(DIM)) / 254 : 2 ** -9), `query ${qi} place ${i}`));
          }
          assert.ok(capped.rescoreReads > full.rescoreReads + 40 * 32, `capped read ${capped.rescoreReads} vectors, uncapped ${full.rescoreReads}`);
        } finally {
          store.close();
        }
      });
    }
  });

  describe('the automatic form', () => {
    it('keeps float16 copies while the cap holds them all, and refills as int8 when the memory outgrows them (rankings unchanged)', () => {
      const store = MemoryStore.open(':memory:');
      try {
        const vectors = testVectors();
        const first = vectors.slice(0, 400);
        store.add(first.map((_, i) => sampleRecord({ id: `v${i}` })), { trigger: 'user', embeddings: first, embedderId: 'random-64' });
        const cap = 1200 * (DIM + 16); // float16: 705 records, int8: all 1200
        const auto = DenseIndex.open(store, { vectorCopyBytes: cap });
        assert.deepEqual([auto.vectorCopies.form, auto.vectorCopies.records], ['float16', 400]);
        const rest = vectors.slice(400);
        store.add(rest.map((_, i) => sampleRecord({ id: `v${400 + i}` })), { trigger: 'user', embeddings: rest, embedderId: 'random-64' });
        const exact = DenseIndex.open(store, { halfCopies: false });
        for (let qi = 0; qi < 20; qi++) {
          const q = unitVector(30_000 + qi, DIM);
          assert.deepEqual(auto.search(q, 16, 128)!.map((h) => h.rid), exact.search(q, 16, 128)!.map((h) => h.rid), `query ${qi}`);
        }
        assert.deepEqual([auto.vectorCopies.form, auto.vectorCopies.records], ['int8', vectors.length]);
        assert.ok(auto.vectorCopies.bytes <= cap);
      } finally {
        store.close();
      }
    });
  });

  describe('an open memory', () => {
    let dir: string;
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-budget-'))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("sizes each SQLite connection's page cache and memory map from the budget (the default without one)", () => {
      const file = path.join(dir, 'm.sqlite');
      const budget = memoryBudget(40);
      const store = MemoryStore.open(file, { memoryBudget: budget });
      try {
        const db = store.connectionForQueries();
        assert.equal(db.pragma('cache_size', { simple: true }), -budget.sqlitePageCacheKiB);
        assert.equal(db.pragma('mmap_size', { simple: true }), budget.sqliteMmapBytes);
      } finally {
        store.close();
      }
      const plain = MemoryStore.open(file);
      try {
        assert.equal(plain.connectionForQueries().pragma('cache_size', { simple: true }), -memoryBudget().sqlitePageCacheKiB);
      } finally {
        plain.close();
      }
    });

    it('caps the search caches by the budget it is given', () => {
      const store = MemoryStore.open(':memory:');
      try {
        const vectors = Array.from({ length: 50 }, (_, i) => unitVector(i + 1, DIM));
        store.add(vectors.map((_, i) => sampleRecord({ id: `r${i}` })), { trigger: 'user', embeddings: vectors, embedderId: 'random-64' });
        const budget = memoryBudget(MIN_MEMORY_BUDGET_MB);
        const search = HybridSearch.open(store, { memoryBudget: budget, file: null });
        try {
          assert.equal(search.dense.size, 50);
          // 50 records fit the share's float16 copies many times over: 'auto' keeps float16.
          assert.deepEqual([search.dense.vectorCopies.form, search.dense.vectorCopies.capacity], ['float16', Math.floor(budget.vectorCopyBytes / (DIM * 2 + 8))]);
          const defaults = HybridSearch.open(store, { file: null });
          assert.equal(defaults.dense.vectorCopies.capacity, Math.floor(memoryBudget().vectorCopyBytes / (DIM * 2 + 8)));
          defaults.close();
          const int8 = HybridSearch.open(store, { file: null, memoryBudget: memoryBudget(MIN_MEMORY_BUDGET_MB, 'int8') });
          assert.deepEqual([int8.dense.vectorCopies.form, int8.dense.vectorCopies.capacity], ['int8', Math.floor(budget.vectorCopyBytes / (DIM + 16))]);
          assert.equal(int8.dense.vectorCopies.records, 50);
          int8.close();
        } finally {
          search.close();
        }
      } finally {
        store.close();
      }
    });
  });
});
