import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { TaskLog } from '../../../src/core/memory/sqlite/task-log';
import { IDLE_CHECKPOINT_FRAMES, SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES, WAL_AUTOCHECKPOINT_PAGES } from '../../../src/core/memory/sqlite/wal-checkpoint';
import { sampleRecord } from '../../support/records';

const REPO = path.resolve(__dirname, '..', '..', '..');
const WRITER = path.join(REPO, 'test', 'unit', 'durability', 'checkpoint-writer.ts');

const idle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const size = (file: string): number => fs.statSync(file).size;
/** A record whose question fills a few pages (so a commit visibly grows the file once checkpointed). */
const bulky = (id: string) => sampleRecord({ id, question: `${id}: ${'which patients were admitted twice in the same week? '.repeat(150)}` });

describe('idle WAL checkpoints', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wal-checkpoint-'));
    file = path.join(dir, 'memory.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a commit leaves its pages in the WAL; the checkpoint copies them into the file once the program is idle', async () => {
    const store = MemoryStore.open(file);
    try {
      await idle(); // the schema's commit, if any, checkpointed
      const before = size(file);
      store.add([bulky('a')], { trigger: 'user' });
      assert.equal(store.checkpoints.scheduled, true);
      assert.equal(size(file), before, 'the commit itself did not write the database file');
      const runs = store.checkpoints.stats.runs;
      await idle();
      assert.equal(store.checkpoints.scheduled, false);
      assert.equal(store.checkpoints.stats.runs, runs + 1);
      assert.ok(size(file) > before, `the checkpoint copied the pages (${size(file)} > ${before})`);
      assert.equal(store.get('a')?.question.startsWith('a: '), true);
    } finally {
      store.close();
    }
  });

  it('keeps SQLite’s automatic checkpoint as a larger safety net; checkpoints: sqlite keeps the default and schedules nothing', async () => {
    const idleStore = MemoryStore.open(file);
    assert.equal(idleStore.connectionForQueries().pragma('wal_autocheckpoint', { simple: true }), WAL_AUTOCHECKPOINT_PAGES);
    idleStore.close();
    const sqliteStore = MemoryStore.open(file, { checkpoints: 'sqlite' });
    try {
      assert.equal(sqliteStore.connectionForQueries().pragma('wal_autocheckpoint', { simple: true }), SQLITE_DEFAULT_AUTOCHECKPOINT_PAGES);
      sqliteStore.add([bulky('s')], { trigger: 'user' });
      assert.equal(sqliteStore.checkpoints.scheduled, false);
      await idle();
      assert.equal(sqliteStore.checkpoints.stats.runs, 0);
    } finally {
      sqliteStore.close();
    }
  });

  it('paces the checkpoints at about IDLE_CHECKPOINT_FRAMES frames, not one per commit, and the WAL stays bounded', async () => {
    const store = MemoryStore.open(file);
    const tasks = new TaskLog(store);
    try {
      const commits = 400;
      for (let i = 0; i < commits; i++) {
        const t = tasks.begin(`question ${i}`);
        tasks.setUtility(t, i % 2);
        await idle();
      }
      const { runs, frames } = store.checkpoints.stats;
      assert.ok(runs >= 2, `checkpoints ran (${runs})`);
      assert.ok(runs < commits / 10, `far fewer checkpoints (${runs}) than commits (${2 * commits})`);
      assert.ok(frames / runs <= 2 * IDLE_CHECKPOINT_FRAMES, `about ${IDLE_CHECKPOINT_FRAMES} frames each (${Math.round(frames / runs)})`);
      // At most one pacing interval of frames is waiting in the WAL.
      const [row] = store.connectionForQueries().pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
      assert.ok(row.log <= 2 * IDLE_CHECKPOINT_FRAMES, `WAL frames after the writes: ${row.log}`);
    } finally {
      store.close();
    }
  });

  it('commits inside one transaction count once, and nothing runs after the store is closed', async () => {
    const store = MemoryStore.open(file);
    await idle();
    const runs = store.checkpoints.stats.runs;
    store.atomically(() => {
      store.add([bulky('x')], { trigger: 'user' });
      assert.equal(store.checkpoints.scheduled, false, 'nothing is scheduled before the outer commit');
      store.add([bulky('y')], { trigger: 'user' });
    });
    assert.equal(store.checkpoints.scheduled, true, 'the commit scheduled one');
    store.close();
    await idle();
    assert.equal(store.checkpoints.stats.runs, runs, 'the scheduled checkpoint was cancelled with the store');
    const reopened = MemoryStore.open(file);
    try {
      assert.deepEqual(reopened.getMany(['x', 'y']).map((r) => r.id), ['x', 'y']);
    } finally {
      reopened.close();
    }
  });

  it('a process killed with SIGKILL between a commit and its deferred checkpoint loses nothing', async () => {
    MemoryStore.open(file).close(); // create and migrate; closed cleanly (no WAL)
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', WRITER, file, '30'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, s) => resolve(s)));
    assert.equal(signal, 'SIGKILL', stderr);
    const line = /^ok (.*) scheduled=(true|false) wal=(\d+)$/m.exec(stdout);
    assert.ok(line, `the child acknowledged its commits: ${stdout}${stderr}`);
    const acked = line[1].split(' ');
    assert.equal(acked.length, 30);
    assert.equal(line[2], 'true', 'a checkpoint was pending when the process died');
    assert.ok(Number(line[3]) > 0 && size(`${file}-wal`) > 0, 'the commits were in the WAL');
    assert.equal(fs.readFileSync(file).includes('question 1: how many patients'), false, 'and not yet in the database file');
    const store = MemoryStore.open(file);
    try {
      assert.equal(store.connectionForQueries().pragma('integrity_check', { simple: true }), 'ok');
      assert.deepEqual(store.getMany(acked).map((r) => r.id), acked);
      assert.equal(store.counts().active, 30);
      assert.equal(store.audit({ limit: 1000 }).length, 30);
    } finally {
      store.close();
    }
  });
});
