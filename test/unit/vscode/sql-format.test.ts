import * as assert from 'node:assert/strict';
import { formatSql, readableCode, stripHeaderComment } from '../../../src/vscode/text/sql-format';

describe('SQL layout for the diff', () => {
  it('puts one clause per line and indents sub-queries', () => {
    const sql = "select count(*) from patients where patients.subject_id in (select admissions.subject_id from admissions where admissions.age >= 60) order by 1 limit 5";
    assert.equal(
      formatSql(sql),
      ['select count(*)', 'from patients', 'where patients.subject_id in (', '  select admissions.subject_id', '  from admissions', '  where admissions.age >= 60)', 'order by 1', 'limit 5'].join('\n'),
    );
  });

  it('never touches quoted text (keywords and spaces inside strings stay)', () => {
    const out = formatSql("select a from t where t.name = 'select  from where'");
    assert.match(out, /'select  from where'$/);
    assert.equal(out.split('\n').length, 3);
  });

  it('readable code: header comment dropped, the one-line SQL string laid out (python and javascript)', () => {
    const py = readableCode('# Question: x\n# Record 1\n\nanswer = sql("select distinct p.route from prescriptions p where p.drug = \'danazol\'")', 'python');
    assert.equal(py, 'answer = sql("""\n  select distinct p.route\n  from prescriptions p\n  where p.drug = \'danazol\'\n""")');
    const js = readableCode('// header\nanswer = sql("select a from t");', 'javascript');
    assert.equal(js, 'answer = sql(`\n  select a\n  from t\n`);');
  });

  it('leaves non-SQL strings alone and keeps code after the header', () => {
    assert.equal(readableCode('x = "hello world"', 'python'), 'x = "hello world"');
    assert.equal(stripHeaderComment('# a\n# b\ncode # c\n', 'python'), 'code # c\n');
  });
});
