import assert from 'node:assert/strict';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { codeCallTokens } from '../../../src/core/similarity/text/code-tokens';
import { fitTextStatistics } from '../../../src/core/similarity/text/text-statistics';

const cos = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i], 0);

describe('call tokens in the fitted projection (general code)', () => {
  it('names the calls of the program itself, by their last name, not the calls inside string literals', () => {
    assert.deepEqual([...codeCallTokens("df.groupby('city').agg(sum)")].sort(), ['call:agg', 'call:groupby']);
    assert.deepEqual([...codeCallTokens('answer = sql("select count(*), max(x) from t")')], ['call:sql']);
    assert.deepEqual([...codeCallTokens("re.sub ('a(b)', '', s)")], ['call:sub']);
    assert.deepEqual([...codeCallTokens('x = 1')], []);
  });

  it('questions whose programs call the same method on differently named objects meet in the dense space', () => {
    const memory = [
      { question: 'split the frame into groups by city', code: "frame.groupby('city')" },
      { question: 'aggregate orders per customer', code: "orders.groupby('customer')" },
      { question: 'order the orders frame by customer name', code: "orders.sort_values('customer')" },
      { question: 'read a csv file into a frame', code: "frame = pd.read_csv('a.csv')" },
      { question: 'remove empty entries', code: 'frame.dropna()' },
      { question: 'write the frame to disk', code: "frame.to_csv('b.csv')" },
      { question: 'join two tables on a key', code: "left.merge(right, on='k')" },
      { question: 'rename a column', code: "frame.rename(columns={'a': 'b'})" },
    ];
    const embedder = new HashingEmbedder({ statistics: fitTextStatistics(memory) });
    const [grouping, perCustomer, sorting] = memory.slice(0, 3).map((m) => embedder.embedSync(m.question));
    // "aggregate orders per customer" shares words with the sorting question, but its program calls what the grouping one calls.
    assert.ok(cos(perCustomer, grouping) > cos(perCustomer, sorting), `${cos(perCustomer, grouping)} vs ${cos(perCustomer, sorting)}`);
  });

  it('a call every program makes (EHR programs: sql) changes nothing: the fit is the one without call tokens', () => {
    const records = [
      { question: 'how many patients died', code: 'answer = sql("select count(*) from patients where dod is not null")' },
      { question: 'what is the age of patient 5', code: 'answer = sql("select age from admissions where subject_id = 5")' },
      { question: 'the last heart rate of patient 7', code: 'answer = sql("select max(charttime) from chartevents")' },
    ];
    const withCalls = new HashingEmbedder({ statistics: fitTextStatistics(records) });
    const withoutCalls = new HashingEmbedder({ statistics: fitTextStatistics(records.map((r) => ({ question: r.question, code: r.code.replace('sql(', 'sql_text = (') }))) });
    for (const q of ['how many patients are alive', 'age of patient 9']) {
      assert.deepEqual(Array.from(withCalls.embedSync(q)), Array.from(withoutCalls.embedSync(q)));
    }
  });
});
