import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { demoStream, readDemoTasks } from '../../../src/core/data/ehr-tasks';
import { AppHandle, DATA_DIR, openApp, settingsWith } from './agent-fixture';

/** The facade the editor uses, in plain Node: dashboard data, deletion plans, JSONL, audit. */
describe('app facade (createApp) beyond single tasks', () => {
  let h: AppHandle;
  before(async () => {
    h = await openApp(settingsWith({ addition: { policy: 'all' } }));
    await h.app.seedDemoMemory(30);
    const stream = demoStream(readDemoTasks(path.join(DATA_DIR, 'ehrsql-mimic3-tasks.jsonl'))).slice(0, 8);
    await h.app.runStream(stream, {});
  });
  after(() => h.dispose());

  it('dashboard data agrees with the task log it is computed from', () => {
    const d = h.app.dashboard();
    const tasks = h.app.tasks();
    assert.equal(d.tasks.length, tasks.length);
    // The demo stream carries gold answers: every task is checked against gold, its Φ is the gold verdict.
    assert.ok(d.tasks.every((t) => t.verdict.source === 'gold'));
    const last = d.accuracyCurve[d.accuracyCurve.length - 1];
    assert.equal(last.accuracy, tasks.reduce((s, t) => s + t.utility!, 0) / tasks.length);
    assert.equal(d.summary.correct + d.summary.wrong, tasks.length);
    // add-all: memory grows by one per task from the 30 seeds.
    assert.deepEqual(d.memorySizeCurve.map((p) => p.size), tasks.map((_, i) => 31 + i));
    assert.equal(d.counts.active, 38);
    const histogramTotal = d.utilityHistogram.reduce((s, b) => s + b.count, 0);
    assert.equal(histogramTotal, h.app.list({ status: 'active', limit: 1000 }).items.filter((r) => r.stats.meanUtility !== null).length);
    assert.ok(d.similarityScatter.every((p) => p.input >= -1 && p.input <= 1 && p.output >= 0 && p.output <= 1));
  });

  it('a deletion plan that comes back as plain data (webview/command round trip) applies only the ids it lists', () => {
    const active = h.app.list({ status: 'active', limit: 1000 }).items;
    // A capacity two below the current size: the dry run names real candidates.
    h.app.configure({ ...settingsWith({ addition: { policy: 'all' } }), capacity: active.length - 2 });
    const plan = h.app.planDeletion('capacity');
    assert.equal(plan.policy, 'capacity');
    assert.ok(plan.candidates.length > 0, 'the capacity plan names at least one record');
    const planned = new Set(plan.candidates.map((c) => c.recordId));
    const outsider = active.find((r) => !planned.has(r.id))!;
    // The round trip adds a record the dry run did not name: it must not be deleted; the planned ones are.
    const roundTripped = JSON.parse(JSON.stringify({ ...plan, candidates: [...plan.candidates, { recordId: outsider.id, question: outsider.question, rule: 'capacity', evidence: {} }] }));
    assert.equal(h.app.applyDeletion(roundTripped), planned.size);
    assert.equal(h.app.get(outsider.id)?.status, 'active', 'a record the fresh dry run does not name is never deleted');
    for (const id of planned) assert.equal(h.app.get(id)?.status, 'deleted');
    assert.equal(h.app.counts().active, active.length - planned.size);
    h.app.restore([...planned]);
    h.app.configure(settingsWith({ addition: { policy: 'all' } }));
    assert.equal(h.app.counts().active, active.length);
  });

  it('export → import round-trips records into a fresh memory and re-embeds them', async () => {
    const file = path.join(h.dir, 'export.jsonl');
    const n = await h.app.exportJsonl(file, 'active');
    assert.equal(n, h.app.counts().active);
    assert.equal(fs.readFileSync(file, 'utf8').trim().split('\n').length, n);
    const other = await openApp(settingsWith());
    try {
      assert.equal(await other.app.importJsonl(file), n);
      assert.equal(other.app.counts().active, n);
      const audit = other.app.audit();
      assert.ok(audit.some((e) => e.operation === 'import' && e.trigger === 'import'));
      assert.ok(audit.some((e) => e.operation === 're-embed'));
      // The imported memory is retrievable: a seed question finds itself first.
      const seed = other.app.list({ status: 'active', limit: 1 }).items[0];
      const result = await other.app.runTask(seed.question);
      assert.equal(result.demonstrations[0]?.question, seed.question);
    } finally {
      other.dispose();
    }
  });
});
