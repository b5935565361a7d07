/**
 * SIMULATION — the simulated agent as a pluggable CodeGenerator: it goes
 * through the same agent loop, runner, evaluators and policies as the reuse
 * model and an LLM. See parameters.ts for the behaviour and every parameter.
 *
 * Every random draw is a hash of (seed, task question, purpose), not a
 * sequential stream: two grid cells that retrieve the same top similarity for
 * a task make the same following decision, so differences between cells come
 * from the memory, not from re-rolled dice (common random numbers).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { AgentMemoryError } from '../../errors';
import type { CodeGenerator, DebugRequest, Generation, GenerationRequest } from '../../agent/loop/generators';
import type { TokenUsage } from '../../agent/model/types';
import { adaptCode, ValueLookup } from '../../agent/reuse/adapt-code';
import { seededRandom } from '../../random';
import { goldProgram } from '../../data/gold-program';
import type { BenchTask } from '../task-file';
import { answersMatch } from '../../policy/answers';
import { applicableMutations, ColumnValues, FALLBACK_MUTATION_KINDS, mutate, MutationKind, Schema, surfaceRewrite } from './mutations';
import { SimulationParameters, SIMULATION_LABEL } from './parameters';

const NO_USAGE: TokenUsage = { promptTokens: 0, completionTokens: 0 };

/** FNV-1a 32-bit of the joined parts. */
function hash32(parts: readonly (string | number)[]): number {
  let h = 0x811c9dc5;
  const s = parts.join('\u0001');
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A uniform draw in [0, 1) fixed by (seed, parts). */
export function draw(seed: number, ...parts: (string | number)[]): number {
  return seededRandom(hash32([seed, ...parts]))();
}

function gammaSample(shape: number, rand: () => number): number {
  if (shape < 1) return gammaSample(shape + 1, rand) * Math.pow(rand() || Number.MIN_VALUE, 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      const u1 = rand() || Number.MIN_VALUE;
      const u2 = rand();
      x = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rand() || Number.MIN_VALUE;
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** A Beta(mean·κ, (1 − mean)·κ) draw fixed by (seed, key). */
export function betaDraw(mean: number, concentration: number, seed: number, key: string): number {
  if (mean <= 0) return 0;
  if (mean >= 1) return 1;
  const rand = seededRandom(hash32([seed, 'beta', key]));
  const a = gammaSample(mean * concentration, rand);
  const b = gammaSample((1 - mean) * concentration, rand);
  return a + b === 0 ? mean : a / (a + b);
}

/** σ((s − s0)/τ): the probability of following a demonstration of top input similarity s. */
export function followProbability(s: number, p: Pick<SimulationParameters, 'followMidpoint' | 'followTemperature'>): number {
  return 1 / (1 + Math.exp(-(s - p.followMidpoint) / p.followTemperature));
}

/** Column names of every table of the database, for the wrong-column mutation. */
export function readSchema(db: BetterSqlite3.Database): Schema {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  const schema = new Map<string, string[]>();
  for (const { name } of tables) {
    const cols = db.prepare(`PRAGMA table_info(${JSON.stringify(name)})`).all() as { name: string }[];
    schema.set(name.toLowerCase(), cols.map((c) => c.name.toLowerCase()));
  }
  return schema;
}

export interface SimulatedChoice {
  kind: 'follow' | 'own-correct' | 'own-mutation';
  detail: string;
}

/**
 * @example
 * const gen = new SimulatedCodeGenerator(tasks, SIMULATION_PARAMETERS, 7, readSchema(db), new DatabaseValueLookup(db));
 * // runTaskPipeline({ …, generator: gen }, question, { maxDebugRounds: SIMULATION_PARAMETERS.maxDebugRounds, … })
 */
export class SimulatedCodeGenerator implements CodeGenerator {
  readonly id = `simulated agent — ${SIMULATION_LABEL}`;
  readonly isLLM = false;
  private readonly byQuestion = new Map<string, BenchTask>();
  private readonly competence = new Map<string, number>();
  /** The last choice per question (for tests and the report). */
  readonly choices = new Map<string, SimulatedChoice>();

  constructor(
    tasks: readonly BenchTask[],
    readonly params: SimulationParameters,
    readonly seed: number,
    private readonly schema: Schema,
    private readonly lookup?: ValueLookup,
    /** Answers a query on the database (the EHR dialect), to pick mutations that really change the answer. */
    private readonly query?: (sql: string) => unknown,
    /**
     * Memo of the verdicts "this mutated query's answer differs from the task's", keyed by
     * task id, gold query and mutated query; shared by the generators of one database (grid speed).
     */
    private readonly verdicts?: Map<string, boolean>,
  ) {
    for (const t of tasks) if (!this.byQuestion.has(t.question)) this.byQuestion.set(t.question, t);
  }

  /** c_t of a template (drawn once per seed). */
  competenceOf(template: string): number {
    let c = this.competence.get(template);
    if (c === undefined) this.competence.set(template, (c = betaDraw(this.params.competenceMean, this.params.competenceConcentration, this.seed, template)));
    return c;
  }

  async generate(r: GenerationRequest): Promise<Generation> {
    const task = this.byQuestion.get(r.question);
    if (!task) throw new AgentMemoryError('INVALID_INPUT', `The simulated agent only answers benchmark tasks it was given (no task has the question ${JSON.stringify(r.question.slice(0, 80))}).`);
    const ranked = [...r.demonstrations].sort((a, b) => (b.inputSimilarity ?? 0) - (a.inputSimilarity ?? 0));
    const shown = ranked.map((d) => d.recordId);
    const top = ranked[0];
    if (r.attempt === 0 && top && draw(this.seed, r.question, 'follow') < followProbability(top.inputSimilarity ?? 0, this.params)) {
      const adapted = adaptCode({ question: top.question, code: top.code }, r.question, this.lookup);
      this.choices.set(r.question, { kind: 'follow', detail: top.recordId });
      return { code: adapted.code, usage: NO_USAGE, usedDemonstrations: shown, droppedDemonstrations: [], note: `simulation: followed record ${top.recordId} (${adapted.substitutions.length} substitution(s))`, substitutions: adapted.substitutions };
    }
    return this.ownProgram(r, task, shown);
  }

  private ownProgram(r: GenerationRequest, task: BenchTask, shown: string[]): Generation {
    const template = task.template ?? task.id;
    const correct = draw(this.seed, r.question, 'own', r.attempt) < this.competenceOf(template);
    let sql: string | null = null;
    let choice: SimulatedChoice;
    if (!correct) {
      const kinds = this.wrongMutations(task);
      if (kinds.length > 0) {
        const kind = kinds[Math.floor(draw(this.seed, r.question, 'mutation', r.attempt) * kinds.length)];
        sql = this.mutation(task, kind);
        choice = { kind: 'own-mutation', detail: kind };
      } else {
        choice = { kind: 'own-correct', detail: 'no mutation applies' };
      }
    }
    const variant = Math.floor(draw(this.seed, r.question, 'surface', r.attempt) * 3);
    if (sql === null) {
      sql = surfaceRewrite(task.goldSql, variant);
      choice ??= { kind: 'own-correct', detail: `surface rewrite ${variant}` };
    }
    choice ??= { kind: 'own-correct', detail: '' };
    this.choices.set(r.question, choice);
    const code = variant === 2 ? ownShape(sql, r.language) : goldProgram(sql, r.language);
    return { code, usage: NO_USAGE, usedDemonstrations: shown, droppedDemonstrations: [], note: `simulation: own program (${choice.kind}${choice.detail ? `: ${choice.detail}` : ''})` };
  }

  private readonly wrongKinds = new Map<string, MutationKind[]>();

  /** The task's gold query mutated by `kind` (the pick fixed by seed and question). */
  private mutation(task: BenchTask, kind: MutationKind): string | null {
    return mutate(task.goldSql, kind, this.schema, Math.floor(draw(this.seed, task.question, 'pick') * 1000), this.columnValues);
  }

  private readonly valuesByColumn = new Map<string, readonly (string | number)[]>();

  /** Up to 100 distinct values of a column of the database, in order (the wrong-value mutation); none without a query. */
  private readonly columnValues: ColumnValues = (table, column) => {
    const key = `${table}.${column}`;
    let values = this.valuesByColumn.get(key);
    if (values === undefined) {
      // Table and column names come from the database's own schema (readSchema), never from a question.
      const rows = this.query ? (this.query(`select distinct ${table}.${column} from ${table} where ${table}.${column} is not null order by ${table}.${column} limit 100`) as unknown[][]) : [];
      values = rows.map((r) => r[0]).filter((v): v is string | number => typeof v === 'string' || typeof v === 'number');
      this.valuesByColumn.set(key, values);
    }
    return values;
  };

  /**
   * The mutation kinds whose program gives a wrong answer (or fails): the
   * simulation means a wrong program, and some mutations leave the answer
   * unchanged on this database (e.g. hadm_id ↔ subject_id in a semi-join, a
   * dropped filter on a yes/no question). The primary kinds first; when none
   * changes the answer, the fallback kinds (a wrong value, an inverted
   * comparison). Without a query every applicable primary kind; when no kind
   * changes the answer, every applicable one (the program is then right by
   * accident: the measured residual, see the README).
   */
  private wrongMutations(task: BenchTask): MutationKind[] {
    let kinds = this.wrongKinds.get(task.id);
    if (kinds) return kinds;
    const applicable = applicableMutations(task.goldSql, this.schema);
    const query = this.query;
    const differs = (sql: string): boolean => {
      try {
        return !answersMatch(task.answer, query!(sql));
      } catch {
        return true;
      }
    };
    const changesAnswer = (k: MutationKind): boolean => {
      const sql = this.mutation(task, k);
      if (sql === null) return false;
      if (!this.verdicts) return differs(sql);
      const key = `${task.id}\u0000${task.goldSql}\u0000${sql}`;
      let verdict = this.verdicts.get(key);
      if (verdict === undefined) this.verdicts.set(key, (verdict = differs(sql)));
      return verdict;
    };
    let wrong: MutationKind[] = applicable;
    if (query) {
      wrong = applicable.filter(changesAnswer);
      if (wrong.length === 0) wrong = FALLBACK_MUTATION_KINDS.filter(changesAnswer);
    }
    kinds = wrong.length > 0 ? wrong : applicable;
    this.wrongKinds.set(task.id, kinds);
    return kinds;
  }

  async debug(r: DebugRequest): Promise<{ analysis: string; usage: TokenUsage }> {
    return { analysis: `simulation: the program failed (${r.error.split('\n')[0]}); writing a new one.`, usage: NO_USAGE };
  }
}

/** The query in a variable, then run (a program-shape rewrite). */
function ownShape(sql: string, language: 'python' | 'javascript'): string {
  const literal = JSON.stringify(sql.trim());
  return language === 'python' ? `query = ${literal}\nanswer = sql(query)` : `const query = ${literal};\nanswer = sql(query);`;
}
