import { strict as assert } from 'node:assert';
import { PROGRAM_TABLE_LIMIT, ProgramIds } from '../../../src/core/memory/search/program-ids';
import { QuestionShapes } from '../../../src/core/memory/search/rerank';

describe('ProgramIds (program identities by rid)', () => {
  it('holds 53-bit identities exactly by rid, undefined for a key never held or gone', () => {
    const ids = new ProgramIds();
    const big = Number.MAX_SAFE_INTEGER;
    ids.set(1, big);
    ids.set(5000, 0);
    ids.set(3, big - 1);
    assert.equal(ids.get(1), big);
    assert.equal(ids.get(3), big - 1);
    assert.equal(ids.get(5000), 0);
    for (const key of [0, 2, 4999, 5001, 1 << 20]) assert.equal(ids.get(key), undefined);
    ids.delete(1);
    ids.delete(2);
    assert.equal(ids.get(1), undefined);
    assert.equal(ids.get(3), big - 1);
    ids.set(1, 7);
    assert.equal(ids.get(1), 7);
    ids.clear();
    assert.equal(ids.get(1), undefined);
    assert.equal(ids.get(3), undefined);
  });

  it('keeps keys that are no small non-negative integer apart, with the same answers', () => {
    const ids = new ProgramIds();
    const keys = [-1, 2.5, PROGRAM_TABLE_LIMIT, Number.MAX_SAFE_INTEGER];
    keys.forEach((key, i) => ids.set(key, 100 + i));
    keys.forEach((key, i) => assert.equal(ids.get(key), 100 + i));
    assert.equal(ids.get(2), undefined);
    ids.delete(PROGRAM_TABLE_LIMIT);
    assert.equal(ids.get(PROGRAM_TABLE_LIMIT), undefined);
    assert.equal(ids.get(-1), 100);
  });

  it('gives QuestionShapes the same identity for a record whatever its rid, and none once it went', () => {
    const shapes = new QuestionShapes();
    const code = 'answer = sql("select 1")';
    for (const rid of [1, 70_000, PROGRAM_TABLE_LIMIT + 3]) shapes.set(rid, 'q', code, 'python');
    assert.equal(shapes.programId(70_000), shapes.programId(1));
    assert.equal(shapes.programId(PROGRAM_TABLE_LIMIT + 3), shapes.programId(1));
    shapes.delete(70_000);
    assert.equal(shapes.programId(70_000), undefined);
    shapes.set(70_000, 'q', 'answer = sql("select 2")', 'python');
    assert.notEqual(shapes.programId(70_000), shapes.programId(1));
    shapes.clear();
    assert.equal(shapes.programId(1), undefined);
  });
});
