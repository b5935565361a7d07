import { strict as assert } from 'node:assert';
import type { KeywordHit } from '../../src/core/memory/keyword/keyword-index';

/** Relative tolerance of keyword scores compared with a reference engine. */
export const KEYWORD_SCORE_TOLERANCE = 1e-9;

/**
 * Same hits as the reference: scores within 1e-9 (relative), records in the same order except within a run of
 * scores equal to 1e-9 (compared as sets; the last run may be cut by the limit differently, so only its scores count).
 */
export function assertSameHits(got: KeywordHit[], want: KeywordHit[], label: string): void {
  assert.equal(got.length, want.length, `${label}: ${got.length} hits, the reference ${want.length}`);
  const near = (a: number, b: number) => Math.abs(a - b) <= KEYWORD_SCORE_TOLERANCE * Math.max(1, Math.abs(b));
  got.forEach((h, i) => assert.ok(near(h.score, want[i].score), `${label}: hit ${i} scores ${h.score}, the reference ${want[i].score}`));
  for (let i = 0; i < want.length; ) {
    let j = i + 1;
    while (j < want.length && near(want[j].score, want[i].score)) j++;
    if (j < want.length) assert.deepEqual(new Set(got.slice(i, j).map((h) => h.rid)), new Set(want.slice(i, j).map((h) => h.rid)), `${label}: hits ${i}..${j - 1}`);
    i = j;
  }
}
