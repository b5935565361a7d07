/**
 * A dev split of the CoNaLa memory for choosing general-code retrieval changes without the shared
 * queries (issue 35): the memory's lines in 5 folds (line i in fold i % 5); each fold's lines are the
 * queries against the other four folds, loaded as the memory (fitted on them only). A query is
 * answerable as the data README says: some memory line has exactly its template, and the template
 * holds a call outside the everyday builtins. Prints one JSON line of the pooled figures.
 *
 * Usage: npx tsx scripts/conala-dev-folds.ts [hybrid|vector|keyword] [--split interleaved|blocks] [--no-agreement] [--rerank] [--rerank-parts slots,links,columns] [--min-score X] [--memory FILE]
 */
import { evaluateRetrieval, loadEvalFile, StoreBackend, type EvalItem, type RetrievalMode } from '../src/core/bench/eval-retrieval';

const EVERYDAY = new Set('print len list str int sorted range dict set map zip sum open join split append format replace strip enumerate float tuple max min items keys values'.split(' '));
const FOLDS = 5;

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const mode = (['hybrid', 'vector', 'keyword'].includes(process.argv[2] ?? '') ? process.argv[2] : 'hybrid') as RetrievalMode;
  const partsArg = argValue('--rerank-parts');
  const parts = partsArg?.split(',');
  const rerank = parts ? { slots: parts.includes('slots'), links: parts.includes('links'), columns: parts.includes('columns') } : process.argv.includes('--rerank');
  const floor = argValue('--min-score');
  const minScore = floor === undefined ? undefined : Number(floor);
  const all = loadEvalFile(argValue('--memory') ?? '../shared/data/coding/conala-memory.jsonl');
  const split = argValue('--split') ?? 'interleaved';
  if (split !== 'interleaved' && split !== 'blocks') throw new Error(`--split must be interleaved or blocks, got ${split}`);
  const foldOf = (i: number): number => (split === 'blocks' ? Math.floor((i * FOLDS) / all.length) : i % FOLDS);
  let n = 0;
  let hits = 0;
  let precision = 0;
  let answered = 0;
  let unanswerable = 0;
  let unanswerableAnswered = 0;
  for (let f = 0; f < FOLDS; f++) {
    const memory = all.filter((_, i) => foldOf(i) !== f);
    const templates = new Set(memory.map((m) => m.template));
    const queries: EvalItem[] = all
      .filter((_, i) => foldOf(i) === f)
      .map((q) => ({ ...q, answerable: templates.has(q.template) && q.template.replace(/^calls:/, '').split(',').some((c) => c !== '' && !EVERYDAY.has(c)) }));
    const r = await evaluateRetrieval({ memory, queries, mode, minScore, backend: new StoreBackend({ rerank, callAgreement: !process.argv.includes('--no-agreement') }) });
    n += r.n;
    hits += r.hit_at_1 * r.n;
    precision += r.precision_at_k * r.n;
    answered += (r.answered_rate ?? 1) * r.n;
    unanswerable += r.unanswerable_n ?? 0;
    unanswerableAnswered += (r.unanswerable_answered_rate ?? 1) * (r.unanswerable_n ?? 0);
  }
  const round = (x: number): number => Math.round(x * 10_000) / 10_000;
  const out = { dev: `conala-${FOLDS}fold-${split}`, mode, rerank, agreement: !process.argv.includes('--no-agreement'), min_score: minScore ?? null, n, hit_at_1: round(hits / n), precision_at_4: round(precision / n), answered_rate: round(answered / n), unanswerable_n: unanswerable, unanswerable_answered_rate: round(unanswerableAnswered / Math.max(1, unanswerable)) };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
