import { strict as assert } from 'node:assert';
import { selectTop } from '../../../src/core/memory/keyword/keyword-select';
import { seededRandom } from '../../../src/core/random';

describe('keyword top-k selection', () => {
  it('selectTop returns a stable sort\'s first `limit` items (ties in input order), for shallow and deep tops', () => {
    const random = seededRandom(41);
    let trials = 0;
    for (const n of [0, 1, 2, 7, 100, 3_000]) {
      for (const limit of [0, 1, 4, 32, 2_048, 5_000]) {
        for (const distinct of [1, 3, 50, 1_000_000]) {
          // Items are ids; their scores come from a few values (many ties) or from many.
          const items = Array.from({ length: n }, (_, i) => (i * 7919) % 10_007);
          const score = new Map(items.map((id) => [id, Math.floor(random() * distinct)]));
          const better = (a: number, b: number) => score.get(b)! - score.get(a)!;
          const want = [...items].sort(better).slice(0, Math.max(0, limit));
          assert.deepEqual(selectTop(items, limit, better), want, `n ${n} limit ${limit} distinct ${distinct}`);
          trials++;
        }
      }
    }
    assert.equal(trials, 144);
  });

  it('selectTop with a total order (the scorer\'s: score, field, document order) equals a full sort whatever the input order', () => {
    const random = seededRandom(7);
    const n = 20_000;
    const scores = Float64Array.from({ length: n }, () => Math.round(random() * 40) / 8);
    const field = Uint8Array.from({ length: n }, () => (random() < 0.5 ? 0 : 1));
    const better = (a: number, b: number) => scores[b] - scores[a] || field[a] - field[b] || a - b;
    const shuffled = Array.from({ length: n }, (_, i) => i).sort(() => random() - 0.5);
    for (const limit of [4, 32, 4_096]) assert.deepEqual(selectTop(shuffled, limit, better), [...shuffled].sort(better).slice(0, limit), `limit ${limit}`);
  });
});
