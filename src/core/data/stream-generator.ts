/**
 * The paper-length EHR stream (issue 19), built the way EHRSQL was built:
 * templates × values. Each template's question paraphrases and gold SQL (from
 * the EHRSQL lines) get their `{…}` values and patient ids replaced by values
 * drawn from the demo database; the gold SQL is run on the database and only
 * lines with a non-empty answer join the stream.
 *
 * - Quotas are fixed before anything runs: proportional to the template's
 *   EHRSQL frequency (its line count in the source file), with a cap.
 * - Stream lines rotate through the template's TEST paraphrases; the initial
 *   memory's lines come from its VALID paraphrases (one per paraphrase).
 * - Seeded: the same source, database and options give the same lines.
 */
import { z } from 'zod';
import { seededRandom } from '../random';
import { fillValues, valueSlots } from './stream-values';

export const SourceLineSchema = z.object({
  id: z.string(),
  split: z.enum(['valid', 'test']),
  question: z.string().min(1),
  template: z.string().min(1),
  values: z.record(z.string(), z.unknown()),
  gold_sql: z.string().min(1),
  uses_synthetic_cost: z.boolean().default(false),
});
export type SourceLine = z.infer<typeof SourceLineSchema>;

export const ANSWER_STATUSES = ['nonempty', 'empty', 'all_null', 'zero_or_false'] as const;
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];

export interface StreamLine {
  id: string;
  split: 'valid' | 'test';
  question: string;
  template: string;
  values: Record<string, string>;
  gold_sql: string;
  answer: unknown[][];
  answer_status: AnswerStatus;
  uses_synthetic_cost: boolean;
  /** The EHRSQL line (paraphrase) this line was made from. */
  source_id: string;
}

export const GeneratorOptionsSchema = z.object({
  seed: z.number().int().min(0),
  /** Sum of the quotas before the cap. */
  target: z.number().int().positive(),
  /** Most stream lines per template. */
  cap: z.number().int().positive(),
  /** Value draws per stream line before the paraphrase is passed over. */
  attempts: z.number().int().positive().default(8),
  /** Longest answer (JSON characters) a stream line may have; keeps the data file small. */
  maxAnswerChars: z.number().int().positive().default(2000),
});
export type GeneratorOptions = z.input<typeof GeneratorOptionsSchema>;

/** EHRSQL's answer status of a result (as the source file's `answer_status`). */
export function answerStatus(rows: readonly unknown[][]): AnswerStatus {
  if (rows.length === 0) return 'empty';
  const cells = rows.flat();
  if (cells.every((c) => c === null)) return 'all_null';
  if (rows.length === 1 && cells.length === 1 && (cells[0] === 0 || cells[0] === false)) return 'zero_or_false';
  return 'nonempty';
}

/**
 * Each template's quota: round(target × its share of the source lines), at
 * least 1, at most `cap`; only templates with a test paraphrase get one.
 */
export function templateQuotas(source: readonly SourceLine[], target: number, cap: number): Map<string, number> {
  const freq = new Map<string, number>();
  for (const l of source) freq.set(l.template, (freq.get(l.template) ?? 0) + 1);
  const withTest = new Set(source.filter((l) => l.split === 'test').map((l) => l.template));
  const quotas = new Map<string, number>();
  for (const [template, n] of [...freq].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (withTest.has(template)) quotas.set(template, Math.min(cap, Math.max(1, Math.round((target * n) / source.length))));
  }
  return quotas;
}

export interface GeneratorDeps {
  /** The values of the slot's columns (sorted, deterministic); of the patient's own records when `patient` is given. */
  pool: (columns: readonly string[], patient?: string) => readonly string[];
  /** Runs gold SQL on the demo database; throws on an SQL error. */
  run: (sql: string) => unknown[][];
}

export interface GeneratedStream {
  lines: StreamLine[];
  quotas: Map<string, number>;
}

/** FNV-1a of a string, for per-template seeds. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** One instance of a paraphrase with freshly drawn values, or null when a draw is impossible or the SQL fails. */
function instance(line: SourceLine, rand: () => number, deps: GeneratorDeps): Omit<StreamLine, 'id'> | null {
  // The patient first; the other values come from that patient's records (as EHRSQL filled patient questions).
  const slots = valueSlots(line.question, line.gold_sql, line.values).sort((a, b) => Number(b.key === 'patient_id') - Number(a.key === 'patient_id'));
  const next: string[] = [];
  for (const slot of slots) {
    const patient = slot.key !== 'patient_id' && slots[0]?.key === 'patient_id' ? next[0] : undefined;
    const pool = deps.pool(slot.columns, patient).filter((v) => !next.includes(v));
    if (pool.length === 0) return null;
    next.push(pool[Math.floor(rand() * pool.length)]);
  }
  const filled = fillValues(line.question, line.gold_sql, slots, next);
  let answer: unknown[][];
  try {
    answer = deps.run(filled.sql);
  } catch {
    return null;
  }
  const values = Object.fromEntries(slots.map((s, i) => [s.key, next[i]]));
  return { split: line.split, question: filled.question, template: line.template, values, gold_sql: filled.sql, answer, answer_status: answerStatus(answer), uses_synthetic_cost: line.uses_synthetic_cost, source_id: line.id };
}

/**
 * @example
 * const { lines } = generateStream(source, { seed: 19, target: 3200, cap: 30 }, { pool: (c) => pools.values(c), run });
 */
export function generateStream(source: readonly SourceLine[], options: GeneratorOptions, deps: GeneratorDeps): GeneratedStream {
  const o = GeneratorOptionsSchema.parse(options);
  const quotas = templateQuotas(source, o.target, o.cap);
  const lines: StreamLine[] = [];
  const seen = new Set<string>();
  const add = (l: Omit<StreamLine, 'id'>) => {
    seen.add(l.question);
    lines.push({ id: `${l.split}-${String(lines.length).padStart(5, '0')}`, ...l });
  };
  for (const [template, quota] of quotas) {
    const rand = seededRandom((o.seed ^ hash(template)) >>> 0);
    const test = source.filter((l) => l.template === template && l.split === 'test');
    // Rotate through the paraphrases: the k-th line comes from paraphrase k mod n; a paraphrase that yields no new non-empty line in `attempts` draws is passed over.
    let made = 0;
    for (let k = 0, misses = 0; made < quota && misses < test.length; k++) {
      const paraphrase = test[k % test.length];
      let got: Omit<StreamLine, 'id'> | null = null;
      for (let a = 0; a < o.attempts && !got; a++) {
        const c = instance(paraphrase, rand, deps);
        if (c && c.answer_status === 'nonempty' && !seen.has(c.question) && JSON.stringify(c.answer).length <= o.maxAnswerChars) got = c;
      }
      if (got) {
        add(got);
        made++;
        misses = 0;
      } else misses++;
    }
    // The initial memory's pool: one line per valid paraphrase (any answer status; a record is a gold program).
    for (const paraphrase of source.filter((l) => l.template === template && l.split === 'valid')) {
      let got: Omit<StreamLine, 'id'> | null = null;
      for (let a = 0; a < o.attempts && !(got && got.answer_status === 'nonempty'); a++) {
        const c = instance(paraphrase, rand, deps);
        if (c && !seen.has(c.question)) got = c;
      }
      if (got) add(got);
    }
  }
  return { lines, quotas };
}
