/**
 * Benchmark: per-pair time of the Python code similarity over the 300 oracle
 * pairs (both directions). Run: `npx tsx src/core/similarity/code/bench.ts`
 * (optional argument: path of a python-pairs.jsonl file).
 * Prints cold time (parse + dump + match, cache cleared before each pair) and
 * warm time (both programs already in the parsed-program cache: matching only), per mode.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { clearCodeSimilarityCache, codeSimilarityDetail, SimilarityMode } from './index';

interface Pair {
  a: string;
  b: string;
}

const file = process.argv[2] ?? path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'python-pairs.jsonl');
const pairs = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Pair);
const ROUNDS = 5;

function run(mode: SimilarityMode, cold: boolean): number {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of pairs) {
      if (cold) clearCodeSimilarityCache();
      sink += codeSimilarityDetail(p.a, p.b, 'python', { mode }).matched;
      sink += codeSimilarityDetail(p.b, p.a, 'python', { mode }).matched;
    }
  }
  const ns = Number(process.hrtime.bigint() - start);
  if (sink < 0) process.stdout.write('');
  return ns / 1e6 / (ROUNDS * pairs.length);
}

for (const mode of ['pycode_similar', 'structural'] as const) run(mode, true); // warm-up (JIT)
for (const mode of ['pycode_similar', 'structural'] as const) {
  const cold = run(mode, true);
  const warm = run(mode, false);
  process.stdout.write(
    `${mode.padEnd(15)} pairs=${pairs.length} (both directions each) cold ${cold.toFixed(3)} ms/pair  warm ${warm.toFixed(3)} ms/pair\n`,
  );
}
