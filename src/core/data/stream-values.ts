/**
 * The `{…}` value slots of an EHRSQL line and how a new value replaces the
 * old one in its question and gold SQL (issue 19: a paper-length stream built
 * the way EHRSQL was built, templates × values).
 *
 * A slot's kind says where its values come from: `patient_id` and `ward_id`
 * are integers (written bare in the SQL); every other slot is a string
 * literal `'…'` of one or more `table.column` of the demo database.
 */

export interface ValueSlot {
  /** The key in the line's `values` (e.g. `drug_name1`). */
  key: string;
  /** The value as the question writes it (EHRSQL lower-cases it). */
  text: string;
  /** `number`: bare integer in the SQL; `literal`: a quoted string. */
  form: 'number' | 'literal';
  /** The pool the slot draws from: `table.column` (several when the SQL has several). */
  columns: string[];
}

/** Integer slots and their `table.column`. */
const NUMBER_SLOTS: Record<string, string> = { patient_id: 'admissions.subject_id', ward_id: 'transfers.wardid' };

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The integer text of a numeric value (`50.0` → `50`). */
function integerText(v: unknown): string | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+(\.0+)?$/.test(v) ? Number(v) : NaN;
  return Number.isInteger(n) ? String(n) : null;
}

/**
 * A word-bounded, case-insensitive pattern for `text`: no word character just
 * before or after it, whatever its own first and last characters (the value
 * `.9% normal saline` is not inside the question's `0.9% normal saline`).
 */
export function wordPattern(text: string): RegExp {
  return new RegExp(`(?<!\\w)${escapeRegExp(text)}(?!\\w)`, 'gi');
}

/** True when `text` appears word for word (case-sensitive, word-bounded) in `question`. */
export function appearsIn(question: string, text: string): boolean {
  return new RegExp(wordPattern(text).source, 'g').test(question);
}

/**
 * The slots of a line whose value can be located in both its question and its
 * SQL; a value that cannot be located (e.g. a vital threshold written as a
 * column placeholder) yields no slot and stays as it is.
 */
export function valueSlots(question: string, sql: string, values: Record<string, unknown>): ValueSlot[] {
  const slots: ValueSlot[] = [];
  for (const [key, raw] of Object.entries(values)) {
    // EHRSQL fills some templates' slots with one value (abbreviation = diagnosis_name = procedure_name): one slot, one new value.
    if (slots.some((s) => s.text === String(raw))) continue;
    const base = key.replace(/\d+$/, '');
    if (base in NUMBER_SLOTS) {
      const text = integerText(raw);
      if (text === null || !wordPattern(text).test(question)) continue;
      const column = NUMBER_SLOTS[base];
      if (!new RegExp(`${escapeRegExp(column.split('.')[1])} = ${text}(?!\\d)`).test(sql)) continue;
      slots.push({ key, text, form: 'number', columns: [column] });
      continue;
    }
    if (typeof raw !== 'string' || raw.includes("'") || !wordPattern(raw).test(question)) continue;
    const columns = [...new Set([...sql.matchAll(new RegExp(`([a-z_0-9]+)\\.([a-z_0-9]+) = '${escapeRegExp(raw)}'`, 'g'))].map((m) => `${m[1]}.${m[2]}`))];
    if (columns.length === 0) continue;
    slots.push({ key, text: raw, form: 'literal', columns });
  }
  return slots;
}

/** Replaces every occurrence of each slot's old text by its new value (through placeholders, so one value inside another is safe). */
function substitute(text: string, slots: readonly ValueSlot[], next: readonly string[], pattern: (slot: ValueSlot) => RegExp, render: (slot: ValueSlot, value: string) => string): string {
  const order = slots.map((_, i) => i).sort((a, b) => slots[b].text.length - slots[a].text.length);
  let out = text;
  for (const i of order) out = out.replace(pattern(slots[i]), () => `\u0000${i}\u0000`);
  return out.replace(/\u0000(\d+)\u0000/g, (_, i: string) => render(slots[Number(i)], next[Number(i)]));
}

/**
 * The question and SQL with each slot's value replaced by `next[i]`.
 *
 * @example
 * fillValues('when did patient 5 get aspirin?', "… subject_id = 5 … drug = 'aspirin'", slots, ['7', 'heparin']);
 */
export function fillValues(question: string, sql: string, slots: readonly ValueSlot[], next: readonly string[]): { question: string; sql: string } {
  return {
    question: substitute(question, slots, next, (s) => wordPattern(s.text), (_, v) => v),
    sql: substitute(
      sql,
      slots,
      next,
      (s) => (s.form === 'number' ? new RegExp(`(?<=${escapeRegExp(s.columns[0].split('.')[1])} = )${escapeRegExp(s.text)}(?!\\d)`, 'g') : new RegExp(`'${escapeRegExp(s.text)}'`, 'g')),
      (s, v) => (s.form === 'number' ? v : `'${v}'`),
    ),
  };
}
