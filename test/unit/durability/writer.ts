/**
 * Child process for the durability tests: writes batches of records to the
 * database given as argv[2] with id prefix argv[3], `argv[4]` batches of
 * `argv[5]` records (0 = until killed), and prints `ok <ids…>` to stdout after
 * each committed batch.
 */
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

const [file, prefix, batchesArg, sizeArg] = process.argv.slice(2);
const batches = Number(batchesArg);
const size = Number(sizeArg);
const store = MemoryStore.open(file);
const vector = (seed: number) => {
  const v = new Float32Array(16);
  for (let i = 0; i < 16; i++) v[i] = Math.sin(seed * (i + 1));
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
let serial = 0;
for (let b = 0; batches === 0 || b < batches; b++) {
  const inputs = Array.from({ length: size }, () => {
    serial++;
    return {
      id: `${prefix}-${serial}`,
      question: `question ${serial} from ${prefix}: how many patients were admitted?`,
      execution: { code: `answer = ${serial}`, language: 'python' as const, outcome: 'success' as const },
    };
  });
  store.add(inputs, { trigger: 'agent', embeddings: inputs.map((_, i) => vector(serial + i)), embedderId: 'durability-16' });
  process.stdout.write(`ok ${inputs.map((r) => r.id).join(' ')}\n`);
}
store.close();
