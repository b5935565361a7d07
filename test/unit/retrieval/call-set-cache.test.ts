import { strict as assert } from 'node:assert';
import { agreeOnCalls, programsReader, uncachedCallSets, type AgreementProgram } from '../../../src/core/memory/search/call-agreement';
import { CALL_SET_CACHE_ENTRY_BYTES, CallSetCache, callSetCacheOf } from '../../../src/core/memory/search/call-set-cache';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';

/** A reader of the store's programs that counts the keys it was asked for. */
function countingReader(store: MemoryStore): { read: (keys: readonly string[]) => Map<string, AgreementProgram>; asked: string[] } {
  const inner = programsReader(store.connectionForQueries());
  const asked: string[] = [];
  return { asked, read: (keys) => (asked.push(...keys), inner(keys)) };
}

describe('call-set cache (call-set-cache.ts)', () => {
  it('reads a record\'s program once, then again after its code is edited (the change log), and maps a record no longer active to null', () => {
    const store = MemoryStore.open(':memory:');
    try {
      store.add([sampleRecord({ id: 'a', code: 's.split(",")' }), sampleRecord({ id: 'b', code: 'json.loads(t)' })], { trigger: 'user' });
      const db = store.connectionForQueries();
      const [a, b] = [String(store.ridOf('a')!), String(store.ridOf('b')!)];
      const cache = new CallSetCache(db);
      const { read, asked } = countingReader(store);
      assert.equal(cache.callSets([a, b], read).get(a)?.calls, 'split');
      assert.equal(cache.callSets([a, b], read).get(b)?.calls, 'loads');
      assert.deepEqual(asked, [a, b], 'the second use reads nothing');
      db.prepare('UPDATE records SET code = ? WHERE rid = ?').run('df.groupby("k").agg(sum)', Number(a));
      const after = cache.callSets([a, b], read);
      assert.equal(after.get(a)?.calls, 'agg,groupby', 'the edited record has its new call set');
      assert.deepEqual(asked, [a, b, a], 'only the edited record is read again');
      db.prepare("UPDATE records SET status = 'deleted' WHERE rid = ?").run(Number(b));
      assert.equal(cache.callSets([a, b], read).get(b), null, 'a deleted record takes no part');
      assert.equal(cache.size, 1);
    } finally {
      store.close();
    }
  });

  it('holds at most its capacity (the oldest filled dropped first) and counts its bytes; one cache per connection', () => {
    const store = MemoryStore.open(':memory:');
    try {
      store.add(['a(1)', 'b(2)', 'c(3)'].map((code, i) => sampleRecord({ id: `r${i}`, code })), { trigger: 'user' });
      const db = store.connectionForQueries();
      const rids = [0, 1, 2].map((i) => String(store.ridOf(`r${i}`)!));
      const cache = new CallSetCache(db, 2);
      const { read, asked } = countingReader(store);
      cache.callSets(rids, read);
      assert.equal(cache.size, 2);
      assert.ok(cache.bytes >= 2 * CALL_SET_CACHE_ENTRY_BYTES);
      asked.length = 0;
      cache.callSets([rids[0]], read);
      assert.deepEqual(asked, [rids[0]], 'the oldest was dropped');
      assert.equal(callSetCacheOf(db), callSetCacheOf(db));
    } finally {
      store.close();
    }
  });

  it('gives agreeOnCalls the same answers as the uncached call sets, and exits early on one call set (its best record first)', () => {
    const store = MemoryStore.open(':memory:');
    try {
      const codes = ['x[::-1]', 'answer = sql("select 1")', 'answer = sql("select 2")', 'a.foo(x)', 'b.bar(y)', 'c.bar(z)'];
      store.add(codes.map((code, i) => sampleRecord({ id: `r${i}`, code })), { trigger: 'user' });
      const keys = codes.map((_, i) => String(store.ridOf(`r${i}`)!));
      const read = programsReader(store.connectionForQueries());
      const cache = new CallSetCache(store.connectionForQueries());
      for (const picked of [[0, 1, 2], [3, 4, 5], [0, 4, 3, 5], [1, 2]]) {
        const fused = picked.map((p, i) => ({ key: keys[p], score: 1 / (6 + i) }));
        const dense = new Map(fused.map((h, i) => [h.key, i + 1]));
        for (let pass = 0; pass < 2; pass++) {
          assert.deepEqual(agreeOnCalls(fused, [dense], 'do it', (k) => cache.callSets(k, read)), agreeOnCalls(fused, [dense], 'do it', uncachedCallSets(read)), `${picked.join(',')} pass ${pass}`);
        }
      }
      const one = [0, 1, 2].map((p, i) => ({ key: keys[p], score: 1 / (6 + i) }));
      assert.deepEqual(agreeOnCalls(one, [new Map(one.map((h, i) => [h.key, i + 1]))], 'q', uncachedCallSets(read)).map((h) => h.key), [keys[1], keys[0], keys[2]]);
    } finally {
      store.close();
    }
  });

  it('HybridSearch sees a record\'s edited code at the next search (the agreement it made is undone)', () => {
    const store = MemoryStore.open(':memory:');
    try {
      const vectorOf = (i: number): Float32Array => {
        const v = new Float32Array(8);
        v[0] = 1;
        v[1] = 0.1 * i;
        const n = Math.hypot(v[0], v[1]);
        return v.map((x) => x / n);
      };
      const codes = ['a.foo(x)', 'b.bar(y)', 'c.bar(z)', 'qux(1)'];
      store.add(codes.map((code, i) => sampleRecord({ id: `k${i}`, question: `unrelated words ${'abcd'[i]}`, code })), { trigger: 'user', embeddings: codes.map((_, i) => vectorOf(i)), embedderId: 'test-8' });
      const search = HybridSearch.open(store, { file: null });
      try {
        const query = { text: 'no keyword matches here', vector: vectorOf(0) };
        assert.deepEqual(search.search(query, 4).map((h) => h.recordId), ['k1', 'k0', 'k2', 'k3']);
        store.connectionForQueries().prepare('UPDATE records SET code = ? WHERE rid = ?').run('b.zap(y)', store.ridOf('k1')!);
        assert.deepEqual(search.search(query, 4).map((h) => h.recordId), ['k0', 'k1', 'k2', 'k3'], 'k1 no longer agrees with k2');
        assert.deepEqual(search.search(query, 4, { rerank: true }).map((h) => h.recordId).slice(0, 1), ['k0']);
      } finally {
        search.close();
      }
    } finally {
      store.close();
    }
  });
});
