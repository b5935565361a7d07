/**
 * The dense side of a per-side collapse (SearchOptions.collapseSides) that holds program identities
 * (issue 37): it ranks programs, not records. Of the coarse (Hamming) candidates, each program is
 * represented by its best member by cosine, and the `n` best programs are returned in the exact order
 * of their best members' exact cosines; the other candidates of those programs are their copies (left
 * out of the ranking, counted). Only the members that may be their program's best, in programs that
 * may be among the `n` best, are read exactly: a memory holding hundreds of copies of a program reads
 * a few vectors per program instead of ordering every copy (thousands of reads at 1M records).
 *
 * Rigour, from the copies' bounds (|exact − approx| ≤ bound, VectorCopies.scores): a program's best
 * exact cosine is at least lo = max(approx − bound) over its members, and at most hi = max(approx + bound).
 * A program whose hi is below the n-th largest lo is not among the n best; a member whose approx + bound
 * is below its program's lo (or its best exact cosine read) is not its best. The others are read, the highest
 * approx + bound first, a few per program and round, until each program's best is decided; so the best members
 * and their order are those of the exact scores. Candidates without a copy are read, all of them.
 *
 * @example
 * const { hits, copies } = rescorePrograms(vector, rids, 32, (rid) => ids.get(rid), copies, readExact);
 * // hits: one per program, best first, exact cosines; copies: the other candidates of those programs
 */
import type { DenseHit } from './dense-index';
import type { ExactReader, KnownCosines, Scored } from './dense-rescore';
import type { VectorCopies } from './vector-copies';

/** The dense side's programs: the best member of each (exact cosine, best first) and their other candidates. */
export interface ProgramHits {
  hits: DenseHit[];
  /** The other candidates of the programs returned (not read; their order is not kept). */
  copies: number[];
}

/** A candidate's program identity; undefined: not active (left out). */
export type ProgramOf = (rid: number) => number | undefined;

interface Member {
  rid: number;
  score: number;
  bound: number;
}

const byScore = (a: Member, b: Member): number => b.score - a.score || a.rid - b.rid;

/**
 * The best member of each of the `n` best programs among `rids` (see the module comment); with `known`,
 * exact cosines it holds are used instead of a copy or a read, and those read are added to it.
 */
export function rescorePrograms(vector: Float32Array, rids: readonly number[], n: number, programOf: ProgramOf, copies: VectorCopies | null, readExact: ExactReader, known?: KnownCosines): ProgramHits {
  const byProgram = new Map<number, Member[]>();
  const add = (program: number, m: Member) => {
    const list = byProgram.get(program);
    if (list) list.push(m);
    else byProgram.set(program, [m]);
  };
  const programs = new Map<number, number>();
  const copied: number[] = [];
  const ask: number[] = [];
  for (const rid of rids) {
    const program = programOf(rid);
    if (program === undefined) continue;
    programs.set(rid, program);
    const score = known?.get(rid);
    if (score !== undefined) add(program, { rid, score, bound: 0 });
    else if (copies?.has(rid)) copied.push(rid);
    else ask.push(rid);
  }
  if (copies && copied.length > 0) {
    const { approx, bound } = copies.scores(vector, copied);
    copied.forEach((rid, i) => add(programs.get(rid)!, { rid, score: approx[i], bound: bound[i] }));
  }
  const read = (list: number[]): Map<number, number> => {
    const into: Scored[] = [];
    readExact(list, into);
    for (const s of into) known?.set(s.rid, s.score);
    return new Map(into.map((s) => [s.rid, s.score]));
  };
  const settle = (exact: Map<number, number>, asked: Set<number>) => {
    for (const [program, list] of byProgram) {
      const kept = list.filter((m) => !asked.has(m.rid) || exact.has(m.rid));
      for (const m of kept) {
        const score = exact.get(m.rid);
        if (score !== undefined) Object.assign(m, { score, bound: 0 });
      }
      if (kept.length > 0) byProgram.set(program, kept);
      else byProgram.delete(program);
    }
  };
  if (ask.length > 0) {
    const exact = read(ask);
    for (const [rid, score] of exact) add(programs.get(rid)!, { rid, score, bound: 0 });
  }
  for (;;) {
    const undecided = contenders(byProgram, n);
    if (undecided.length === 0) break;
    settle(read(undecided), new Set(undecided));
  }
  const best: { program: number; member: Member }[] = [];
  for (const [program, list] of byProgram) {
    list.sort(byScore);
    best.push({ program, member: list[0] });
  }
  best.sort((a, b) => byScore(a.member, b.member));
  const top = best.slice(0, n);
  const out: number[] = [];
  for (const { program } of top) for (const m of byProgram.get(program)!.slice(1)) out.push(m.rid);
  return { hits: top.map(({ member }) => ({ rid: member.rid, similarity: member.score, exact: true })), copies: out };
}

/** Members read per program and round: those that may be its best, the highest upper bound first. */
const READ_PER_ROUND = 2;

/**
 * The members to read next: of each program that may be among the `n` best and whose best is undecided (a member
 * not read may exceed the best exact cosine known: approx + bound ≥ it), the READ_PER_ROUND highest by approx + bound.
 */
function contenders(byProgram: Map<number, Member[]>, n: number): number[] {
  const lo = new Map<number, number>();
  for (const [program, list] of byProgram) {
    let low = -Infinity;
    for (const m of list) low = Math.max(low, m.score - m.bound);
    lo.set(program, low);
  }
  const lows = [...lo.values()].sort((a, b) => b - a);
  const floor = lows.length > n ? lows[n - 1] : -Infinity;
  const out: number[] = [];
  for (const [program, list] of byProgram) {
    const low = lo.get(program)!;
    let high = -Infinity;
    let exact = -Infinity;
    for (const m of list) {
      high = Math.max(high, m.score + m.bound);
      if (m.bound === 0) exact = Math.max(exact, m.score);
    }
    if (high < floor) continue;
    // Unread members that may be the best: at least the program's floor `low`, and not below the best exact one.
    const open = list.filter((m) => m.bound > 0 && m.score + m.bound >= Math.max(low, exact));
    open.sort((a, b) => b.score + b.bound - (a.score + a.bound));
    for (const m of open.slice(0, READ_PER_ROUND)) out.push(m.rid);
  }
  return out;
}
