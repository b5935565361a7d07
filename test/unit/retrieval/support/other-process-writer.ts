/**
 * A second process writing to a memory: `node -r tsx/cjs other-process-writer.ts DB add ID QUESTION`
 * (embedded with the store's built-in embedder) or `... DB delete ID`.
 */
import { storeEmbedder } from '../../../../src/core/app/embedding';
import { nullLogger } from '../../../../src/core/logger';
import { MemoryStore } from '../../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../../support/records';

const [db, action, id, question] = process.argv.slice(2);
const store = MemoryStore.open(db);
if (action === 'add') {
  const embedder = storeEmbedder(store, nullLogger);
  store.add([sampleRecord({ id, question })], { trigger: 'user', embeddings: [embedder.embedSync(question)], embedderId: embedder.id });
} else {
  store.transition([id], 'delete', { trigger: 'user' });
}
store.close();
