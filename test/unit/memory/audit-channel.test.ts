import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createApp } from '../../../src/core/app';
import { nullLogger } from '../../../src/core/logger';
import { auditChannel, lastStatusChangeText } from '../../../src/core/memory/audit-channel';
import { verifySqliteAudit } from '../../../src/core/memory/sqlite/audit-verify';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';
import { runCli } from '../../support/team-processes';
import { DATA_DIR, settingsWith } from '../agent/agent-fixture';

/** A local memory's audit says from which program each approval, rejection and restore came (editor, CLI, MCP). */
describe('audit channel of a SQLite memory (CLI child process vs the editor facade in-process)', function () {
  this.timeout(120_000);
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-channel-'));
    db = path.join(dir, 'memory.sqlite');
    const store = MemoryStore.open(db);
    try {
      store.add(['p1', 'p2', 'p3', 'p4'].map((id) => sampleRecord({ id, status: 'pending', question: `question ${id}` })), { trigger: 'agent' });
    } finally {
      store.close();
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an approval by `agent-memory review` is recorded as cli, one in the editor as editor, and the hash chain still holds', async () => {
    const cli = await runCli(['review', '--db', db, '--approve', 'p1', '--reject', 'p3']);
    assert.equal(cli.code, 0, cli.stderr);

    const app = await createApp({ databasePath: db, channel: 'editor', settings: settingsWith(), demoDataDir: DATA_DIR, storageDir: dir, logger: nullLogger });
    try {
      app.approve(['p2']);
      app.restore(['p3']);
    } finally {
      app.dispose();
    }

    const store = MemoryStore.open(db);
    try {
      const latest = (id: string) => store.audit({ recordId: id })[0];
      assert.equal(latest('p1').operation, 'approve');
      assert.equal(auditChannel(latest('p1')), 'cli');
      assert.equal(latest('p2').operation, 'approve');
      assert.equal(auditChannel(latest('p2')), 'editor');
      const p3 = store.audit({ recordId: 'p3' });
      assert.deepEqual(p3.slice(0, 2).map((e) => [e.operation, auditChannel(e)]), [['restore', 'editor'], ['reject', 'cli']]);
      // Written before any channel was given (a plain store, as tests and old files have): no channel, not a guessed one.
      assert.equal(auditChannel(store.audit({ recordId: 'p4' })[0]), undefined);
      assert.match(lastStatusChangeText(store.audit({ recordId: 'p1' }))!, /^approve \(user\) from the agent-memory CLI, \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      assert.match(lastStatusChangeText(store.audit({ recordId: 'p2' }))!, /^approve \(user\) in the editor, /);
      assert.equal(lastStatusChangeText(store.audit({ recordId: 'p4' })), undefined, 'an added record has no status change yet');
      assert.deepEqual(verifySqliteAudit(store.connectionForQueries()), { ok: true, entries: store.audit({ limit: 1000 }).length, first_bad: null });
    } finally {
      store.close();
    }
    const verify = await runCli(['audit', '--db', db, '--verify', '--json']);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal((JSON.parse(verify.stdout) as { ok: boolean }).ok, true);
    // The CLI lists where each entry came from.
    const listed = await runCli(['audit', '--db', db, '--list', '--record', 'p3', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { operation: string; from: string }[]).map((e) => [e.operation, e.from]), [['restore', 'editor'], ['reject', 'cli'], ['add', '-']]);
    const text = await runCli(['audit', '--db', db, '--list', '--limit', '1']);
    assert.match(text.stdout, /^\d+ {2}\S+ {2}restore p3 {2}by user via editor {2}/);
    const both = await runCli(['audit', '--db', db, '--list', '--verify']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /give one of --verify .* or --list/);
  });

  it('the channel is inside the hashed fields: changing it afterwards breaks the chain at that entry', () => {
    const store = MemoryStore.open(db);
    try {
      const entry = store.audit({ recordId: 'p1' })[0];
      const raw = store.connectionForQueries();
      raw.prepare('UPDATE audit SET evidence = ? WHERE id = ?').run(JSON.stringify({ ...entry.evidence, channel: 'editor' }), entry.id);
      assert.equal(verifySqliteAudit(raw).first_bad, entry.id);
    } finally {
      store.close();
    }
  });

  it('refuses a channel that is not one of editor, cli, mcp', () => {
    assert.throws(() => MemoryStore.open(':memory:', { channel: 'shell' as never }), /Invalid option|invalid/i);
  });
});
