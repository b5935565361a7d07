import { deletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import { unwrapSqlStrings } from '../../similarity/text/code-tokens';
import type { PeriodicGuard } from '../names';
import type { DeletionCandidate, PolicyDeletionPlan } from './types';

const STRING_LITERAL = /'(?:[^'\\]|''|\\.)*'|"(?:[^"\\]|\\.)*"/g;
const NUMBER = /\b\d+(?:\.\d+)?\b/g;
/** Per store: each record's kind number, by rid, with the record id it was computed for (a purged rid may be reused); and the kind numbers. */
const kindsByStore = new WeakMap<MemoryStore, { byRid: Map<number, { id: string; kind: number }>; numbers: Map<string, number> }>();

/**
 * A program's kind: its language and code with every value masked — the SQL inside
 * string arguments unwrapped, then string literals → `?`, numbers → `0`, blanks collapsed,
 * lower case. Two records of one question template with different values (patient ids,
 * drug names, dates) share a kind; any language, with or without SQL.
 *
 * @example
 * programKind("sql(\"select count(*) from admissions where subject_id = 10026\")", 'python')
 *   === programKind("sql(\"select count(*) from admissions where subject_id = 9999\")", 'python'); // true
 */
export function programKind(code: string, language: string): string {
  const masked = unwrapSqlStrings(code).replace(STRING_LITERAL, '?').replace(NUMBER, '0').replace(/\s+/g, ' ').trim().toLowerCase();
  return `${language}\u0000${masked}`;
}

/**
 * The kinds of a plan's leaving records, and the kinds of the active records that stay. A record's
 * code never changes once stored, so its kind is computed once (rid + id: SQLite may give a purged
 * record's rid to a new one), numbered, and kept per store; a plan reads only the active records'
 * rids and ids from the covering index `records_policy`, and the code of the records it has not seen.
 */
function planKinds(store: MemoryStore, leaving: ReadonlySet<string>): { kindOf: Map<string, number>; staying: Set<number> } {
  const queries = deletionQueries(store);
  let cache = kindsByStore.get(store);
  if (!cache) kindsByStore.set(store, (cache = { byRid: new Map(), numbers: new Map() }));
  const { byRid, numbers } = cache;
  const { rids, ids } = queries.activeIds();
  const unseen = rids.filter((rid, i) => byRid.get(rid)?.id !== ids[i]);
  for (const p of queries.programsOf(unseen)) {
    const kind = programKind(p.code, p.language);
    let n = numbers.get(kind);
    if (n === undefined) numbers.set(kind, (n = numbers.size));
    byRid.set(p.rid, { id: p.id, kind: n });
  }
  if (byRid.size > 2 * rids.length + 1000) {
    const live = new Set(rids);
    for (const rid of byRid.keys()) if (!live.has(rid)) byRid.delete(rid);
  }
  const kindOf = new Map<string, number>();
  const staying = new Set<number>();
  for (let i = 0; i < rids.length; i++) {
    const kind = byRid.get(rids[i])?.kind;
    if (kind === undefined) continue;
    if (leaving.has(ids[i])) kindOf.set(ids[i], kind);
    else staying.add(kind);
  }
  return { kindOf, staying };
}

function meanUtility(c: DeletionCandidate): number {
  const m = c.evidence.meanUtility;
  return typeof m === 'number' ? m : 0;
}

/**
 * Whether candidate `a`, later in the plan's order (oldest first) than `b`, is the better one to keep:
 * the best by mean utility, then the most recent (a tie in created task goes to the later one).
 */
function better(a: DeletionCandidate, b: DeletionCandidate): boolean {
  if (meanUtility(a) !== meanUtility(b)) return meanUtility(a) > meanUtility(b);
  return Number(a.evidence.createdTask ?? 0) >= Number(b.evidence.createdTask ?? 0);
}

/**
 * The periodic guard (setting agentMemory.deletion.periodicGuard; a labelled mode beyond the
 * paper). With `last-of-kind`, the periodic rule never deletes the last active record of a
 * program kind ({@link programKind}): not being retrieved for a period says a record is
 * redundant only when another record of its kind stays to serve its tasks; a rare kind of
 * task that did not come up in the window keeps one record. Candidates the history rule
 * selects (`history`, `periodic+history`) are never kept: their evidence is their own
 * low utility. Of several periodic candidates of one kind with no other active record of
 * it, the best by mean utility (then the most recent) is kept.
 *
 * @example
 * withPeriodicGuard(store, planPeriodic(store, { taskIndex: 400 }), 'last-of-kind').guard?.sentence;
 */
export function withPeriodicGuard(store: MemoryStore, plan: PolicyDeletionPlan, guard: PeriodicGuard): PolicyDeletionPlan {
  const params = { ...plan.params, periodicGuard: guard };
  const periodicOnly = plan.candidates.filter((c) => c.rule === 'periodic');
  if (guard === 'none' || periodicOnly.length === 0) return { ...plan, params };
  const leaving = new Set(plan.candidates.map((c) => c.recordId));
  const { kindOf, staying } = planKinds(store, leaving);
  const keepByKind = new Map<number, DeletionCandidate>();
  for (const c of periodicOnly) {
    const kind = kindOf.get(c.recordId);
    if (kind === undefined || staying.has(kind)) continue;
    const held = keepByKind.get(kind);
    if (!held || better(c, held)) keepByKind.set(kind, c);
  }
  if (keepByKind.size === 0) return { ...plan, params };
  const kept = new Set([...keepByKind.values()].map((c) => c.recordId));
  const candidates = plan.candidates.filter((c) => !kept.has(c.recordId));
  const named = [...keepByKind.values()].slice(0, 5).map((c) => `'${c.question || c.recordId}'`).join(', ');
  const more = kept.size > 5 ? ` and ${kept.size - 5} more` : '';
  return {
    ...plan,
    params,
    candidates,
    total: plan.total - kept.size,
    guard: {
      kept: [...keepByKind.values()],
      sentence: `The periodic guard (agentMemory.deletion.periodicGuard = ${guard}) kept ${kept.size} record(s), each the last active record of its program kind: ${named}${more}.`,
    },
  };
}
