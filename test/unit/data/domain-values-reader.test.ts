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

  it('off the thread: a worker thread reads the same values; the calling thread opens no statement on the database', async function () {
    this.timeout(60_000);
    const before = fs.readFileSync(file);
    const demo = path.resolve(__dirname, '../../../data/ehr/mimic3-demo.sqlite');
    const demoBefore = fs.readFileSync(demo);
    const expected = readDomainValues(demo);
    // SQLite cannot be read on this thread while the read is in flight: every statement prepared here throws. A worker
    // thread loads its own copy of better-sqlite3, so only a read made in another thread succeeds (no timing involved).
    const prepare = Object.getOwnPropertyDescriptor(BetterSqlite3.prototype, 'prepare');
    assert.ok(prepare, 'better-sqlite3 prepares statements through its prototype');
    Object.defineProperty(BetterSqlite3.prototype, 'prepare', {
      ...prepare,
      value: () => {
        throw new Error('a statement was prepared on the calling thread');
      },
    });
    let offThread: DomainValues;
    let demoValues: DomainValues;
    try {
      assert.throws(() => readDomainValues(file), (err) => isAgentMemoryError(err, 'DATABASE') && /prepared on the calling thread/.test(err.message), 'a read in line is caught');
      [offThread, demoValues] = await Promise.all([readDomainValuesOffThread(file), readDomainValuesOffThread(demo)]);
    } finally {
      Object.defineProperty(BetterSqlite3.prototype, 'prepare', prepare);
    }
    assert.deepEqual(offThread.columnsIn('What was the last potassium and heart rate?'), readDomainValues(file).columnsIn('What was the last potassium and heart rate?'));
    assert.equal(offThread.size, 3);
    assert.equal(demoValues.size, expected.size);
    for (const q of ['What is the cost of a packed cell transfusion?', 'the last calculated total co2 of patient 4', 'how many patients got d10w intake?', 'What does a 3 deg burn w loss-thigh represent?']) {
      assert.deepEqual(demoValues.columnsIn(q), expected.columnsIn(q), q);
    }
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
