import assert from 'node:assert/strict';
import { fuseRankings } from '../../../src/core/memory/search/fusion';

describe('fuseRankings', () => {
  it('ranks a key found by both lists above keys found by one at the same ranks', () => {
    const hits = fuseRankings(
      [{ key: 'a', score: 0.9 }, { key: 'b', score: 0.8 }],
      [{ key: 'c', score: 9 }, { key: 'b', score: 7 }],
      { denseWeight: 1, keywordWeight: 1, rankConstant: 60 },
    );
    assert.equal(hits[0].key, 'b');
    assert.deepEqual(hits.map((h) => h.key).sort(), ['a', 'b', 'c']);
  });

  it('de-duplicates and carries the original scores of each side', () => {
    const hits = fuseRankings([{ key: 'a', score: 0.5 }, { key: 'a', score: 0.4 }], [{ key: 'a', score: 3 }]);
    assert.equal(hits.length, 1);
    assert.equal(hits[0].denseScore, 0.5);
    assert.equal(hits[0].keywordScore, 3);
  });

  it('sorts unsorted inputs by score and honours the weights', () => {
    const dense = [{ key: 'low', score: 0.1 }, { key: 'high', score: 0.9 }];
    const keyword = [{ key: 'kw', score: 5 }];
    assert.deepEqual(fuseRankings(dense, keyword, { keywordWeight: 0 }).map((h) => h.key).slice(0, 2), ['high', 'low']);
    assert.equal(fuseRankings(dense, keyword, { denseWeight: 0.1, keywordWeight: 1 })[0].key, 'kw');
  });

  it('works keyword-only (empty dense list) and respects limit', () => {
    const keyword = [{ key: 'x', score: 3 }, { key: 'y', score: 2 }, { key: 'z', score: 1 }];
    const hits = fuseRankings([], keyword, { limit: 2 });
    assert.deepEqual(hits.map((h) => h.key), ['x', 'y']);
    assert.equal(hits[0].denseScore, undefined);
    assert.ok(hits[0].score > hits[1].score);
  });

  it('rejects negative weights', () => {
    assert.throws(() => fuseRankings([], [], { keywordWeight: -1 }), RangeError);
  });
});
