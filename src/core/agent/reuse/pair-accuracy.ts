/**
 * How often the reuse model's adaptation is right: for every ordered pair of
 * EHRSQL tasks of the same template (reference ≠ target, the target's answer
 * non-empty), adapt the reference's gold SQL to the target's question and run
 * it; right = the result equals the target's gold answer (set-of-rows match).
 * The figure `bench:adapt` prints (issue 19, item 5).
 */
import { answersMatch } from '../../policy/answers';
import { adaptCode, ValueLookup } from './adapt-code';

export interface AdaptTask {
  question: string;
  template: string;
  gold_sql: string;
  answer: unknown;
  answer_status: string;
}

export interface AdaptFailure {
  template: string;
  from: string;
  to: string;
  adapted: string;
  gold: string;
}

export interface AdaptMeasure {
  pairs: number;
  /** Adapted SQL whose result equals the target's gold answer. */
  right: number;
  /** Adapted SQL identical to the target's gold SQL. */
  identical: number;
  failures: AdaptFailure[];
}

/** Every ordered same-template pair (reference, target) with reference ≠ target and a non-empty target answer. */
export function sameTemplatePairs<T extends AdaptTask>(tasks: readonly T[]): [T, T][] {
  const byTemplate = new Map<string, T[]>();
  for (const t of tasks) byTemplate.set(t.template, [...(byTemplate.get(t.template) ?? []), t]);
  const pairs: [T, T][] = [];
  for (const group of byTemplate.values()) {
    for (const target of group) {
      if (target.answer_status !== 'nonempty') continue;
      for (const reference of group) if (reference !== target) pairs.push([reference, target]);
    }
  }
  return pairs;
}

/**
 * @example
 * const m = measureAdaptation(tasks, (sql) => db.prepare(toEhrSqlDialect(sql, DEFAULT_NOW)).raw().all(), new DatabaseValueLookup(db));
 * `${m.right}/${m.pairs}`;
 */
export function measureAdaptation(tasks: readonly AdaptTask[], query: (sql: string) => unknown, lookup?: ValueLookup): AdaptMeasure {
  const results = new Map<string, unknown>();
  const run = (sql: string): unknown => {
    if (!results.has(sql)) {
      try {
        results.set(sql, query(sql));
      } catch {
        results.set(sql, null); // an adapted program that fails is wrong
      }
    }
    return results.get(sql);
  };
  const out: AdaptMeasure = { pairs: 0, right: 0, identical: 0, failures: [] };
  for (const [reference, target] of sameTemplatePairs(tasks)) {
    const adapted = adaptCode({ question: reference.question, code: reference.gold_sql }, target.question, lookup).code;
    out.pairs++;
    if (adapted === target.gold_sql) out.identical++;
    if (adapted === target.gold_sql || answersMatch(target.answer, run(adapted))) out.right++;
    else out.failures.push({ template: target.template, from: reference.question, to: target.question, adapted, gold: target.gold_sql });
  }
  return out;
}
