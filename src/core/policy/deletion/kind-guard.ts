import { deletionQueries } from '../../memory/sqlite/queries/deletion-candidates';
import type { MemoryStore } from '../../memory/sqlite/store';
import { unwrapSqlStrings } from '../../similarity/text/code-tokens';
import type { PeriodicGuard } from '../names';
import type { DeletionCandidate, PolicyDeletionPlan } from './types';

const STRING_LITERAL = /'(?:[^'\\]|''|\\.)*'|"(?:[^"\\]|\\.)*"/g;
const NUMBER = /\b\d+(?:\.\d+)?\b/g;
/** Program kinds of each store's records, by rid, with the record version they were computed on. */
const kindsByStore = new WeakMap<MemoryStore, Map<number, { version: string; kind: string }>>();

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
 * The program kind of every active record, by id: computed once per record version
 * (rid + updated_at) and kept per store, so a plan reads only the active records'
 * ids and versions, and the code of records new or changed since the last plan.
 */
function activeKinds(store: MemoryStore): Map<string, string> {
  const queries = deletionQueries(store);
  let cache = kindsByStore.get(store);
  if (!cache) kindsByStore.set(store, (cache = new Map()));
  const active = queries.activeVersions();
  const stale = active.filter((r) => cache.get(r.rid)?.version !== r.updated_at).map((r) => r.rid);
  for (const p of queries.programsOf(stale)) cache.set(p.rid, { version: p.updated_at, kind: programKind(p.code, p.language) });
  if (cache.size > 2 * active.length + 1000) {
    const live = new Set(active.map((r) => r.rid));
    for (const rid of cache.keys()) if (!live.has(rid)) cache.delete(rid);
  }
  const out = new Map<string, string>();
  for (const r of active) {
    const kind = cache.get(r.rid)?.kind;
    if (kind !== undefined) out.set(r.id, kind);
  }
  return out;
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
  const staying = new Set<string>();
  const kindOf = activeKinds(store);
  for (const [id, kind] of kindOf) if (!leaving.has(id)) staying.add(kind);
  const keepByKind = new Map<string, DeletionCandidate>();
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
      keptCount: kept.size,
      kept: [...keepByKind.values()],
      sentence: `The periodic guard (agentMemory.deletion.periodicGuard = ${guard}) kept ${kept.size} record(s), each the last active record of its program kind: ${named}${more}.`,
    },
  };
}
