import * as assert from 'node:assert/strict';
import { codeSimilarity, codeSimilarityDetail } from '../../../../src/core/similarity/code';

const PROGRAM = `import { helper } from './toolbox';
function countSince(rows, year) {
  let n = 0;
  for (const r of rows) {
    if (r.year >= year) n += 1;
  }
  return n;
}
const rows = await sql('SELECT admittime FROM admissions WHERE subject_id = 10');
const answer = countSince(rows.map((r) => ({ year: Number(r.admittime.slice(0, 4)) })), 2100);
`;

const RENAMED = `import { helper } from './toolbox';
function admissionsAfter(list, y) {
  let total = 0;
  for (const item of list) {
    if (item.year >= y) total += 1;
  }
  return total;
}
const data = await sql('SELECT admittime FROM admissions WHERE subject_id = 4242');
const answer = admissionsAfter(data.map((x) => ({ year: Number(x.admittime.slice(0, 4)) })), 2105);
`;

const UNRELATED = `const names = ['a', 'b', 'c'];
class Greeter {
  greet(who) { return 'hello ' + who; }
}
const g = new Greeter();
export const out = names.filter((s) => s !== 'b').map((s) => g.greet(s)).join(', ');
`;

describe('javascript similarity', () => {
  it('renaming identifiers and changing literals only scores 1.0', () => {
    assert.equal(codeSimilarity(PROGRAM, RENAMED, 'javascript'), 1);
    assert.equal(codeSimilarity(RENAMED, PROGRAM, 'javascript'), 1);
  });

  it('unrelated programs score low', () => {
    assert.ok(codeSimilarity(PROGRAM, UNRELATED, 'javascript') < 0.5);
    assert.ok(codeSimilarity(UNRELATED, PROGRAM, 'javascript') < 0.5);
  });

  it('one changed statement scores strictly between 0 and 1', () => {
    const s = codeSimilarity(PROGRAM, PROGRAM.replace('n += 1', 'n = n * 2'), 'javascript');
    assert.ok(s > 0.5 && s < 1, String(s));
  });

  it('is asymmetric: an added statement only costs the longer reference', () => {
    const longer = PROGRAM.replace('  return n;', '  if (n < 0) throw new Error("negative");\n  return n;');
    assert.equal(codeSimilarity(PROGRAM, longer, 'javascript'), 1);
    assert.ok(codeSimilarity(longer, PROGRAM, 'javascript') < 1);
  });

  it('drops console calls, imports, require() and flips comparisons canonically', () => {
    const noisy = PROGRAM.replace('  return n;', '  console.log(n);\n  return n;').replace('r.year >= year', 'year <= r.year');
    const withRequire = `const fs = require('fs');\nimport x from 'y';\n${noisy}`;
    assert.equal(codeSimilarity(PROGRAM, withRequire, 'javascript'), 1);
  });

  it('compares the SQL of sql() calls and template literals as structure', () => {
    const other = PROGRAM.replace('SELECT admittime FROM admissions WHERE subject_id = 10', 'SELECT dob FROM patients WHERE gender = 1');
    assert.equal(codeSimilarity(PROGRAM, other, 'javascript', { mode: 'pycode_similar' }), 1);
    assert.ok(codeSimilarity(PROGRAM, other, 'javascript') < 1);
    const tpl = 'const r = await sql`SELECT max(valuenum) FROM labevents WHERE subject_id = ${sid}`;\n';
    assert.equal(codeSimilarity(tpl, tpl.replace('${sid}', '${other}'), 'javascript'), 1);
    assert.ok(codeSimilarity(tpl, tpl.replace('max(', 'min('), 'javascript') < 1);
  });

  it('parses simple TypeScript best-effort and treats it like the same JavaScript', () => {
    const ts = `interface Row { year: number }
function countSince(rows: Row[], year: number): number {
  let n: number = 0;
  for (const r of rows) {
    if (r.year >= year) n += 1;
  }
  return n!;
}
`;
    const js = ts.replace(/interface Row \{ year: number \}\n/, '').replace('rows: Row[], year: number): number', 'rows, year)').replace('n: number', 'n').replace('n!', 'n');
    const d = codeSimilarityDetail(ts, js, 'javascript');
    assert.equal(d.method, 'structural');
    assert.equal(d.score, 1);
  });

  it('never throws on unparseable code', () => {
    const d = codeSimilarityDetail('const x = (;\nfoo(x);\n', 'foo(y);\n', 'javascript');
    assert.equal(d.method, 'line-fallback');
    assert.deepEqual([d.matched, d.total], [1, 2]);
  });
});
