import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { isAgentMemoryError } from '../../../src/core/errors';
import { backupDatabase, restoreDatabase } from '../../../src/core/memory/io/backup';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';

const REPO = path.resolve(__dirname, '..', '..', '..');
const WRITER = path.join(__dirname, 'writer.ts');
const BATCH = 7;
const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const cli = (args: string[]) => spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(REPO, 'src', 'cli', 'main.ts'), ...args], { cwd: REPO, encoding: 'utf8' });

function fill(file: string, prefix: string, n: number): void {
  const store = MemoryStore.open(file);
  store.add(Array.from({ length: n }, (_, i) => sampleRecord({ id: `${prefix}${i}` })), { trigger: 'user', returnRecords: false });
  store.close();
}

describe('backup and restore', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-backup-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('backs up a consistent snapshot while another process keeps writing', async () => {
    const file = path.join(dir, 'memory.sqlite');
    MemoryStore.open(file).close();
    const writer = spawn(process.execPath, ['--require', 'tsx/cjs', WRITER, file, 'w', '0', String(BATCH)], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let acked = 0;
      writer.stdout.on('data', (d: Buffer) => (acked += (d.toString().match(/^ok /gm) ?? []).length));
      while (acked < 30) await new Promise((r) => setTimeout(r, 50));
      const results: { records: number; changeId: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const out = path.join(dir, `backup-${i}.sqlite`);
        const { records } = await backupDatabase(file, out);
        const copy = new BetterSqlite3(out, { readonly: true });
        assert.equal((copy.pragma('quick_check') as { quick_check: string }[])[0].quick_check, 'ok');
        const changeId = Number((copy.prepare("SELECT value FROM meta WHERE key = 'change_id'").get() as { value: string }).value);
        const count = (copy.prepare('SELECT COUNT(*) AS n FROM records').get() as { n: number }).n;
        copy.close();
        assert.equal(count, records);
        // Each writer transaction adds BATCH records and bumps change_id once: a torn copy breaks this.
        assert.equal(count, changeId * BATCH, `backup ${i}: ${count} records for change ${changeId}`);
        results.push({ records, changeId });
      }
      assert.ok(results[2].records > results[0].records, 'the writer kept writing during the backups');
      // Each copy is one self-contained file: nothing of the partial copy (or its WAL) is left beside it.
      assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('backup-')).sort(), ['backup-0.sqlite', 'backup-1.sqlite', 'backup-2.sqlite']);
    } finally {
      writer.kill('SIGKILL');
    }
  });

  it('never overwrites an existing backup file; refuses a damaged source', async () => {
    const file = path.join(dir, 'memory.sqlite');
    fill(file, 'a', 3);
    const out = path.join(dir, 'b.sqlite');
    fs.writeFileSync(out, 'keep me');
    await assert.rejects(backupDatabase(file, out), /already exists/);
    assert.equal(fs.readFileSync(out, 'utf8'), 'keep me');
    fs.writeFileSync(path.join(dir, 'junk.sqlite'), 'not sqlite at all '.repeat(100));
    await assert.rejects(backupDatabase(path.join(dir, 'junk.sqlite'), path.join(dir, 'c.sqlite')), (e: unknown) => isAgentMemoryError(e, 'NOT_A_DATABASE'));
    assert.ok(!fs.existsSync(path.join(dir, 'c.sqlite')));
    await assert.rejects(backupDatabase(file, path.join(dir, 'no-such-folder', 'd.sqlite')), (e: unknown) => isAgentMemoryError(e, 'NOT_FOUND') && /The folder for the backup, .*no-such-folder, does not exist/.test(e.message));
  });

  it('restores into a database in use: keeps the old one as .bak, the open store sees the backup', async () => {
    const file = path.join(dir, 'memory.sqlite');
    fill(file, 'old', 2);
    const backup = path.join(dir, 'backup.sqlite');
    const src = path.join(dir, 'src.sqlite');
    fill(src, 'new', 5);
    await backupDatabase(src, backup);
    const open = MemoryStore.open(file);
    assert.equal(open.counts().active, 2);
    const changeBefore = open.changeId;
    const { records, previous } = await restoreDatabase(backup, file);
    assert.equal(records, 5);
    assert.deepEqual(open.counts(), { pending: 0, active: 5, deleted: 0 }, 'the open connection sees the restored records');
    assert.ok(open.get('new0') && !open.get('old0'));
    assert.ok(open.changeId > changeBefore, 'derived indexes see a newer change id and rebuild');
    open.close();
    const kept = MemoryStore.open(previous!);
    assert.ok(kept.get('old1'));
    kept.close();
  });

  it('checks the backup before touching anything: a damaged backup leaves the database as it was', async () => {
    const file = path.join(dir, 'memory.sqlite');
    fill(file, 'old', 2);
    const checkpoint = MemoryStore.open(file);
    checkpoint.connectionForQueries().pragma('wal_checkpoint(TRUNCATE)');
    checkpoint.close();
    const before = sha(file);
    const bad = path.join(dir, 'bad.sqlite');
    fill(bad, 'x', 300);
    const bytes = fs.readFileSync(bad);
    const page = bytes.readUInt16BE(16);
    for (let p = 2; p < 6; p++) bytes.fill(0x5a, p * page + 8, (p + 1) * page - 8);
    fs.writeFileSync(bad, bytes);
    fs.rmSync(`${bad}-wal`, { force: true });
    await assert.rejects(restoreDatabase(bad, file), (e: unknown) => isAgentMemoryError(e, 'DATABASE_DAMAGED') && /bad\.sqlite is damaged/.test(e.message));
    const text = path.join(dir, 'notes.txt');
    fs.writeFileSync(text, 'not a backup\n'.repeat(100));
    await assert.rejects(restoreDatabase(text, file), (e: unknown) => isAgentMemoryError(e, 'NOT_A_DATABASE') && /The backup .*notes\.txt is not an Agent Memory database\. Choose another backup \(--from\); .*memory\.sqlite was not touched/.test(e.message));
    assert.equal(sha(file), before);
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('before-restore')), []);
  });

  it('refuses with LOCKED while another process holds the write lock, changing nothing', async () => {
    const file = path.join(dir, 'memory.sqlite');
    fill(file, 'old', 2);
    const backup = path.join(dir, 'backup.sqlite');
    const src = path.join(dir, 'src.sqlite');
    fill(src, 'new', 4);
    await backupDatabase(src, backup);
    const holder = spawn(process.execPath, ['-e', `const D = require('better-sqlite3'); const d = new D(${JSON.stringify(file)}); d.exec('BEGIN IMMEDIATE'); d.prepare("INSERT INTO meta(key, value) VALUES ('held', '1')").run(); process.stdout.write('locked\\n'); setTimeout(() => {}, 60000);`], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve) => holder.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve()));
      await assert.rejects(restoreDatabase(backup, file), (e: unknown) => isAgentMemoryError(e, 'LOCKED'));
    } finally {
      holder.kill('SIGKILL');
    }
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.includes('before-restore')), [], 'nothing changed, so no copy of it is left');
    const store = MemoryStore.open(file);
    assert.ok(store.get('old0') && !store.get('new0'));
    store.close();
  });

  it('CLI: --help exits 0 with a usage line; backup then restore', () => {
    for (const command of ['backup', 'restore']) {
      const help = cli([command, '--help']);
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, new RegExp(`^Usage: agent-memory ${command} `));
    }
    const file = path.join(dir, 'memory.sqlite');
    fill(file, 'r', 3);
    const out = path.join(dir, 'copy.sqlite');
    const b = cli(['backup', '--db', file, '--out', out]);
    assert.equal(b.status, 0, b.stderr);
    assert.match(b.stdout, /backed up 3 record\(s\)/);
    const target = path.join(dir, 'fresh.sqlite');
    const r = cli(['restore', '--from', out, '--db', target]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /restored 3 record\(s\)/);
    const bad = cli(['backup', '--db', file]);
    assert.equal(bad.status, 2, 'a missing option is a usage error (exit 2, as agent-memory --help documents)');
    assert.match(bad.stderr, /--out/);
  });
});
