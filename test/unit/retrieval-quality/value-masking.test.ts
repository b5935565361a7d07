import assert from 'node:assert/strict';
import { goldProgram } from '../../../src/core/data/gold-program';
import { indexableMaskedText, literalColumns, programLiterals, ValueVocabulary } from '../../../src/core/memory/search/value-masking';

describe('value masking', () => {
  it('takes the literals of programs in any language, opening SQL held in strings', () => {
    assert.deepEqual(programLiterals(goldProgram("select route from prescriptions where drug = 'danazol' and x > 3", 'python')), ['danazol']);
    assert.deepEqual(programLiterals('const r = db.query(`SELECT * FROM t WHERE name = "acute kidney failure"`);'), ['acute kidney failure']);
    assert.deepEqual(programLiterals('fmt.Println("hello world")\nx := \'c\''), ['hello world', 'c']);
    assert.deepEqual(programLiterals('total = sum(values) / 3'), []);
  });

  it('masks vocabulary phrases longest first, and generic numbers, dates, times and quoted strings', () => {
    const v = new ValueVocabulary();
    v.add(goldProgram("select 1 from d_labitems where label = 'blood' or label = 'blood glucose'", 'python'));
    const m = v.mask("When did patient 10006 last get a Blood Glucose test on 2104-03-01 at 08:00, 'fasting' or 2.5 mg?");
    assert.equal(m.text, 'when did patient <number> last get a <value> test on <date> at <time>, <value> or <number> mg?');
    assert.deepEqual(m.masked, ['10006', 'blood glucose', '2104-03-01', '08:00', 'fasting', '2.5']);
    assert.equal(indexableMaskedText(m), "when did patient 0 last get a valuemask test on 2000-01-01 at 00:00 , valuemask or 0 mg?");
  });

  it('never masks a function word or a one-letter literal alone, nor part of a word', () => {
    const v = new ValueVocabulary();
    v.add("q = \"select * from patients where gender = 'm' and period = 'last' and drug = 'in'\"");
    v.add("name = 'sod'");
    assert.deepEqual(v.mask('what was the last sodium value in m units?').masked, []);
  });

  it('masks a record with its own program before the vocabulary knows its values', () => {
    const v = new ValueVocabulary();
    const code = goldProgram("select route from prescriptions where drug = 'naproxen'", 'python');
    assert.deepEqual(v.mask('How should naproxen be taken?').masked, []);
    assert.deepEqual(v.mask('How should naproxen be taken?', code), { text: 'how should <value> be taken?', masked: ['naproxen'] });
  });

  it('is maintained incrementally: a phrase stays while one record has it, and leaves with the last', () => {
    const v = new ValueVocabulary();
    const a = goldProgram("select 1 from t where drug = 'heparin sodium'", 'python');
    const b = goldProgram("select 2 from t where drug = 'heparin sodium' or drug = 'insulin'", 'python');
    v.add(a);
    v.add(b);
    assert.equal(v.size, 2);
    v.remove(a);
    assert.ok(v.has('Heparin Sodium'));
    assert.deepEqual(v.mask('heparin sodium or insulin?').masked, ['heparin sodium', 'insulin']);
    v.remove(b);
    assert.equal(v.size, 0);
    assert.deepEqual(v.mask('heparin sodium or insulin?').masked, []);
    v.remove(b); // removing what is not there changes nothing
    assert.equal(v.size, 0);
  });

  it('names the column each value literal is compared with, in any language (SQL in a string, ===, LIKE), values only', () => {
    assert.deepEqual(
      literalColumns(goldProgram("select min(valuenum) from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'Potassium') and subject_id = 42 and charttime like '2104%'", 'python')),
      [['potassium', 'd_labitems.label']],
    );
    assert.deepEqual(literalColumns('const r = rows.filter((r) => r.careUnit === "MICU ward" || r.ward != \'b\')'), [['micu ward', 'r.careunit']]);
    assert.deepEqual(literalColumns(`rows = db.execute("SELECT * FROM t WHERE name LIKE 'acute kidney failure'")`), [['acute kidney failure', 'name']]);
    // A literal that is not compared names no column; a number is left to the generic patterns.
    assert.deepEqual(literalColumns(`print("hello world"); x = 3`), []);
  });
});
