import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { MAX_DISTINCT_VALUES, MAX_VALUE_LENGTH, readDomainValues } from '../../../src/core/data/domain-values-reader';
import { isAgentMemoryError } from '../../../src/core/errors';

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
});
