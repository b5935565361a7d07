/**
 * Sweeps the relevance floor (src/core/memory/search/relevance.ts) over four cases that hold no shared
 * CoNaLa query, and prints for each floor the share of queries answered (at least one of the top k = 4
 * at or above the floor) and hit@1 at the floor (a query left with nothing is a miss), as eval-retrieval
 * --min-score computes them (hybrid search, real store, fitted embedder):
 * - EHRSQL test questions → its valid memory (in domain), and the held-back way, valid questions → the test memory;
 * - CoNaLa: its memory in 5 folds, each fold's answerable lines against the other four (in domain);
 * - EHR test questions → the CoNaLa memory (across domains: should answer ~0);
 * - the CoNaLa memory's questions → the EHR valid memory (across domains: should answer ~0).
 * Each search runs once; every floor is applied to its results. Last line: the time relevance takes per search
 * (the query's scorer built and its k results scored), on the first pass and on a second one over the same results.
 *
 * `--cut` lists the correct top hits the default floor cuts (the query, its top record, the known and shared
 * shares and the relevance, the values of the data found in the query).
 *
 * Usage: npx tsx scripts/relevance-floor-sweep.ts [--rerank] [--values-from DB.sqlite] [--conala FILE] [--cut]   (EHR splits
 * written to /tmp/valid.jsonl and /tmp/test.jsonl as docs/benchmarks.md says; --ehr-dir DIR to read them elsewhere).
 * `--values-from`: the database the EHR questions are about, given to the two cases whose memory is the EHR
 * one (its values are left out of the relevance's known share, and feed the re-ranking's value columns).
 */
import * as path from 'node:path';
import { loadEvalFile, StoreBackend, type EvalItem } from '../src/core/bench/eval-retrieval';
import { readDomainValues } from '../src/core/data/domain-values-reader';
import type { DomainValues } from '../src/core/memory/search/domain-values';
import { DEFAULT_MIN_RELEVANCE, hasContentWords, recordTerms, relevancePartsScorer, type RelevanceParts } from '../src/core/memory/search/relevance';

const EVERYDAY = new Set('print len list str int sorted range dict set map zip sum open join split append format replace strip enumerate float tuple max min items keys values'.split(' '));
const FLOORS = [0, 0.3, 0.35, 0.4, 0.45, 0.5];
const K = 4;

interface Part {
  memory: EvalItem[];
  queries: EvalItem[];
  /** The values of the database the memory's questions are about (`--values-from`; the EHR memory's only). */
  values?: DomainValues;
}

/** Per query: whether its template matches, by result, each result's relevance and its shares, and what was searched and found. */
type Row = { relevant: boolean[]; relevance: number[]; parts: (RelevanceParts | null)[]; query: EvalItem; found: EvalItem[]; values: string[] };

/** Time spent scoring relevance (the scorer built, the k results scored), per search: first pass and a second (warm) one. */
type Timing = { searches: number; firstMs: number; warmMs: number };

async function run(parts: Part[], rerank: boolean, timing: Timing): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { memory, queries, values } of parts) {
    const byKey = new Map(memory.map((m) => [m.key, m]));
    const df = new Map<string, number>();
    for (const m of memory) for (const t of recordTerms(m.question, m.code)) df.set(t, (df.get(t) ?? 0) + 1);
    const backend = new StoreBackend({ rerank, domainValues: values });
    await backend.add(memory);
    const score = (q: EvalItem, found: EvalItem[]): (RelevanceParts | null)[] => {
      const relevance = relevancePartsScorer(q.question, (terms) => terms.map((t) => df.get(t) ?? 0), memory.length, values ? (text) => values.valueTerms(text) : undefined);
      const words = hasContentWords(q.question);
      return found.map((m) => (words ? relevance(m.question, m.code) : null));
    };
    const searched: [EvalItem, EvalItem[]][] = [];
    try {
      for (const q of queries.filter((x) => x.answerable !== false)) {
        const found = (await backend.search(q.question, K, 'hybrid')).map((r) => byKey.get(r.key)!);
        const start = performance.now();
        const parts = score(q, found);
        timing.firstMs += performance.now() - start;
        const relevance = parts.map((p) => p?.relevance ?? -1);
        rows.push({ relevant: found.map((m) => m.template === q.template), relevance, parts, query: q, found, values: values?.valueTerms(q.question).map((v) => v.phrase) ?? [] });
        searched.push([q, found]);
      }
    } finally {
      await backend.close();
    }
    const start = performance.now();
    for (const [q, found] of searched) score(q, found);
    timing.warmMs += performance.now() - start;
    timing.searches += searched.length;
  }
  return rows;
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const rerank = process.argv.includes('--rerank');
  const ehrDir = argValue('--ehr-dir') ?? '/tmp';
  const conala = loadEvalFile(argValue('--conala') ?? '../shared/data/coding/conala-memory.jsonl');
  const valid = loadEvalFile(path.join(ehrDir, 'valid.jsonl'));
  const test = loadEvalFile(path.join(ehrDir, 'test.jsonl'));
  const folds: Part[] = [0, 1, 2, 3, 4].map((f) => {
    const memory = conala.filter((_, i) => i % 5 !== f);
    const templates = new Set(memory.map((m) => m.template));
    const answerable = (t: string): boolean => templates.has(t) && t.replace(/^calls:/, '').split(',').some((c) => c !== '' && !EVERYDAY.has(c));
    return { memory, queries: conala.filter((_, i) => i % 5 === f).map((q) => ({ ...q, answerable: answerable(q.template) })) };
  });
  const valuesFrom = argValue('--values-from');
  const values = valuesFrom ? readDomainValues(valuesFrom) : undefined;
  const cases: [string, Part[]][] = [
    ['EHRSQL test → valid', [{ memory: valid, queries: test, values }]],
    ['EHRSQL valid → test memory (held-back)', [{ memory: test, queries: valid, values }]],
    ['CoNaLa 5-fold dev', folds],
    ['EHR test → CoNaLa memory', [{ memory: conala, queries: test }]],
    ['CoNaLa memory → EHR valid', [{ memory: valid, queries: conala, values }]],
  ];
  const results: Row[][] = [];
  const timings: Timing[] = [];
  for (const [, parts] of cases) {
    const timing = { searches: 0, firstMs: 0, warmMs: 0 };
    results.push(await run(parts, rerank, timing));
    timings.push(timing);
  }
  const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
  process.stdout.write(`| floor | ${cases.map(([name], i) => `${name} (n = ${results[i].length}): answered / hit@1`).join(' | ')} |\n`);
  process.stdout.write(`|---|${cases.map(() => '---').join('|')}|\n`);
  for (const floor of FLOORS) {
    const cells = results.map((rows) => {
      let answered = 0;
      let hits = 0;
      for (const r of rows) {
        const first = r.relevance.findIndex((x) => x >= floor);
        if (first < 0) continue;
        answered += 1;
        if (r.relevant[first]) hits += 1;
      }
      return `${pct(answered / rows.length)} / ${(hits / rows.length).toFixed(4)}`;
    });
    process.stdout.write(`| ${floor} | ${cells.join(' | ')} |\n`);
  }
  if (process.argv.includes('--cut')) {
    // Correct top hits the default floor cuts: the search's first record is of the query's template, the floored first is not.
    process.stdout.write(`\ncorrect top hits cut at the default floor ${DEFAULT_MIN_RELEVANCE} (query | its top record | known / shared / relevance | values of the data found):\n`);
    results.forEach((rows, i) => {
      for (const r of rows) {
        if (!r.relevant[0]) continue;
        const first = r.relevance.findIndex((x) => x >= DEFAULT_MIN_RELEVANCE);
        if (first >= 0 && r.relevant[first]) continue;
        const p = r.parts[0];
        const shares = p ? `${p.known.toFixed(3)} / ${p.shared.toFixed(3)} / ${p.relevance.toFixed(3)}` : 'no content word';
        process.stdout.write(`- ${cases[i][0]}: "${r.query.question}" | "${r.found[0].question}" | ${shares} | ${r.values.join('; ') || '—'}${first >= 0 ? ' (a record of another template passes)' : ''}\n`);
      }
    });
  }
  const us = (ms: number, n: number): string => `${((ms * 1000) / Math.max(1, n)).toFixed(1)} µs`;
  process.stdout.write(`\nrelevance per search (k = ${K}; first pass / again): ${cases.map(([name], i) => `${name} ${us(timings[i].firstMs, timings[i].searches)} / ${us(timings[i].warmMs, timings[i].searches)}`).join('; ')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
