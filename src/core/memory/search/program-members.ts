/**
 * Which fused candidates a re-ranked search reads (hybrid-search.ts): with the program identities the
 * question shapes hold, only the members of the best programs of the fused order, found without reading
 * a row.
 */
import type { RankedKey } from './fusion';
import type { QuestionShapes } from './rerank';

/** A member of one of the best programs of a pass (its program identity held with the question shapes; nothing read yet). */
export interface ProgramMember {
  rid: number;
  program: number;
  /** Its fused score (-Infinity for a copy left out of the rankings). */
  score: number;
}

/**
 * With program identities held, without recency or diversity: only the members of the best `want`
 * programs of the fused order matter (the others make groups past `want`): those of the fused order,
 * then the copies of them (`copies`: keys left out of the rankings as copies), with how many programs
 * they make. Nothing is read.
 */
export function topProgramMembers(fused: readonly RankedKey[], copies: readonly string[], want: number, identity: Pick<QuestionShapes, 'programId'>): { list: ProgramMember[]; programs: number } {
  const ids = fused.map((h) => identity.programId(Number(h.key)));
  const top = new Set<number>();
  for (const id of ids) {
    if (top.size >= want) break;
    if (id !== undefined) top.add(id);
  }
  const list: ProgramMember[] = [];
  fused.forEach((h, i) => {
    const id = ids[i];
    if (id !== undefined && top.has(id)) list.push({ rid: Number(h.key), program: id, score: h.score });
  });
  for (const key of copies) {
    const rid = Number(key);
    const id = identity.programId(rid);
    // A copy's program has a fused member (it was left out as that member's copy on its side).
    if (id !== undefined && top.has(id)) list.push({ rid, program: id, score: -Infinity });
  }
  return { list, programs: top.size };
}
