import * as assert from 'node:assert/strict';
import { isAgentMemoryError } from '../../../../src/core/errors';
import { codeSimilarity, codeSimilarityDetail, sqlStructureTokens } from '../../../../src/core/similarity/code';

const BASE = `rows = FilterDB(LoadDB('admissions'), 'SUBJECT_ID=10')
count = 0
for ts in GetValue(rows, 'ADMITTIME, list'):
    if len(ts) > 0:
        count += 1
answer = count
`;

describe('python similarity: normalisation', () => {
  it('dumps wrap like pycode_similar: renaming keeps all lines, an extra argument changes the body line', () => {
    // CPython 3.11 + pycode_similar: 'Module(\n', '    body=[Assign(targets=[Name], value=Call(func=Name,
    // args=[Name], keywords=[]), type_comment=None)],\n', '    type_ignores=[])' (the one-liner is >= 120 chars)
    const one = codeSimilarityDetail('answer = f(x)\n', 'result = g(y)\n', 'python', { mode: 'pycode_similar' });
    assert.deepEqual([one.matched, one.total], [3, 3]);
    const other = codeSimilarityDetail('answer = f(x)\n', 'answer = f(x, y)\n', 'python', { mode: 'pycode_similar' });
    assert.deepEqual([other.matched, other.total], [2, 3]);
  });

  it('ignores names, constants, imports, prints, docstrings and comments', () => {
    const cosmetic = `import os
"""module docstring"""
tbl = FilterDB(LoadDB('patients'), 'SUBJECT_ID=99')  # comment
print(tbl)
n = 7
for stamp in GetValue(tbl, 'DOB, list'):
    if len(stamp) > 3:
        n += 2
answer = n
`;
    for (const mode of ['pycode_similar', 'structural'] as const) {
      assert.equal(codeSimilarity(BASE, cosmetic, 'python', { mode }), 1);
      assert.equal(codeSimilarity(cosmetic, BASE, 'python', { mode }), 1);
    }
  });

  it('orders single comparisons canonically but leaves chains and != alone', () => {
    assert.equal(codeSimilarity(BASE, BASE.replace('len(ts) > 0', '0 < len(ts)'), 'python'), 1);
    assert.equal(codeSimilarity('ok = a == b.c\n', 'ok = b.c == a\n', 'python'), 1);
    assert.ok(codeSimilarity('ok = f(a) != b\n', 'ok = b != f(a)\n', 'python') < 1);
    assert.ok(codeSimilarity('ok = 0 < a < 3\n', 'ok = a > 0 and a < 3\n', 'python') < 1);
  });

  it('is asymmetric: an extra statement costs only the side that lacks it', () => {
    const longer = BASE.replace('answer = count\n', 'assert count >= 0\nanswer = count\n');
    assert.equal(codeSimilarity(BASE, longer, 'python'), 1);
    const back = codeSimilarity(longer, BASE, 'python');
    assert.ok(back < 1 && back > 0.5, String(back));
  });

  it('scores one changed statement strictly between 0 and 1', () => {
    const s = codeSimilarity(BASE, BASE.replace('count += 1', 'count = count + 1'), 'python');
    assert.ok(s > 0.5 && s < 1, String(s));
  });

  it('counts each function as a unit and the module body as another', () => {
    const withHelper = `def helper(v):
    return len(v) > 0
answer = helper(x)
`;
    const d = codeSimilarityDetail(withHelper, withHelper.replace('helper', 'check'), 'python');
    assert.equal(d.score, 1);
    // function unit (several lines) + module unit (multi-line): more than the single module line
    assert.ok(d.total > 2);
  });
});

describe('python similarity: SQL structure (default mode)', () => {
  const q1 = `rows = sql("SELECT COUNT(DISTINCT hadm_id) FROM admissions WHERE subject_id = 10")\nanswer = rows[0][0]\n`;
  const q2 = `rows = sql("SELECT AVG(valuenum) FROM labevents JOIN d_labitems ON labevents.itemid = d_labitems.itemid WHERE label = 'x'")\nanswer = rows[0][0]\n`;

  it('tokenises SQL into keywords, identifiers and operators without literals', () => {
    assert.deepEqual(sqlStructureTokens("SELECT COUNT(*) FROM admissions WHERE subject_id = 42 AND x LIKE '%a%'"), [
      'kw:select', 'kw:count', 'op:(', 'op:*', 'op:)', 'kw:from', 'id:admissions', 'kw:where', 'id:subject_id', 'op:=',
      'kw:and', 'id:x', 'kw:like',
    ]);
  });

  it('tells programs apart when their logic lives in different SQL', () => {
    assert.equal(codeSimilarity(q1, q2, 'python', { mode: 'pycode_similar' }), 1);
    const s = codeSimilarity(q1, q2, 'python');
    assert.ok(s < 0.9, String(s));
  });

  it('ignores SQL literal values, also through SQLInterpreter and f-strings', () => {
    assert.equal(codeSimilarity(q1, q1.replace('= 10', '= 77'), 'python'), 1);
    const interp = `r = SQLInterpreter(f"select max(valuenum) from labevents where subject_id = {sid} and itemid = 5")\n`;
    assert.equal(codeSimilarity(interp, interp.replace('= 5', '= 6').replace('{sid}', '{other}'), 'python'), 1);
    assert.ok(codeSimilarity(interp, interp.replace('max(', 'min('), 'python') < 1);
  });
});

describe('python similarity: robustness', () => {
  it('falls back to a token line diff on unparseable code instead of throwing', () => {
    const d = codeSimilarityDetail('x = (\ny = 2\n', 'y = 2\n', 'python');
    assert.equal(d.method, 'line-fallback');
    // shapes: ['id = (', 'id ='] vs ['id =']
    assert.deepEqual([d.matched, d.total], [1, 2]);
    assert.equal(codeSimilarity('def f(:\n    pass\n', 'def g(:\n    pass\n', 'python'), 1);
    assert.equal(codeSimilarityDetail('with a as (b, c):\n    pass\n', 'x = 1\n', 'python').method, 'line-fallback');
  });

  it('never throws on truncated programs, in either language, and stays in [0, 1]', () => {
    const js = 'const rows = await sql(`SELECT a FROM t WHERE b = ${x}`);\nfor (const r of rows) { if (r.a > 1) { n += f(r, { k: [1, 2] }); } }\n';
    for (const [src, lang] of [[BASE, 'python'], [js, 'javascript']] as const) {
      for (let cut = 1; cut < src.length; cut += 3) {
        const part = src.slice(0, cut);
        for (const s of [codeSimilarity(src, part, lang), codeSimilarity(part, src, lang)]) {
          assert.ok(s >= 0 && s <= 1 && Number.isFinite(s), `${lang} cut ${cut}: ${s}`);
        }
      }
    }
  });

  it('rejects a malformed language name with an actionable error (any real language name is accepted)', () => {
    assert.throws(
      () => codeSimilarity('a', 'b', 'not a language'),
      (e: unknown) => isAgentMemoryError(e, 'INVALID_INPUT') && /such as python/.test((e as Error).message),
    );
    assert.equal(codeSimilarity('puts 1', 'puts 2', 'ruby'), 1);
  });
});
