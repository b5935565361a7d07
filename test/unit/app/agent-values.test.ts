/**
 * Issue 35: the app gives its retriever the agent database's values whenever the agent has a database,
 * re-ranking on or off (the re-ranking applies only with them; memory_search's relevance floor reads them).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { refitAndReembed } from '../../../src/core/app/embedding';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { SettingsSchema, type Settings } from '../../../src/core/settings';
import { openApp, type AppHandle } from '../agent/agent-fixture';

/** EHR-style records: none names the drug or diagnosis the value-heavy question asks about. */
const MEMORY = [
  { question: 'How many patients were prescribed danazol after a diagnosis of hypertension?', code: `answer = sql("select count(*) from prescriptions where drug = 'danazol'")` },
  { question: 'How many patients were prescribed aspirin this year?', code: `answer = sql("select count(*) from prescriptions where drug = 'aspirin'")` },
  { question: 'What is the intake method of insulin?', code: `answer = sql("select distinct route from prescriptions where drug = 'insulin'")` },
  ...Array.from({ length: 40 }, (_, i) => ({ question: `What was the last heart rate of patient ${100 + i}?`, code: `answer = sql("select valuenum from chartevents where subject_id = ${100 + i}")` })),
];
/** Made mostly of values of the demo database that no stored record holds: above the floor only with those values. */
const VALUE_HEAVY = 'How many patients were prescribed metoprolol tartrate after a diagnosis of crnry athrscl natve vssl?';

function settings(rerank: boolean, dataPath = ''): Settings {
  return SettingsSchema.parse({ model: {}, retrieval: { rerank }, addition: {}, deletion: {}, runner: {}, agent: { dataPath }, misaligned: {} });
}

async function seededApp(s: Settings): Promise<AppHandle> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-values-'));
  const store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
  try {
    store.add(
      MEMORY.map((r) => ({ question: r.question, execution: { code: r.code, language: 'python', outcome: 'success' as const }, provenance: 'seed' as const })),
      { trigger: 'user', reason: 'test seed' },
    );
    refitAndReembed(store, 'user');
  } finally {
    store.close();
  }
  return openApp(s, dir);
}

const CLIENT = { via: 'mcp' as const, name: 'test' };

async function answered(h: AppHandle): Promise<number> {
  return (await h.app.memoryTools().search({ query: VALUE_HEAVY, k: 4 }, CLIENT)).results.length;
}

describe('the agent\'s database values reach the retriever whenever there is a database (issue 35)', function () {
  this.timeout(60_000);

  for (const rerank of [false, true]) {
    it(`re-ranking ${rerank ? 'on' : 'off'}: memory_search's floor reads the bundled demo database's values, read in the background at start`, async () => {
      const h = await seededApp(settings(rerank));
      try {
        let n = 0;
        for (let waited = 0; (n = await answered(h)) === 0 && waited < 20_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
        assert.ok(n > 0, 'the value-heavy question passes the floor once the values are read');
      } finally {
        h.dispose();
      }
    });
  }

  it('an agent database that does not exist gives no values: the value-heavy question stays below the floor', async () => {
    const h = await seededApp(settings(true, path.join(os.tmpdir(), 'no-such-agent-database.sqlite')));
    try {
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(await answered(h), 0);
    } finally {
      h.dispose();
    }
  });
});
