/**
 * Rank-depth analysis of the CoNaLa memory's dev folds (issue 35): for each answerable query of a fold,
 * the rank of the first record with the query's template on the dense side, the keyword side and the
 * fused (hybrid) ranking, each searched to depth 50 through the product's store (collapse on, as
 * eval-retrieval). Prints one JSON line: recall at 1/5/10/20/50 per side, and where the hybrid misses
 * at 1 stand (in some side's top 10 / top 50 or in neither). Folds and answerable rule as
 * scripts/conala-dev-folds.ts.
 *
 * Usage: npx tsx scripts/conala-rank-depth.ts [--split interleaved|blocks] [--memory FILE]
 */
import { loadEvalFile, StoreBackend, type RetrievalMode } from '../src/core/bench/eval-retrieval';

const EVERYDAY = new Set('print len list str int sorted range dict set map zip sum open join split append format replace strip enumerate float tuple max min items keys values'.split(' '));
const FOLDS = 5;
const DEPTH = 50;
const CUTS = [1, 5, 10, 20, 50];

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const all = loadEvalFile(argValue('--memory') ?? '../shared/data/coding/conala-memory.jsonl');
  const split = argValue('--split') ?? 'blocks';
  if (split !== 'interleaved' && split !== 'blocks') throw new Error(`--split must be interleaved or blocks, got ${split}`);
  const foldOf = (i: number): number => (split === 'blocks' ? Math.floor((i * FOLDS) / all.length) : i % FOLDS);
  const modes: RetrievalMode[] = ['vector', 'keyword', 'hybrid'];
  const ranks: Record<string, number[]> = { vector: [], keyword: [], hybrid: [] };
  for (let f = 0; f < FOLDS; f++) {
    const memory = all.filter((_, i) => foldOf(i) !== f);
    const templateOf = new Map(memory.map((m) => [m.key, m.template]));
    const templates = new Set(memory.map((m) => m.template));
    const queries = all.filter((q, i) => foldOf(i) === f && templates.has(q.template) && q.template.replace(/^calls:/, '').split(',').some((c) => c !== '' && !EVERYDAY.has(c)));
    const backend = new StoreBackend({ callAgreement: !process.argv.includes('--no-agreement') });
    await backend.add(memory.map(({ key, question, code }) => ({ key, question, code })));
    try {
      for (const q of queries) {
        for (const mode of modes) {
          const hits = await backend.search(q.question, DEPTH, mode);
          const at = hits.findIndex((h) => templateOf.get(h.key) === q.template);
          ranks[mode].push(at < 0 ? Infinity : at + 1);
        }
      }
    } finally {
      await backend.close();
    }
  }
  const n = ranks.hybrid.length;
  const round = (x: number): number => Math.round(x * 10_000) / 10_000;
  const recall = Object.fromEntries(modes.map((m) => [m, Object.fromEntries(CUTS.map((c) => [`@${c}`, round(ranks[m].filter((r) => r <= c).length / n)]))]));
  const misses = { n: 0, either_top10: 0, dense_only_top10: 0, keyword_only_top10: 0, both_top10: 0, either_top50_not_top10: 0, neither_top50: 0, hybrid_top10: 0, hybrid_top50: 0 };
  for (let i = 0; i < n; i++) {
    if (ranks.hybrid[i] === 1) continue;
    const d = ranks.vector[i];
    const k = ranks.keyword[i];
    misses.n += 1;
    if (d <= 10 || k <= 10) misses.either_top10 += 1;
    if (d <= 10 && k > 10) misses.dense_only_top10 += 1;
    if (k <= 10 && d > 10) misses.keyword_only_top10 += 1;
    if (d <= 10 && k <= 10) misses.both_top10 += 1;
    if (d > 10 && k > 10 && (d <= DEPTH || k <= DEPTH)) misses.either_top50_not_top10 += 1;
    if (d > DEPTH && k > DEPTH) misses.neither_top50 += 1;
    if (ranks.hybrid[i] <= 10) misses.hybrid_top10 += 1;
    if (ranks.hybrid[i] <= DEPTH) misses.hybrid_top50 += 1;
  }
  const better = { dense_before_keyword: 0, keyword_before_dense: 0, tie: 0 };
  for (let i = 0; i < n; i++) {
    const d = ranks.vector[i];
    const k = ranks.keyword[i];
    if (d < k) better.dense_before_keyword += 1;
    else if (k < d) better.keyword_before_dense += 1;
    else better.tie += 1;
  }
  process.stdout.write(`${JSON.stringify({ dev: `conala-${FOLDS}fold-${split}`, n, depth: DEPTH, recall, hybrid_misses_at_1: misses, first_side: better })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
