import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';
import { runCli } from '../../support/team-processes';
import { MAIN, ROOT, TSX } from '../mcp/mcp-support';

describe('agent-memory review on a SQLite file (real child processes)', function () {
  this.timeout(120_000);
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-review-'));
    db = path.join(dir, 'memory.sqlite');
    const store = MemoryStore.open(db);
    try {
      store.add([sampleRecord({ id: 'p1', status: 'pending' }), sampleRecord({ id: 'p2', status: 'pending', question: 'average stay' }), sampleRecord({ id: 'a1' })], { trigger: 'user' });
    } finally {
      store.close();
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists the pending queue, approves and rejects (audited as the user), and refuses a transition the state does not allow, changing nothing', async () => {
    const queue = await runCli(['review', '--db', db, '--json']);
    assert.equal(queue.code, 0, queue.stderr);
    const listed = JSON.parse(queue.stdout) as { counts: Record<string, number>; pending: { id: string }[] };
    assert.deepEqual(listed.counts, { pending: 2, active: 1, deleted: 0 });
    assert.deepEqual(listed.pending.map((p) => p.id).sort(), ['p1', 'p2']);

    const done = await runCli(['review', '--db', db, '--approve', 'p1', '--reject', 'p2', '--reason', 'checked by hand']);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /approve p1: now active\nreject p2: now deleted\n/);
    assert.match(done.stdout, /2 active, 0 pending, 1 deleted/);

    const again = await runCli(['review', '--db', db, '--approve', 'p1', '--restore', 'p2']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /INVALID_STATE: Cannot approve 'p1': it is active/);
    const store = MemoryStore.open(db);
    try {
      assert.deepEqual(store.counts(), { pending: 0, active: 2, deleted: 1 }, 'the restore after the refused approve did not run');
      const audit = store.audit({ recordId: 'p1' });
      assert.equal(audit[0].operation, 'approve');
      assert.equal(audit[0].reason, 'checked by hand');
      assert.equal(audit[0].trigger, 'user');
    } finally {
      store.close();
    }
    // Several actions of one call: all or nothing (the approval before the refused restore is rolled back).
    const adding = MemoryStore.open(db);
    try {
      adding.add([sampleRecord({ id: 'p3', status: 'pending', question: 'a third pending one' })], { trigger: 'user' });
    } finally {
      adding.close();
    }
    const mixed = await runCli(['review', '--db', db, '--approve', 'p3', '--restore', 'p1']);
    assert.equal(mixed.code, 1);
    assert.match(mixed.stderr, /INVALID_STATE: Cannot restore 'p1': it is active/);
    const after = MemoryStore.open(db);
    try {
      assert.equal(after.get('p3')?.status, 'pending', 'the approval in the same call did not happen');
      assert.deepEqual(after.counts(), { pending: 1, active: 2, deleted: 1 });
    } finally {
      after.close();
    }
    const missing = await runCli(['review', '--db', path.join(dir, 'nope.sqlite')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /NOT_FOUND: No memory database at/);
    assert.ok(!fs.existsSync(path.join(dir, 'nope.sqlite')));
  });

  it('shows each pending record\'s outcome; approving a failed one without a terminal is refused unless --approve-failed', async () => {
    const failedDb = path.join(dir, 'failed.sqlite');
    const store = MemoryStore.open(failedDb);
    try {
      const failed = sampleRecord({ id: 'oom', status: 'pending', question: 'paginate every row at once' });
      store.add([{ ...failed, execution: { ...failed.execution, outcome: 'error' } }, sampleRecord({ id: 'ok', status: 'pending' })], { trigger: 'user' });
    } finally {
      store.close();
    }
    const queue = await runCli(['review', '--db', failedDb]);
    assert.equal(queue.code, 0, queue.stderr);
    assert.match(queue.stdout, /pending oom {2}FAILED \(error\) {2}paginate every row at once/);
    assert.match(queue.stdout, /pending ok {2}success {2}how many patients/);
    const json = JSON.parse((await runCli(['review', '--db', failedDb, '--json'])).stdout) as { pending: { id: string; outcome: string }[] };
    assert.deepEqual(Object.fromEntries(json.pending.map((p) => [p.id, p.outcome])), { oom: 'error', ok: 'success' });

    // Not a terminal (a pipe): refused, naming the record and its outcome; nothing changes, the other approval included.
    const refused = await runCli(['review', '--db', failedDb, '--approve', 'ok', '--approve', 'oom']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /INVALID_STATE: Refusing to approve a record whose code failed: oom \(outcome error: paginate every row at once\)\. .*--approve-failed/);
    const unchanged = MemoryStore.open(failedDb);
    try {
      assert.deepEqual(unchanged.counts(), { pending: 2, active: 0, deleted: 0 });
    } finally {
      unchanged.close();
    }
    const approved = await runCli(['review', '--db', failedDb, '--approve', 'oom', '--approve-failed']);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /approve oom: now active/);
    // A record that worked needs no confirmation.
    const plain = await runCli(['review', '--db', failedDb, '--approve', 'ok']);
    assert.equal(plain.code, 0, plain.stderr);
  });

  it('at a terminal (a pseudo-terminal from script(1)) it asks before approving a failed record: no keeps it pending, yes approves', function () {
    if (spawnSync('script', ['--version']).status !== 0) this.skip();
    const ttyDb = path.join(dir, 'tty.sqlite');
    const store = MemoryStore.open(ttyDb);
    try {
      const failed = sampleRecord({ id: 'slow', status: 'pending', question: 'sum every row' });
      store.add([{ ...failed, execution: { ...failed.execution, outcome: 'timeout' } }], { trigger: 'user' });
    } finally {
      store.close();
    }
    const atTerminal = (answer: string) =>
      spawnSync('script', ['-qec', `'${process.execPath}' '${TSX}' '${MAIN}' review --db '${ttyDb}' --approve slow`, '/dev/null'], { cwd: ROOT, input: `${answer}\n`, encoding: 'utf8', timeout: 60_000 });
    const no = atTerminal('n');
    assert.match(no.stdout, /This record's code failed: slow \(outcome timeout: sum every row\)\. Approve anyway, making the code retrievable\? \[y\/N\]/);
    assert.match(no.stdout, /CANCELLED: Nothing was approved/);
    const yes = atTerminal('y');
    assert.match(yes.stdout, /approve slow: now active/);
    const after = MemoryStore.open(ttyDb);
    try {
      assert.equal(after.get('slow')?.status, 'active');
    } finally {
      after.close();
    }
  });
});
