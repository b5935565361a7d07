import * as assert from 'node:assert/strict';
import { demonstrationLanguages } from '../../../src/core/agent/demonstration-languages';
import { MemoryRetriever } from '../../../src/core/agent/retriever';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';

/** The one rule for which records may be the agent's demonstrations, on a real store and retriever. */
describe('demonstration languages', () => {
  const embedder = new HashingEmbedder();
  const QUESTION = 'count the admissions of 2104';
  // One record per language, all about the same question (so all rank near the top).
  const LANGUAGES = ['python', 'py', 'go', 'typescript', 'javascript', 'js'];
  let store: MemoryStore;
  let retriever: MemoryRetriever;
  const ids = new Map<string, string>();

  before(() => {
    store = MemoryStore.open(':memory:');
    const added = store.add(
      LANGUAGES.map((language) => ({ question: `${QUESTION} (${language})`, execution: { code: `// ${language}`, language, outcome: 'success' as const }, provenance: 'agent' as const })),
      { trigger: 'agent', embeddings: LANGUAGES.map((l) => embedder.embedSync(`${QUESTION} (${l})`)), embedderId: embedder.id },
    );
    added.forEach((r) => ids.set(r.execution.language, r.id));
    retriever = MemoryRetriever.open(store, { file: null });
  });
  after(() => {
    retriever.close();
    store.close();
  });

  const retrieve = (languages?: readonly string[]) =>
    retriever.retrieve(QUESTION, embedder.embedSync(QUESTION), 10, languages ? { languages } : {}).map((d) => d.language).sort();

  it('a Python task is shown python and py records only', () => {
    assert.deepEqual(demonstrationLanguages('python'), ['python', 'python3', 'py']);
    assert.deepEqual(retrieve(demonstrationLanguages('python')), ['py', 'python']);
  });

  it('a JavaScript task is shown javascript and js records, not TypeScript or Go', () => {
    assert.deepEqual(retrieve(demonstrationLanguages('javascript')), ['javascript', 'js']);
  });

  it('without a language filter (memory_search for other agents) every language is returned', () => {
    assert.deepEqual(retrieve(), [...LANGUAGES].sort());
  });

  it('ranks count the records returned, from 0', () => {
    const demos = retriever.retrieve(QUESTION, embedder.embedSync(QUESTION), 10, { languages: demonstrationLanguages('python') });
    assert.deepEqual(demos.map((d) => d.rank), [0, 1]);
    assert.deepEqual(new Set(demos.map((d) => d.recordId)), new Set([ids.get('python'), ids.get('py')]));
  });
});
