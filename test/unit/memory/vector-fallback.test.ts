import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAgentMemoryError } from '../../../src/core/errors';
import type { Logger } from '../../../src/core/logger';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import {
  assertNodeApi,
  nativeModuleError,
  nativeTarget,
  resetVectorExtensionWarning,
  sqliteVecCandidates,
  sqliteVecTarget,
  SQLITE_VEC_ENV,
  vectorExtensionOf,
  vectorExtensionStatus,
} from '../../../src/core/memory/sqlite/native-sqlite';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { dot, VEC_BITS_STALE_KEY } from '../../../src/core/memory/dense/vector-index';
import { sampleRecord, unitVector } from '../../support/records';

const DIM = 64;

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const drop = () => undefined;
  return { warnings, trace: drop, debug: drop, info: drop, error: drop, warn: (m: string) => warnings.push(m) };
}

/** Runs `fn` with sqlite-vec forced off (as on a platform it publishes no binary for). */
function withoutExtension<T>(fn: () => T): T {
  const before = process.env[SQLITE_VEC_ENV];
  process.env[SQLITE_VEC_ENV] = 'none';
  try {
    return fn();
  } finally {
    if (before === undefined) delete process.env[SQLITE_VEC_ENV];
    else process.env[SQLITE_VEC_ENV] = before;
  }
}

function exactTop(vectors: Float32Array[], ids: string[], q: Float32Array, k: number): string[] {
  return vectors.map((v, i) => ({ id: ids[i], cos: dot(q, v) })).filter((e) => e.id !== undefined).sort((a, b) => b.cos - a.cos).slice(0, k).map((e) => e.id);
}

function vecBitsRows(file: string): number {
  const store = MemoryStore.open(file);
  try {
    return (store.connectionForQueries().prepare('SELECT COUNT(*) AS n FROM vec_bits').get() as { n: number }).n;
  } finally {
    store.close();
  }
}

describe('sqlite-vec by explicit path, and the in-process fallback without it', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  const vectors = Array.from({ length: 300 }, (_, i) => unitVector(i + 1, DIM));
  const ids = vectors.map((_, i) => `v${i}`);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vec-fallback-'));
    file = path.join(dir, 'm.sqlite');
    resetVectorExtensionWarning();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads the loadable of this platform from an explicit path', () => {
    const store = MemoryStore.open(':memory:');
    const status = vectorExtensionOf(store.connectionForQueries());
    assert.equal(status.loaded, true, status.reason);
    assert.ok(status.file && path.isAbsolute(status.file) && fs.existsSync(status.file), status.file);
    assert.ok(sqliteVecCandidates(sqliteVecTarget() ?? 'none').includes(status.file));
    store.close();
  });

  it('without sqlite-vec: opens, stores and answers dense and hybrid queries exactly, with one log line', () => {
    const logger = recordingLogger();
    withoutExtension(() => {
      const store = MemoryStore.open(file, { logger });
      assert.equal(store.vectors.native, false);
      store.add(ids.map((id) => sampleRecord({ id, question: `question ${id}` })), { trigger: 'user', embeddings: vectors, embedderId: `random-${DIM}` });
      const search = HybridSearch.open(store);
      for (let qi = 0; qi < 10; qi++) {
        const q = unitVector(10_000 + qi, DIM);
        const got = search.search({ text: '', vector: q }, 4, { mode: 'vector' });
        assert.deepEqual(got.map((h) => h.recordId), exactTop(vectors, ids, q, 4));
        got.forEach((h) => assert.ok(Math.abs((h.inputSimilarity ?? NaN) - dot(q, vectors[ids.indexOf(h.recordId)])) < 1e-6));
      }
      const hybrid = search.answer({ text: 'question v7', vector: vectors[7] }, 4);
      assert.ok(hybrid.sides.includes('dense'));
      assert.equal(hybrid.hits[0].recordId, 'v7');
      // A deleted record leaves the dense side at once.
      store.transition(['v7'], 'delete', { trigger: 'user' });
      assert.ok(!search.search({ text: '', vector: vectors[7] }, 4, { mode: 'vector' }).some((h) => h.recordId === 'v7'));
      search.close();
      // A second memory opened in the same process: still one warning.
      MemoryStore.open(':memory:', { logger }).close();
      store.close();
    });
    assert.equal(logger.warnings.length, 1, logger.warnings.join('\n'));
    assert.match(logger.warnings[0], new RegExp(`sqlite-vec is not available on ${nativeTarget()} \\(${SQLITE_VEC_ENV}=none\\): dense retrieval runs in-process`));
    assert.equal(vectorExtensionStatus()?.loaded, false);
  });

  it('a memory written without sqlite-vec gets its vec0 index rebuilt when opened with it', () => {
    let store = MemoryStore.open(file);
    store.add(ids.slice(0, 100).map((id) => sampleRecord({ id })), { trigger: 'user', embeddings: vectors.slice(0, 100), embedderId: `random-${DIM}` });
    store.close();
    withoutExtension(() => {
      store = MemoryStore.open(file);
      store.add(ids.slice(100).map((id) => sampleRecord({ id })), { trigger: 'user', embeddings: vectors.slice(100), embedderId: `random-${DIM}` });
      store.transition(['v3', 'v150'], 'delete', { trigger: 'user' });
      assert.equal(store.getMeta(VEC_BITS_STALE_KEY), '1');
      // The stale vec0 chunks are not used: the deleted v3 is gone, the new v200 found.
      const search = HybridSearch.open(store);
      assert.ok(!search.search({ text: '', vector: vectors[3] }, 4, { mode: 'vector' }).some((h) => h.recordId === 'v3'));
      assert.equal(search.search({ text: '', vector: vectors[200] }, 1, { mode: 'vector' })[0].recordId, 'v200');
      search.close();
      store.close();
    });
    assert.equal(vecBitsRows(file), 298);
    store = MemoryStore.open(file);
    assert.equal(store.getMeta(VEC_BITS_STALE_KEY), undefined);
    assert.equal(store.vectors.native, true);
    const q = unitVector(77_777, DIM);
    const live = ids.filter((id) => id !== 'v3' && id !== 'v150');
    const liveVectors = live.map((id) => vectors[ids.indexOf(id)]);
    assert.deepEqual(store.vectors.candidates(q, 298).length, 298);
    const search = HybridSearch.open(store);
    assert.deepEqual(search.search({ text: '', vector: q }, 4, { mode: 'vector' }).map((h) => h.recordId), exactTop(liveVectors, live, q, 4));
    search.close();
    store.close();
  });

  it('names the platform and what to do when no better-sqlite3 binary fits', () => {
    const unknown = nativeModuleError(new Error('Cannot find module'), 'linux-riscv64');
    assert.ok(isAgentMemoryError(unknown, 'NATIVE_MODULE'));
    assert.match(unknown.message, /on this platform \(linux-riscv64\)/);
    assert.match(unknown.message, /ships no SQLite binary for linux-riscv64.*node-gyp rebuild/);
    const missing = nativeModuleError(new Error('boom'), 'win32-arm64');
    assert.match(missing.message, /prebuilds\/win32-arm64\.node/);
    assert.equal(missing.details?.supported, true);
  });

  it('refuses a runtime older than Node-API 10 with a typed error before the binary can crash it', () => {
    assert.throws(
      () => assertNodeApi({ napi: '9', node: '20.20.2' }),
      (e: unknown) => isAgentMemoryError(e, 'NATIVE_MODULE') && /needs Node ≥ 22\.14 \(Node-API 10\).*this is Node 20\.20\.2 \(Node-API 9\)/.test(e.message),
    );
    assert.throws(() => assertNodeApi({ node: '18.0.0' }), /Node-API unknown/);
    assert.doesNotThrow(() => assertNodeApi({ napi: '10', node: '22.14.0' }));
    assert.doesNotThrow(() => assertNodeApi(), 'this runtime (Node 22 or 24) is new enough');
  });

  it('maps platforms to the published binaries (none for musl or win32-arm64)', () => {
    assert.equal(nativeTarget('linux', 'x64', true), 'linuxmusl-x64');
    assert.equal(nativeTarget('win32', 'arm64', false), 'win32-arm64');
    assert.equal(sqliteVecTarget('linux', 'x64', true), null);
    assert.equal(sqliteVecTarget('win32', 'arm64', false), null);
    assert.equal(sqliteVecTarget('win32', 'x64', false), 'windows-x64');
    assert.equal(sqliteVecTarget('darwin', 'arm64', false), 'darwin-arm64');
    assert.ok(sqliteVecCandidates('windows-x64', '/a/b').includes(path.join('/a', 'native', 'sqlite-vec-windows-x64', 'vec0.dll')));
  });
});
