import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { agreeOnCalls, callSetKey, namedIdentifiers, programsReader, uncachedCallSets, type CallSet } from '../../../src/core/memory/search/call-agreement';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { fitTextStatistics } from '../../../src/core/similarity/text/text-statistics';
import { SAMPLE_QUESTIONS, sampleRecord } from '../../support/records';

/** A fused list of keys k0, k1, … (dense ranks 1, 2, … ; no keyword side) and their programs. */
function fixture(codes: readonly string[]): { fused: { key: string; score: number }[]; dense: Map<string, number>; programOf: (keys: readonly string[]) => Map<string, CallSet | null> } {
  const fused = codes.map((_, i) => ({ key: `k${i}`, score: 1 / (5 + i + 1) }));
  const dense = new Map(fused.map((h, i) => [h.key, i + 1]));
  const programs = new Map(codes.map((code, i) => [`k${i}`, { code, language: 'python' }]));
  return { fused, dense, programOf: uncachedCallSets((keys) => new Map(keys.flatMap((k) => (programs.has(k) ? [[k, programs.get(k)!] as const] : [])))) };
}

const keysOf = (list: readonly { key: string }[]): string[] => list.map((h) => h.key);

describe('agreement of programs (call-agreement.ts)', () => {
  it('keys a program by the names it calls, leaving out calls inside string literals', () => {
    assert.equal(callSetKey('df.groupby("a").agg(sum)'), 'agg,groupby');
    assert.equal(callSetKey('answer = sql("select count(*) from t where upper(x) = 1")'), 'sql');
    assert.equal(callSetKey('x[::-1]'), '');
    assert.deepEqual([...namedIdentifiers('Write `df` with df.to_csv, Split it')].sort(), ['df', 'it', 'split', 'to_csv', 'with', 'write']);
  });

  it('puts two programs agreeing at ranks 2 and 3 before a lone first one, the rest in order', () => {
    const { fused, dense, programOf } = fixture(['a.foo(x)', 'b.bar(y)', 'c.bar(z)', 'qux(1)']);
    assert.deepEqual(keysOf(agreeOnCalls(fused, [dense], 'do the thing', programOf)), ['k1', 'k0', 'k2', 'k3']);
  });

  it('keeps the first when what agrees below it is weaker (a lone program further down never moves)', () => {
    const { fused, dense, programOf } = fixture(['a.foo(x)', 'b.bar(y)', 'c.baz(z)', 'd.qux(1)', 'e.quux(2)']);
    assert.equal(agreeOnCalls(fused, [dense], 'do the thing', programOf), fused);
    const far = fixture(['a.foo(x)', 'b.one(y)', 'c.two(z)', 'd.bar(1)', 'e.bar(2)']);
    assert.equal(agreeOnCalls(far.fused, [far.dense], 'do the thing', far.programOf), far.fused, 'two agreeing at ranks 4 and 5 weigh less than the first');
  });

  it('counts a call the query names as one more agreeing record at the top', () => {
    const { fused, dense, programOf } = fixture(['a.foo(x)', 's.split(",")', 'c.baz(z)']);
    assert.equal(agreeOnCalls(fused, [dense], 'cut the text', programOf), fused);
    assert.deepEqual(keysOf(agreeOnCalls(fused, [dense], 'split the text at commas', programOf)), ['k1', 'k0', 'k2']);
  });

  it('is a no-op when every program makes the same calls (EHR programs all call only sql)', () => {
    const { fused, dense, programOf } = fixture(["answer = sql(\"select count(*) from a\")", "answer = sql(\"select max(x) from b\")", "answer = sql(\"select min(y) from c\")"]);
    assert.equal(agreeOnCalls(fused, [dense], 'how many sql rows', programOf), fused);
  });

  it('lets programs that call nothing neither support nor move, and counts copies of a program once per side', () => {
    const none = fixture(['a.foo(x)', 'x[::-1]', 'y[::-1] ', 'z[1:]']);
    assert.equal(agreeOnCalls(none.fused, [none.dense], 'reverse it', none.programOf), none.fused);
    const copies = fixture(['a.foo(x)', 'b.bar(y)', 'b.bar(y)', 'b.bar(y)']);
    assert.equal(agreeOnCalls(copies.fused, [copies.dense], 'do the thing', copies.programOf), copies.fused, 'three copies are one program');
  });

  it('takes the keyword side into account: a program both sides rank high wins', () => {
    const { fused, dense, programOf } = fixture(['a.foo(x)', 'b.bar(y)', 'c.baz(z)']);
    const keyword = new Map([['k1', 1], ['k2', 2]]);
    assert.deepEqual(keysOf(agreeOnCalls(fused, [dense, keyword], 'do the thing', programOf)), ['k1', 'k0', 'k2']);
    assert.equal(agreeOnCalls(fused, [dense, new Map()], 'do the thing', programOf), fused, 'beyond each side\'s top 10 or absent: no support');
  });
});

describe('HybridSearch: agreement of programs', () => {
  /** Dense vectors in order k0, k1, …: the query is e0, record i leans away from it by i steps. */
  function vectorOf(i: number): Float32Array {
    const v = new Float32Array(8);
    v[0] = 1;
    v[1] = 0.1 * i;
    const n = Math.hypot(v[0], v[1]);
    return v.map((x) => x / n);
  }

  it('moves the agreeing programs\' best record first in hybrid mode, and not with callAgreement: false', () => {
    const store = MemoryStore.open(':memory:');
    try {
      const codes = ['a.foo(x)', 'b.bar(y)', 'c.bar(z)', 'qux(1)'];
      const records = codes.map((code, i) => sampleRecord({ id: `k${i}`, question: `unrelated words ${'abcd'[i]}`, code }));
      store.add(records, { trigger: 'user', embeddings: codes.map((_, i) => vectorOf(i)), embedderId: 'test-8' });
      const search = HybridSearch.open(store, { file: null });
      try {
        const query = { text: 'no keyword matches here', vector: vectorOf(0) };
        assert.deepEqual(search.search(query, 4, { callAgreement: false }).map((h) => h.recordId), ['k0', 'k1', 'k2', 'k3']);
        assert.deepEqual(search.search(query, 4).map((h) => h.recordId), ['k1', 'k0', 'k2', 'k3']);
        assert.deepEqual(search.search(query, 4, { mode: 'vector' }).map((h) => h.recordId), ['k0', 'k1', 'k2', 'k3'], 'vector mode is the plain dense order');
      } finally {
        search.close();
      }
    } finally {
      store.close();
    }
  });

  it('programsReader reads the programs of active records by rid in one statement (one per connection), others left out', () => {
    const store = MemoryStore.open(':memory:');
    try {
      store.add([sampleRecord({ id: 'a', code: 's.split(",")' }), sampleRecord({ id: 'b', code: 'json.loads(t)' })], { trigger: 'user' });
      const db = store.connectionForQueries();
      const read = programsReader(db);
      assert.equal(programsReader(db), read);
      const [a, b] = [store.ridOf('a')!, store.ridOf('b')!];
      assert.deepEqual([...read([String(b), '999999', String(a)])].sort(), [[String(a), { code: 's.split(",")', language: 'python' }], [String(b), { code: 'json.loads(t)', language: 'python' }]].sort());
    } finally {
      store.close();
    }
  });

  it('leaves an EHR memory\'s rankings unchanged (every program calls only sql)', () => {
    const store = MemoryStore.open(':memory:');
    try {
      const records = SAMPLE_QUESTIONS.map((q, i) => sampleRecord({ id: `r${i}`, question: q, code: `answer = sql("select count(*) from t${i} where upper(x) = '${i}'")` }));
      const embedder = new HashingEmbedder({ statistics: fitTextStatistics(records.map((r) => ({ question: r.question, code: r.execution.code }))) });
      store.add(records, { trigger: 'user', embeddings: records.map((r) => embedder.embedSync(r.question)), embedderId: embedder.id });
      const search = HybridSearch.open(store, { file: null });
      try {
        for (const q of [...SAMPLE_QUESTIONS, 'how many patients got sql count today?', 'average cost of a lab test']) {
          const query = { text: q, vector: embedder.embedSync(q) };
          assert.deepEqual(search.search(query, 8), search.search(query, 8, { callAgreement: false }), q);
        }
      } finally {
        search.close();
      }
    } finally {
      store.close();
    }
  });
});

describe('eval-retrieval --no-agreement', () => {
  const ROOT = path.join(__dirname, '..', '..', '..');
  const cli = (args: string[]) => promisify(execFile)('npx', ['tsx', 'src/cli/main.ts', 'eval-retrieval', ...args], { cwd: ROOT });

  it('says in its JSON whether the agreement ran, and refuses the ablation on a team space (exit 1)', async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agreement-cli-'));
    try {
      const line = (question: string, code: string): string => JSON.stringify({ question, template: `calls:${code}`, code });
      const memory = path.join(dir, 'memory.jsonl');
      fs.writeFileSync(memory, [line('split a string on commas', 's.split(",")'), line('parse a date string', 'datetime.strptime(s, f)')].join('\n') + '\n');
      const args = ['--memory', memory, '--queries', memory, '--min-score', '0', '--json'];
      const on = JSON.parse((await cli(args)).stdout) as { agreement: boolean; n: number };
      const off = JSON.parse((await cli([...args, '--no-agreement'])).stdout) as { agreement: boolean; n: number };
      assert.deepEqual([on.agreement, off.agreement, on.n, off.n], [true, false, 2, 2]);
      await assert.rejects(cli([...args, '--no-agreement', '--backend', 'team']), (err: { code: number; stderr: string }) => err.code === 1 && /--no-agreement is an ablation of the file store/.test(err.stderr));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
