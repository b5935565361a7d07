import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { MAX_DISTINCT_VALUES, MAX_VALUE_LENGTH, readDomainValues, readDomainValuesOffThread } from '../../../src/core/data/domain-values-reader';
import { isAgentMemoryError } from '../../../src/core/errors';
import { DomainValues } from '../../../src/core/memory/search/domain-values';

describe('readDomainValues (the values of the database the agent queries, by column)', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'domain-values-'));
    file = path.join(dir, 'data.sqlite');
    const db = new BetterSqlite3(file);
    db.exec(`
      CREATE TABLE d_labitems (itemid INTEGER, label VARCHAR(200));
      INSERT INTO d_labitems VALUES (1, 'Potassium'), (2, 'Packed Cell Transfusion'), (3, 'of'), (4, '1234'), (5, '${'x'.repeat(MAX_VALUE_LENGTH + 1)}');
      CREATE TABLE d_items (itemid INTEGER, label TEXT, amount REAL);
      INSERT INTO d_items VALUES (1, 'potassium', 1.5), (2, 'Heart Rate', 2);
      CREATE TABLE notes (id INTEGER, body TEXT);
    `);
    // A column with more distinct values than names have holds free text: left out.
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i <= ${MAX_DISTINCT_VALUES}) INSERT INTO notes SELECT i, 'note number ' || i FROM n`).run();
    db.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads text columns\' value phrases with every column holding them; skips numbers, lone function words, long values and free text', () => {
    const before = fs.readFileSync(file);
    const values = readDomainValues(file);
    assert.deepEqual(values.columnsIn('What was the last potassium and heart rate?'), [
      { phrase: 'potassium', columns: ['d_items.label', 'd_labitems.label'] },
      { phrase: 'heart rate', columns: ['d_items.label'] },
    ]);
    assert.deepEqual(values.columnsIn('cost of a packed cell transfusion'), [{ phrase: 'packed cell transfusion', columns: ['d_labitems.label'] }]);
    assert.deepEqual(values.columnsIn('1234 of note number 7'), []);
    assert.equal(values.size, 3);
    assert.ok(fs.readFileSync(file).equals(before), 'the database is read, never written');
  });

  it('a missing or unreadable file is a DATABASE error that says what to pass', () => {
    assert.throws(() => readDomainValues(path.join(dir, 'missing.sqlite')), (err) => isAgentMemoryError(err, 'DATABASE') && /pass the SQLite file the agent queries/.test(err.message));
    const junk = path.join(dir, 'junk.sqlite');
    fs.writeFileSync(junk, 'not a database at all, just text that is long enough to look like a file'.repeat(20));
    assert.throws(() => readDomainValues(junk), (err) => isAgentMemoryError(err, 'DATABASE'));
  });

  it('off the thread: a worker thread reads the same values, and the calling thread keeps turning meanwhile', async function () {
    this.timeout(60_000);
    const before = fs.readFileSync(file);
    const demo = path.resolve(__dirname, '../../../data/ehr/mimic3-demo.sqlite');
    const demoBefore = fs.readFileSync(demo);
    // Event-loop turns while the demo database's ~44k phrases are read (≈ 0.6 s on this thread when read in line).
    let turns = 0;
    let last = performance.now();
    let longestBlock = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestBlock = Math.max(longestBlock, now - last);
      last = now;
      turns += 1;
    }, 5);
    const [offThread, demoValues] = await Promise.all([readDomainValuesOffThread(file), readDomainValuesOffThread(demo)]);
    // One more tick, so the block that built the lookup (after the worker's message) is measured too.
    await new Promise((resolve) => setTimeout(resolve, 20));
    clearInterval(ticker);
    assert.deepEqual(offThread.columnsIn('What was the last potassium and heart rate?'), readDomainValues(file).columnsIn('What was the last potassium and heart rate?'));
    assert.equal(offThread.size, 3);
    const started = performance.now();
    const inLine = readDomainValues(demo);
    const inLineMs = performance.now() - started;
    assert.equal(demoValues.size, inLine.size);
    for (const q of ['What is the cost of a packed cell transfusion?', 'the last calculated total co2 of patient 4', 'how many patients got d10w intake?']) {
      assert.deepEqual(demoValues.columnsIn(q), inLine.columnsIn(q), q);
    }
    assert.ok(turns >= 10, `the event loop turned ${turns} times while the worker read`);
    // What stays on this thread (building the lookup from the grouped phrases) blocks it less than reading in line does.
    assert.ok(longestBlock < inLineMs, `longest block ${longestBlock.toFixed(0)} ms off the thread vs ${inLineMs.toFixed(0)} ms in line`);
    process.stderr.write(`      [domain values] longest block ${longestBlock.toFixed(0)} ms off the thread, ${inLineMs.toFixed(0)} ms read in line\n`);
    assert.ok(fs.readFileSync(file).equals(before) && fs.readFileSync(demo).equals(demoBefore), 'the databases are read, never written');
  });

  it('off the thread: an unreadable file rejects with the same DATABASE error', async () => {
    await assert.rejects(readDomainValuesOffThread(path.join(dir, 'missing.sqlite')), (err) => isAgentMemoryError(err, 'DATABASE') && /pass the SQLite file the agent queries/.test(err.message));
  });

  it('packed for the thread crossing, the values unpack to the same lookup, in slices; a column name holding a separator is left out', async () => {
    const pairs: [string, string][] = [['Potassium', 'd_labitems.label'], ['potassium', 'd_items.label'], ['Heart Rate', 'd_items.label'], ['aspirin', 'odd\u0000table.drug'], ['aspirin', 'prescriptions.drug']];
    const direct = new DomainValues(pairs);
    const unpacked = await DomainValues.unpack(DomainValues.pack(DomainValues.group(pairs)), 1);
    const q = 'Was aspirin given before the last potassium and heart rate?';
    assert.deepEqual(unpacked.columnsIn(q), [
      { phrase: 'aspirin', columns: ['prescriptions.drug'] },
      { phrase: 'potassium', columns: ['d_items.label', 'd_labitems.label'] },
      { phrase: 'heart rate', columns: ['d_items.label'] },
    ]);
    assert.equal(unpacked.size, direct.size);
    assert.equal((await DomainValues.unpack('')).size, 0);
  });
});
