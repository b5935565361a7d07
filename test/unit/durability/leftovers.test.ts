import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { nullLogger } from '../../../src/core/logger';
import { STALE_TEMP_AGE_MS } from '../../../src/core/memory/keyword/keyword-index-file';
import { KEYWORD_FILE_SUFFIX, KeywordIndex } from '../../../src/core/memory/keyword/keyword-index';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { sampleRecord } from '../../support/records';
import { mountTmpfs } from './tmpfs';

const REPO = path.resolve(__dirname, '..', '..', '..');

describe('leftovers of a crash and a full disk', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-leftovers-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('removes keyword index temp files of dead processes at the next open; keeps a live write of another process', async () => {
    const file = path.join(dir, 'memory.sqlite');
    const store = MemoryStore.open(file);
    store.add([sampleRecord({ id: 'a' })], { trigger: 'user' });
    const index = `${file}${KEYWORD_FILE_SUFFIX}`;
    // A real process that has exited: its pid is free.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadTemp = `${index}.tmp-${dead.stdout}`;
    const ownTemp = `${index}.tmp-${process.pid}`;
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const liveTemp = `${index}.tmp-${live.pid}`;
    try {
      for (const f of [deadTemp, ownTemp, liveTemp]) fs.writeFileSync(f, '{"format":1');
      // An old file whose pid is alive again (reused): stale all the same.
      const reusedPid = `${index}.tmp-${process.ppid}`;
      fs.writeFileSync(reusedPid, 'x');
      const past = (Date.now() - STALE_TEMP_AGE_MS - 60_000) / 1000;
      fs.utimesSync(reusedPid, past, past);
      const keywords = KeywordIndex.open(store, { logger: nullLogger });
      keywords.close();
      const left = fs.readdirSync(dir).filter((n) => n.includes('.tmp-'));
      assert.deepEqual(left, [path.basename(liveTemp)], 'only the live write of another process is kept');
    } finally {
      live.kill('SIGKILL');
      store.close();
    }
  });

  it('disk full during seed: the real cause is reported, and no record is left without a vector', () => {
    const fsx = mountTmpfs(400);
    try {
      const db = path.join(fsx.dir, 'memory.sqlite');
      const out = spawnSync(process.execPath, ['--require', 'tsx/cjs', path.join(REPO, 'src', 'cli', 'main.ts'), 'seed', '--db', db, '--count', '300'], { cwd: REPO, encoding: 'utf8' });
      assert.equal(out.status, 1, out.stdout + out.stderr);
      assert.match(out.stderr, /DISK_FULL: The disk holding the memory database .* is full/);
      assert.doesNotMatch(out.stderr, /not open|dispose|SqliteError/);
      const check = new BetterSqlite3(db, { readonly: true });
      const row = check.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(embedding IS NULL), 0) AS missing FROM records').get() as { n: number; missing: number };
      check.close();
      assert.equal(row.missing, 0, `${row.missing} of ${row.n} records have no vector`);
      assert.deepEqual(fs.readdirSync(fsx.dir).filter((n) => n.includes('.tmp-')), []);
    } finally {
      fsx.unmount();
    }
  });
});
