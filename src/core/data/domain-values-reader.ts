/**
 * Reads the value phrases of a SQLite database the agent answers questions
 * about, by column, for the re-ranking's value columns (memory/search/domain-values.ts).
 * Generic: every text column of every table whose distinct values are few
 * enough to be names ({@link MAX_DISTINCT_VALUES}), values up to
 * {@link MAX_VALUE_LENGTH} characters, kept as value phrases are kept from
 * programs (see valuePhrase: no digits-only values, no lone function words).
 * The MIMIC-III demo database gives about 44k phrases in about 0.6 s;
 * {@link readDomainValuesOffThread} reads them in a worker thread (the
 * calling thread only builds the lookup, a slice of phrases per event-loop turn).
 *
 * @example
 * ```ts
 * const values = readDomainValues('data/ehr/mimic3-demo.sqlite');
 * const same = await readDomainValuesOffThread('data/ehr/mimic3-demo.sqlite');
 * values.columnsIn('packed cell transfusion cost'); // [{ phrase: 'packed cell transfusion', columns: ['d_icd_procedures.short_title'] }]
 * ```
 */
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { AgentMemoryError, errorMessage } from '../errors';
import { DomainValues, GroupedDomainValues } from '../memory/search/domain-values';
import { valuePhrase } from '../memory/search/value-masking';
import { workerBootstrap } from '../worker-script';

/** A text column with more distinct values than this holds free text or ids, not names. */
export const MAX_DISTINCT_VALUES = 20_000;
/** Longest value read, in characters. */
export const MAX_VALUE_LENGTH = 80;

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The database's value phrases by `table.column` (lower case), read-only. */
export function readDomainValues(databasePath: string): DomainValues {
  return new DomainValues({ grouped: readGroupedDomainValues(databasePath) });
}

/** The database's value phrases, keyed and grouped with their columns (what the worker thread sends back), read-only. */
export function readGroupedDomainValues(databasePath: string): GroupedDomainValues {
  let db: BetterSqlite3.Database | null = null;
  try {
    db = new BetterSqlite3(databasePath, { readonly: true, fileMustExist: true });
    return DomainValues.group(valuesOf(db));
  } catch (error) {
    throw cannotRead(databasePath, errorMessage(error));
  } finally {
    db?.close();
  }
}

function cannotRead(databasePath: string, cause: string): AgentMemoryError {
  return new AgentMemoryError('DATABASE', `Cannot read the values of ${databasePath} (${cause}); pass the SQLite file the agent queries.`);
}

/** What the worker thread posts back (domain-values-worker.ts). */
export const DomainValuesMessageSchema = z.discriminatedUnion('type', [
  /** The grouped phrases, packed into one string (DomainValues.pack). */
  z.object({ type: z.literal('values'), packed: z.string() }),
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type DomainValuesMessage = z.infer<typeof DomainValuesMessageSchema>;

/**
 * {@link readDomainValues} in a worker thread: the columns are scanned and the phrases keyed there, so
 * the calling thread (the editor's extension host) only builds the lookup from the packed phrases, in
 * slices between event-loop turns.
 * Rejects with the same typed error when the file cannot be read.
 */
export function readDomainValuesOffThread(databasePath: string): Promise<DomainValues> {
  const bootstrap = workerBootstrap(__dirname, 'domain-values-worker');
  return new Promise<DomainValues>((resolve, reject) => {
    const worker = new Worker(bootstrap, { eval: true, workerData: { file: databasePath } });
    let settled = false;
    const settle = (action: () => void): void => {
      if (settled) return;
      settled = true;
      action();
      void worker.terminate();
    };
    worker.on('message', (raw: unknown) => {
      const message = DomainValuesMessageSchema.safeParse(raw);
      if (!message.success) return settle(() => reject(cannotRead(databasePath, 'the worker thread sent an unreadable answer')));
      const m = message.data;
      settle(() => (m.type === 'values' ? resolve(DomainValues.unpack(m.packed)) : reject(cannotRead(databasePath, m.message))));
    });
    worker.on('error', (error) => settle(() => reject(cannotRead(databasePath, errorMessage(error)))));
    worker.on('exit', (code) => settle(() => reject(cannotRead(databasePath, `the worker thread exited with code ${code}`))));
  });
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
