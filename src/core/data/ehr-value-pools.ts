/**
 * The values a `{…}` slot may take, read from the demo database: the distinct
 * values of the slot's `table.column`, sorted (so a seeded draw is
 * reproducible). A dictionary title (diagnosis, procedure, lab, item) is only
 * drawn when some event uses it, as EHRSQL drew its values from the database's
 * own records.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { AgentMemoryError } from '../errors';

/** Dictionary columns restricted to the codes that occur in an event table. */
const USED_ONLY: Record<string, string> = {
  'd_icd_diagnoses.short_title': 'select distinct short_title as v from d_icd_diagnoses where icd9_code in (select icd9_code from diagnoses_icd)',
  'd_icd_procedures.short_title': 'select distinct short_title as v from d_icd_procedures where icd9_code in (select icd9_code from procedures_icd)',
  'd_labitems.label': 'select distinct label as v from d_labitems where itemid in (select itemid from labevents)',
  'd_items.label': 'select distinct label as v from d_items where itemid in (select itemid from inputevents_cv union select itemid from outputevents union select itemid from chartevents)',
};

/**
 * Per-patient pools: the column's values in that patient's own records (as
 * EHRSQL filled a patient question with the patient's events). `?` is the subject_id.
 */
const OF_PATIENT: Record<string, string> = {
  'd_icd_diagnoses.short_title': 'select distinct short_title as v from d_icd_diagnoses where icd9_code in (select icd9_code from diagnoses_icd where subject_id = ?)',
  'd_icd_procedures.short_title': 'select distinct short_title as v from d_icd_procedures where icd9_code in (select icd9_code from procedures_icd where subject_id = ?)',
  'd_labitems.label': 'select distinct label as v from d_labitems where itemid in (select itemid from labevents where subject_id = ?)',
  'd_items.label': 'select distinct label as v from d_items where itemid in (select itemid from inputevents_cv where subject_id = ? union select itemid from outputevents where subject_id = ?1 union select itemid from chartevents where subject_id = ?1)',
  'prescriptions.drug': 'select distinct drug as v from prescriptions where subject_id = ?',
  'prescriptions.route': 'select distinct route as v from prescriptions where subject_id = ?',
  'microbiologyevents.spec_type_desc': 'select distinct spec_type_desc as v from microbiologyevents where subject_id = ?',
  'transfers.careunit': 'select distinct careunit as v from transfers where subject_id = ?',
  'transfers.wardid': 'select distinct wardid as v from transfers where subject_id = ?',
};

/** `table.column` as a safe identifier pair, or an error naming it. */
function identifiers(column: string): [string, string] {
  const m = /^([a-z_][a-z_0-9]*)\.([a-z_][a-z_0-9]*)$/.exec(column);
  if (!m) throw new AgentMemoryError('INVALID_INPUT', `Not a table.column: '${column}'; a value slot names a column of the demo database.`);
  return [m[1], m[2]];
}

/**
 * @example
 * const pools = new ValuePools(db);
 * pools.values(['prescriptions.drug']); // ['acetaminophen', …]
 */
export class ValuePools {
  private readonly cache = new Map<string, string[]>();

  constructor(private readonly db: BetterSqlite3.Database) {}

  /** The union of the columns' values (of `patient`'s own records when given and the column has a per-patient pool; strings without a quote; integers as text), sorted. */
  values(columns: readonly string[], patient?: string): string[] {
    const key = [...columns].sort().join('+') + (patient === undefined ? '' : `@${patient}`);
    let out = this.cache.get(key);
    if (out) return out;
    const all = new Set<string>();
    for (const column of columns) {
      const [table, col] = identifiers(column);
      const own = patient === undefined ? undefined : OF_PATIENT[column];
      const sql = own ?? USED_ONLY[column] ?? `select distinct ${col} as v from ${table} where ${col} is not null`;
      const rows = (own ? this.db.prepare(sql.replace(/\?1/g, '?')).all(...Array<number>((sql.match(/\?/g) ?? []).length).fill(Number(patient))) : this.db.prepare(sql).all()) as { v: unknown }[];
      for (const { v } of rows) {
        if (typeof v === 'number' && Number.isInteger(v)) all.add(String(v));
        else if (typeof v === 'string' && v.trim() !== '' && !v.includes("'") && v === v.trim()) all.add(v);
      }
    }
    out = [...all].sort();
    this.cache.set(key, out);
    return out;
  }
}
