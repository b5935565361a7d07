import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { goldProgram } from '../../../src/core/data/gold-program';
import { HybridSearch } from '../../../src/core/memory/search/hybrid-search';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { fitTextStatistics } from '../../../src/core/similarity/text/text-statistics';

interface Task { split: string; question: string; template: string; gold_sql: string }

describe('retrieval quality through the real store (SQLite + sqlite-vec + MiniSearch)', function () {
  // Child processes / whole-memory rebuilds: their run time follows the machine's load (13 s seen under CI load); not a speed check.
  this.timeout(120_000);
  it('the fitted built-in embedder in hybrid mode reaches hit@1 ≥ 0.50 on EHRSQL valid → test, with product-format code', () => {
    const rows = fs.readFileSync(path.resolve(__dirname, '../../../data/ehr/ehrsql-mimic3-tasks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Task);
    const memory = rows.filter((r) => r.split === 'valid');
    const queries = rows.filter((r) => r.split === 'test');
    const store = MemoryStore.open(':memory:');
    // Records hold what the agent stores: the SQL inside the toolbox call.
    const texts = memory.map((r) => ({ question: r.question, code: goldProgram(r.gold_sql, 'python') }));
    const embedder = new HashingEmbedder({ statistics: fitTextStatistics(texts) });
    store.add(
      memory.map((r, i) => ({ id: `m${i}`, question: r.question, execution: { code: texts[i].code, language: 'python' as const, outcome: 'success' as const } })),
      { trigger: 'import', embeddings: texts.map((t) => embedder.embedSync(t.question)), embedderId: embedder.id },
    );
    const search = HybridSearch.open(store);
    const template = new Map(memory.map((r, i) => [`m${i}`, r.template]));
    let hits = 0;
    for (const q of queries) {
      const [top] = search.search({ text: q.question, vector: embedder.embedSync(q.question) }, 4);
      if (top && template.get(top.recordId) === q.template) hits++;
    }
    search.close();
    store.close();
    const hitAt1 = hits / queries.length;
    process.stdout.write(`      real-store hybrid hit@1 = ${hitAt1.toFixed(4)} (${hits}/${queries.length})\n`);
    assert.ok(hitAt1 >= 0.5, `hit@1 ${hitAt1}`);
  });
});
