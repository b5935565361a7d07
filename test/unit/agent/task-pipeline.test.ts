import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { buildPrompt } from '../../../src/core/agent/loop/prompt-builder';
import { CODER_SYSTEM_PROMPT, LlmCodeGenerator } from '../../../src/core/agent/loop/generators';
import { ModelClient } from '../../../src/core/agent/model/model-client';
import { MemoryRetriever } from '../../../src/core/agent/retriever';
import { createRunner, toolboxDocs, type CodeRunner } from '../../../src/core/agent/runners';
import { EditorEvaluator, GoldEvaluator } from '../../../src/core/agent/task-evaluators';
import { runTaskPipeline, TaskPipelineDeps } from '../../../src/core/agent/task-pipeline';
import { nullLogger } from '../../../src/core/logger';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import type { AfterTaskInput } from '../../../src/core/policy/memory-manager';
import { MemoryManager } from '../../../src/core/policy/memory-manager';
import { codeSimilarity } from '../../../src/core/similarity/code';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';
import { jsReply } from './agent-fixture';

const DB = path.resolve(__dirname, '..', '..', '..', 'data', 'ehr', 'mimic3-demo.sqlite');
const QUESTION = 'What is the administration method for danazol?';
const CORRECT = `const rows = sql("select distinct prescriptions.route from prescriptions where prescriptions.drug = 'danazol'");\nanswer = rows;`;
/** Four memories, more and less like the question; each ~500 tokens of code so the budget bites. */
const MEMORIES = [
  'What is the administration method for aspirin?',
  'What is the administration method for heparin?',
  'How many patients were admitted in 2104?',
  'What was the last lab test of patient 10006?',
];
const padding = `// ${'x'.repeat(2000)}\n`;

/**
 * The one task pipeline with real parts: an in-memory SQLite store with
 * sqlite-vec, the hybrid retriever, the memory manager, the LLM coder through
 * the real openai client against the scripted HTTP server, the JavaScript sandbox
 * and the EHR database.
 */
describe('task pipeline: retrieve → prompt (budget) → loop → evaluate → afterTask → log', function () {
  this.timeout(30_000);
  let fake: FakeOpenAI;
  let store: MemoryStore;
  let retriever: MemoryRetriever;
  let manager: MemoryManager;
  let runner: CodeRunner;
  const embedder = new HashingEmbedder();

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    store = MemoryStore.open(':memory:');
    store.add(
      MEMORIES.map((question) => ({ question, execution: { code: `${padding}answer = ${JSON.stringify(question)};`, language: 'javascript' as const, answer: null, outcome: 'success' as const }, provenance: 'seed' as const })),
      { trigger: 'import', reason: 'test memory', embeddings: MEMORIES.map((q) => embedder.embedSync(q)), embedderId: embedder.id },
    );
    retriever = MemoryRetriever.open(store, { file: null });
    manager = new MemoryManager(store, { addition: 'all', mode: 'benchmark', codeSimilarity });
    runner = createRunner('javascript', { logger: nullLogger });
  });
  afterEach(async () => {
    runner.dispose();
    manager.dispose();
    retriever.close();
    store.close();
    await fake.close();
  });

  function deps(budget: number, seen: AfterTaskInput[]): TaskPipelineDeps {
    const model = new ModelClient({ baseURL: fake.baseURL, model: 'fake-coder', apiKey: 'sk-test' }, nullLogger);
    return {
      memory: { tasks: manager.tasks, store, afterTask: (input) => (seen.push(input), manager.afterTask(input)) },
      retriever,
      embedder,
      generator: new LlmCodeGenerator(model, budget),
      evaluator: new GoldEvaluator([['po']], 'all'),
      run: (request, signal) => runner.run(request, signal),
      toolboxDocs: (lang) => toolboxDocs(lang),
      modelKind: 'llm',
    };
  }

  /** A budget that holds the fixed parts and exactly `n` of the (equally long) demonstrations. */
  function budgetFor(n: number): number {
    const parts = { system: CODER_SYSTEM_PROMPT, toolboxDocs: toolboxDocs('javascript'), demonstrations: [], question: QUESTION, debugTurns: [], language: 'javascript' as const };
    const fixed = buildPrompt(parts, 1e9).tokens;
    const one = buildPrompt({ ...parts, demonstrations: [{ recordId: 'a', question: MEMORIES[0], code: `${padding}answer = ${JSON.stringify(MEMORIES[0])};`, inputSimilarity: 1 }] }, 1e9).tokens - fixed;
    return fixed + n * one + Math.floor(one / 2);
  }

  it('reports which retrieved demonstrations were placed in the prompt and hands afterTask a per-demonstration shown flag', async () => {
    fake.enqueue({ reply: jsReply(CORRECT) });
    const seen: AfterTaskInput[] = [];
    const r = await runTaskPipeline(deps(budgetFor(2), seen), QUESTION, { databasePath: DB, language: 'javascript', k: 4, maxDebugRounds: 0 });

    assert.equal(r.run.demonstrations.length, 4, 'K = 4 retrieved');
    const shownIds = r.run.demonstrations.filter((d) => d.shown).map((d) => d.recordId);
    assert.equal(shownIds.length, 2, 'the budget holds two of them');
    const bySimilarity = [...r.run.demonstrations].sort((a, b) => (b.inputSimilarity ?? 0) - (a.inputSimilarity ?? 0));
    assert.deepEqual(new Set(shownIds), new Set(bySimilarity.slice(0, 2).map((d) => d.recordId)), 'the two most similar are kept');
    // What the model actually received is what `shown` says.
    const prompt = JSON.stringify(fake.requests[0].body.messages);
    for (const d of r.run.demonstrations) assert.equal(prompt.includes(`Question: ${d.question}`), shownIds.includes(d.recordId), d.question);

    assert.equal(seen.length, 1);
    assert.deepEqual(seen[0].retrieved.map((d) => [d.recordId, d.shown]), r.run.demonstrations.map((d) => [d.recordId, shownIds.includes(d.recordId)]));
    const log = manager.tasks.get(r.run.taskIndex)!.log as { retrieved: { recordId: string; shown: boolean }[]; memorySize: number; correct: number };
    assert.deepEqual(log.retrieved.filter((d) => d.shown).map((d) => d.recordId).sort(), [...shownIds].sort());
    assert.equal(log.memorySize, MEMORIES.length + 1, "'all' added the task");
    assert.equal(log.correct, 1);
    assert.deepEqual(r.verdict, { kind: 'correct', source: 'gold' });
    assert.equal(r.after.similarity.inputSimilarity, bySimilarity[0].inputSimilarity, 'similarity computed once, by the memory manager');
  });

  it('a generous budget shows every retrieved demonstration', async () => {
    fake.enqueue({ reply: jsReply(CORRECT) });
    const seen: AfterTaskInput[] = [];
    const r = await runTaskPipeline(deps(1e9, seen), QUESTION, { databasePath: DB, language: 'javascript', k: 4, maxDebugRounds: 0 });
    assert.equal(r.run.demonstrations.filter((d) => d.shown).length, 4);
    assert.ok(seen[0].retrieved.every((d) => d.shown === true));
  });

  it('demonstrations come only from records of the task language: Go and Python records nearer the question are not shown in a JavaScript prompt', async () => {
    // Records other agents stored (e.g. over MCP): the very question, in Go and in Python.
    const go = 'func route(db *sql.DB) string { return query(db, "danazol") } // GO-MARKER';
    const py = "answer = sql(\"select route from prescriptions where drug = 'danazol'\")  # PY-MARKER";
    const [goRec, pyRec] = store.add(
      [
        { question: QUESTION, execution: { code: go, language: 'go', outcome: 'success' as const }, provenance: 'agent' as const },
        { question: `${QUESTION} (python)`, execution: { code: py, language: 'python', outcome: 'success' as const }, provenance: 'agent' as const },
      ],
      { trigger: 'agent', embeddings: [embedder.embedSync(QUESTION), embedder.embedSync(`${QUESTION} (python)`)], embedderId: embedder.id },
    );
    // Without the language filter (memory_search for other agents) these two are the best matches.
    const any = retriever.retrieve(QUESTION, embedder.embedSync(QUESTION), 2);
    assert.deepEqual(new Set(any.map((d) => d.recordId)), new Set([goRec.id, pyRec.id]), 'the foreign records are the nearest');

    fake.enqueue({ reply: jsReply(CORRECT) });
    const r = await runTaskPipeline(deps(1e9, []), QUESTION, { databasePath: DB, language: 'javascript', k: 4, maxDebugRounds: 0 });
    assert.deepEqual(r.run.demonstrations.map((d) => d.language), ['javascript', 'javascript', 'javascript', 'javascript'], 'K = 4 JavaScript records (the search widened past the two foreign ones)');
    assert.deepEqual(new Set(r.run.demonstrations.map((d) => d.question)), new Set(MEMORIES));
    assert.deepEqual(r.run.demonstrations.map((d) => d.rank), [0, 1, 2, 3]);
    const prompt = JSON.stringify(fake.requests[0].body.messages);
    assert.ok(!prompt.includes('GO-MARKER') && !prompt.includes('PY-MARKER'), 'no foreign code reaches the prompt');
    // Nor the retrieval log (no Φ for records the agent was never shown).
    const logged = (manager.tasks.get(r.run.taskIndex)!.log as { retrieved: { recordId: string }[] }).retrieved.map((d) => d.recordId);
    assert.ok(!logged.includes(goRec.id) && !logged.includes(pyRec.id), JSON.stringify(logged));
  });

  it('coarse Φ in the editor: a program that ran but printed an empty answer gets 0, not 1', async () => {
    fake.enqueue({ reply: jsReply(`answer = [];`) });
    const d = deps(1e9, []);
    const r = await runTaskPipeline({ ...d, evaluator: new EditorEvaluator('coarse', null, nullLogger) }, QUESTION, { databasePath: DB, language: 'javascript', k: 4, maxDebugRounds: 0 });
    assert.equal(r.run.outcome, 'success', 'it ran');
    assert.equal(r.evaluation.utility.utility, 0, 'but answered nothing');
    assert.deepEqual(r.verdict, { kind: 'unknown', source: 'none' });
  });
});
