/**
 * Reads the value phrases of a SQLite database the agent answers questions
 * about, by column, for the re-ranking's value columns (memory/search/domain-values.ts).
 * Generic: every text column of every table whose distinct values are few
 * enough to be names ({@link MAX_DISTINCT_VALUES}), values up to
 * {@link MAX_VALUE_LENGTH} characters, kept as value phrases are kept from
 * programs (see valuePhrase: no digits-only values, no lone function words).
 * The MIMIC-III demo database gives about 44k phrases in about 0.6 s.
 *
 * @example
 * ```ts
 * const values = readDomainValues('data/ehr/mimic3-demo.sqlite');
 * values.columnsIn('packed cell transfusion cost'); // [{ phrase: 'packed cell transfusion', columns: ['d_icd_procedures.short_title'] }]
 * ```
 */
import BetterSqlite3 from 'better-sqlite3';
import { AgentMemoryError, errorMessage } from '../errors';
import { DomainValues } from '../memory/search/domain-values';
import { valuePhrase } from '../memory/search/value-masking';

/** A text column with more distinct values than this holds free text or ids, not names. */
export const MAX_DISTINCT_VALUES = 20_000;
/** Longest value read, in characters. */
export const MAX_VALUE_LENGTH = 80;

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The database's value phrases by `table.column` (lower case), read-only. */
export function readDomainValues(databasePath: string): DomainValues {
  let db: BetterSqlite3.Database | null = null;
  try {
    db = new BetterSqlite3(databasePath, { readonly: true, fileMustExist: true });
    return new DomainValues(valuesOf(db));
  } catch (error) {
    throw new AgentMemoryError('DATABASE', `Cannot read the values of ${databasePath} (${errorMessage(error)}); pass the SQLite file the agent queries.`);
  } finally {
    db?.close();
  }
}

function valuesOf(db: BetterSqlite3.Database): [string, string][] {
  const entries: [string, string][] = [];
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
  for (const { name: table } of tables) {
    const columns = db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string; type: string }[];
    for (const { name: column, type } of columns) {
      if (type !== '' && !/char|text|clob/i.test(type)) continue;
      const c = quote(column);
      const distinct = (db.prepare(`SELECT count(DISTINCT ${c}) AS n FROM ${quote(table)}`).get() as { n: number }).n;
      if (distinct > MAX_DISTINCT_VALUES) continue;
      const rows = db.prepare(`SELECT DISTINCT ${c} AS v FROM ${quote(table)} WHERE typeof(${c}) = 'text' AND length(${c}) <= ?`).all(MAX_VALUE_LENGTH) as { v: string }[];
      const name = `${table}.${column}`.toLowerCase();
      for (const { v } of rows) {
        const phrase = valuePhrase(v);
        if (phrase !== null) entries.push([phrase, name]);
      }
    }
  }
  return entries;
}
