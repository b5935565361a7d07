import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sequenceMatcherMatches } from '../../../../src/core/similarity/code';

interface Vector {
  a: string;
  b: string;
  autojunk: number;
  noAutojunk: number;
}

// Expected values were produced by CPython 3.11.7's difflib (see the fixture's `generator` field).
const vectors = (JSON.parse(fs.readFileSync(path.join(__dirname, 'fixtures', 'difflib-vectors.json'), 'utf8')) as { cases: Vector[] }).cases;

describe('sequenceMatcherMatches (difflib port)', () => {
  it('matches the difflib documentation example', () => {
    // SequenceMatcher(None, "abxcd", "abcd").get_matching_blocks() -> sizes 2 + 2
    assert.equal(sequenceMatcherMatches([...'abxcd'], [...'abcd']), 4);
    assert.equal(sequenceMatcherMatches([], [...'abc']), 0);
    assert.equal(sequenceMatcherMatches([...'abc'], []), 0);
  });

  it('reproduces CPython on random sequences with autojunk (len(b) >= 200 included)', () => {
    const bigB = vectors.filter((v) => v.b.length >= 200);
    assert.ok(bigB.length >= 5, 'fixture exercises the autojunk threshold');
    for (const v of vectors) {
      assert.equal(sequenceMatcherMatches([...v.a], [...v.b]), v.autojunk, `a=${v.a.length} b=${v.b.length}`);
    }
  });

  it('reproduces CPython with autojunk=False, and the heuristic really changes some results', () => {
    let changed = 0;
    for (const v of vectors) {
      assert.equal(sequenceMatcherMatches([...v.a], [...v.b], false), v.noAutojunk);
      if (v.autojunk !== v.noAutojunk) changed++;
    }
    assert.ok(changed > 0);
  });
});
