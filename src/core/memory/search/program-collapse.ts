/**
 * Duplicate-aware ranking (issue 18 item 2): records whose programs are the
 * same once normalised collapse to one representative in the top K, so a
 * memory holding many copies of a record shows K different programs, not K
 * copies of one. The others stay countable (`identical`).
 *
 * - The program key is the language plus the code as {@link normaliseCode}
 *   leaves it (trailing spaces and blank lines dropped), with runs of blanks
 *   inside a line collapsed too: layout noise, not a different program.
 * - A group takes the place of its best-ranked member; its representative is
 *   the member with the best mean utility (Φ sum / evaluations, 0 before any
 *   evaluation), then the most recent (created task, then insertion order).
 * - Optional MMR-style diversity (`diversity` λ in [0, 1]): after the first
 *   group, each next group is chosen by (1 − λ)·relevance − λ·max similarity
 *   of its program to the programs already chosen (Jaccard of code tokens).
 *
 * @example
 * ```ts
 * collapseByProgram(candidates, 4); // [{ representative, members, identical }]
 * ```
 */
import { normaliseCode } from '../dedup';

export interface ProgramCandidate {
  rid: number;
  /** Ranking score (higher is better); candidates arrive best first. */
  score: number;
  code: string;
  language: string;
  utilitySum: number;
  utilityCount: number;
  createdTask: number;
}

export interface ProgramGroup<C extends ProgramCandidate> {
  /** The member shown. */
  representative: C;
  /** Score of the group: its best-ranked member's. */
  score: number;
  /** Every candidate with this program, best-ranked first. */
  members: C[];
  /** How many other candidates have this program. */
  identical: number;
}

export interface CollapseOptions<C extends ProgramCandidate = ProgramCandidate> {
  /** MMR λ in [0, 1]: 0 (default) ranks by relevance only. */
  diversity?: number;
  /** A candidate's program identity, when the caller holds one (default: {@link programKey} of its code). */
  keyOf?: (candidate: C) => string | number;
}

/** The key two records share when their programs are the same. */
export function programKey(code: string, language: string): string {
  return `${language}\u0000${normaliseCode(code).replace(/[ \t]+/g, ' ')}`;
}

function meanUtility(c: Pick<ProgramCandidate, 'utilitySum' | 'utilityCount'>): number {
  return c.utilityCount > 0 ? c.utilitySum / c.utilityCount : 0;
}

/** Whether `a` represents its program better than `b`: best by mean utility, then the most recent (created task, then rid). */
export function betterRepresentative(a: Pick<ProgramCandidate, 'rid' | 'utilitySum' | 'utilityCount' | 'createdTask'>, b: Pick<ProgramCandidate, 'rid' | 'utilitySum' | 'utilityCount' | 'createdTask'>): boolean {
  const ua = meanUtility(a);
  const ub = meanUtility(b);
  if (ua !== ub) return ua > ub;
  if (a.createdTask !== b.createdTask) return a.createdTask > b.createdTask;
  return a.rid > b.rid;
}

function codeTokens(code: string): Set<string> {
  return new Set(code.toLowerCase().match(/[a-z_][a-z0-9_]*|\d+|[^\s\w]/g) ?? []);
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * Groups best-first candidates by program and returns the best `k` groups
 * (all of them when fewer), in ranking order (or MMR order with diversity).
 */
export function collapseByProgram<C extends ProgramCandidate>(candidates: readonly C[], k: number, options: CollapseOptions<C> = {}): ProgramGroup<C>[] {
  const groups = new Map<string | number, ProgramGroup<C>>();
  const keyOf = options.keyOf ?? ((c: C) => programKey(c.code, c.language));
  for (const c of candidates) {
    const key = keyOf(c);
    const group = groups.get(key);
    if (!group) {
      groups.set(key, { representative: c, score: c.score, members: [c], identical: 0 });
      continue;
    }
    group.members.push(c);
    group.identical += 1;
    if (betterRepresentative(c, group.representative)) group.representative = c;
  }
  const ordered = [...groups.values()];
  const lambda = options.diversity ?? 0;
  if (!(lambda >= 0 && lambda <= 1)) throw new RangeError(`collapseByProgram: diversity must be in [0, 1], got ${lambda}`);
  if (lambda === 0 || ordered.length <= 1) return ordered.slice(0, k);
  return mmrOrder(ordered, k, lambda);
}

/** Maximal marginal relevance over groups; relevance is the group score scaled to [0, 1] by the best one. */
function mmrOrder<C extends ProgramCandidate>(groups: ProgramGroup<C>[], k: number, lambda: number): ProgramGroup<C>[] {
  const top = groups[0].score;
  const low = groups[groups.length - 1].score;
  const span = top - low || 1;
  const tokens = groups.map((g) => codeTokens(g.representative.code));
  const chosen: number[] = [0];
  const maxSim = tokens.map((t) => jaccard(t, tokens[0]));
  while (chosen.length < Math.min(k, groups.length)) {
    let best = -1;
    let bestValue = -Infinity;
    for (let i = 0; i < groups.length; i++) {
      if (chosen.includes(i)) continue;
      const value = (1 - lambda) * ((groups[i].score - low) / span) - lambda * maxSim[i];
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    chosen.push(best);
    for (let i = 0; i < groups.length; i++) maxSim[i] = Math.max(maxSim[i], jaccard(tokens[i], tokens[best]));
  }
  return chosen.map((i) => groups[i]);
}
