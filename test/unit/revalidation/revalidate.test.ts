import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { createRunner } from '../../../src/core/agent/runners';
import { reviewQueries } from '../../../src/core/memory/sqlite/queries/review';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { databaseFingerprint } from '../../../src/core/revalidation/fingerprint';
import { revalidate } from '../../../src/core/revalidation/revalidate';
import { revalidationText } from '../../../src/vscode/text/revalidation-text';
import { sampleRecord } from '../../support/records';

describe('revalidation (real JavaScript sandbox, real SQLite files)', function () {
  this.timeout(120_000);
  let dir: string;
  let data: string;
  let store: MemoryStore;
  const runner = createRunner('javascript');
  const options = () => ({ dataPath: data, runner: () => runner });

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-reval-'));
    data = path.join(dir, 'data.sqlite');
    const db = new Database(data);
    db.exec('CREATE TABLE t (x INTEGER, y INTEGER); INSERT INTO t VALUES (1, 10), (2, 20);');
    db.close();
    store = MemoryStore.open(path.join(dir, 'memory.sqlite'));
    store.add(
      [
        sampleRecord({ id: 'count', code: "answer = sql('select count(*) from t')", question: 'how many rows?' }),
        sampleRecord({ id: 'sum-y', code: "answer = sql('select sum(y) from t')", question: 'total of y?' }),
      ].map((r) => ({ ...r, execution: { ...r.execution, language: 'javascript' as const, answer: r.id === 'count' ? [[2]] : [[30]] } })),
      { trigger: 'user' },
    );
  });
  after(() => {
    runner.dispose();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const edit = (sql: string) => {
    const db = new Database(data);
    db.exec(sql);
    db.close();
  };

  it('unchanged on the same data; a data change is answer changed (still valid); a schema change is failing and stale; a clean re-run clears it', async () => {
    let r = await revalidate(store, options());
    assert.deepEqual([r.checked, r.unchanged, r.changed, r.failing], [2, 2, 0, 0]);
    assert.equal(reviewQueries(store).checkOf('count')?.fingerprint, databaseFingerprint(data).id, 'the fingerprint of the data it ran against');

    // Fingerprint unchanged: a changed-only pass has nothing to run.
    assert.equal((await revalidate(store, { ...options(), onlyIfChanged: true })).checked, 0);

    edit('INSERT INTO t VALUES (3, 30)');
    r = await revalidate(store, { ...options(), onlyIfChanged: true });
    assert.deepEqual([r.checked, r.unchanged, r.changed, r.failing], [2, 0, 2, 0], 'data drift: both answers changed');
    assert.equal(reviewQueries(store).staleIds().size, 0);

    edit('ALTER TABLE t RENAME COLUMN y TO z');
    assert.notEqual(databaseFingerprint(data).schema, reviewQueries(store).checkOf('count')?.fingerprint?.split(':')[0]);
    r = await revalidate(store, options());
    assert.deepEqual(r.failing_ids, ['sum-y']);
    assert.deepEqual([r.newly_failing, r.recovered], [1, 0], 'sum-y just became stale');
    assert.equal(r.unchanged, 1, 'the count still gives the answer of its last run');
    r = await revalidate(store, options());
    assert.deepEqual([r.failing, r.newly_failing, r.recovered], [1, 0, 0], 'still failing: already stale, not newly');
    assert.deepEqual(reviewQueries(store).staleIds(), new Set(['sum-y']));
    assert.match(reviewQueries(store).checkOf('sum-y')?.error ?? '', /y/);

    edit('ALTER TABLE t RENAME COLUMN z TO y');
    r = await revalidate(store, options());
    assert.equal(r.failing, 0);
    assert.deepEqual([r.recovered, r.recovered_ids], [1, ['sum-y']], 'the stale record is clean again, and counted so');
    assert.equal(revalidationText(r), `checked 2: 1 clean again (were stale), 0 now failing; answers ${r.unchanged} unchanged, ${r.changed} changed; ${(r.ms / 1000).toFixed(1)} s`);
    assert.equal(reviewQueries(store).staleIds().size, 0, 're-run clean: no longer stale');
    assert.ok(store.audit({ recordId: 'sum-y' }).some((e) => e.operation === 'revalidate' && /no longer stale/.test(e.reason)));
  });

  it('approving a stale record again clears the mark (audited)', () => {
    reviewQueries(store).writeChecks([{ rid: store.ridOf('count')!, fingerprint: 'x:y', state: 'failing', stale: true, answer: null, error: 'gone' }]);
    assert.ok(reviewQueries(store).staleIds().has('count'));
    assert.deepEqual(reviewQueries(store).clearStale(['count', 'sum-y']), ['count']);
    assert.equal(reviewQueries(store).staleIds().size, 0);
  });

  it('cancelling stops before the next program and writes only what ran', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await revalidate(store, { ...options(), signal: controller.signal });
    assert.equal(r.cancelled, true);
    assert.equal(r.checked, 0);
  });

  it('SQL-only programs are answered by the SQL service (no sandbox spawn) with the same verdicts as the sandbox', async () => {
    const shortcutStore = MemoryStore.open(path.join(dir, 'shortcut.sqlite'));
    try {
      shortcutStore.add(
        [
          sampleRecord({ id: 'rows', code: 'answer = sql("select count(*) from t");', question: 'how many rows are there?' }),
          sampleRecord({ id: 'sum', code: 'answer = sql("select sum(y) from t");', question: 'what is the total of y?' }),
          sampleRecord({ id: 'gone', code: 'answer = sql("select sum(w) from t");', question: 'what is the total of w?' }),
        ].map((r) => ({ ...r, execution: { ...r.execution, language: 'javascript' as const, answer: [[0]] } })),
        { trigger: 'user' },
      );
      const spawned: string[] = [];
      const counting = { ...options(), runner: () => ({ run: (req: Parameters<typeof runner.run>[0], sig?: AbortSignal) => (spawned.push(req.code), runner.run(req, sig)) }) as unknown as typeof runner };
      const fast = await revalidate(shortcutStore, counting);
      assert.deepEqual(spawned, ['answer = sql("select sum(w) from t");'], 'only the failing query ran in the sandbox (its error is the sandbox\'s own)');
      const slow = await revalidate(shortcutStore, { ...options(), sqlShortcut: false });
      const states = (r: typeof fast) => [r.checked, r.unchanged + r.changed, r.failing, r.failing_ids];
      assert.deepEqual(states(fast), [3, 2, 1, ['gone']]);
      assert.deepEqual(states(slow), states(fast), 'the sandbox gives the same verdicts');
      assert.equal(slow.unchanged, 2, 'and the same answers: unchanged after the shortcut pass');
    } finally {
      shortcutStore.close();
    }
  });
});
