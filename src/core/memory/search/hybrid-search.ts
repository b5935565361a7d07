import { AgentMemoryError } from '../../errors';
import { Logger } from '../../logger';
import { DenseHit, DenseIndex } from '../dense/dense-index';
import type { KnownCosines } from '../dense/dense-rescore';
import { fuseRankings, FusionOptions, RankedKey } from './fusion';
import { KeywordIndex } from '../keyword/keyword-index';
import { InlineKeywords, KeywordSource, WorkerKeywords } from '../keyword/keyword-service';
import type { MemoryStore } from '../sqlite/store';
import { dotBlob } from '../dense/dense-index';
import { collapseByProgram, ProgramCandidate, programKey, ProgramGroup } from './program-collapse';
import { QuestionShapes, RERANK_DEPTH, rerankApplies } from './rerank';
import { topProgramMembers, type ProgramMember } from './program-members';
import type { DomainValues } from './domain-values';
import { ShapeIndex } from './shape-index';
import { agreeOnCalls, callSetCacheOf, programsReader } from './call-agreement';
import { keywordCachePostings, memoryBudget } from '../memory-budget';
import { DENSE_AHEAD, DENSE_OVERFETCH_LARGE, DENSE_OVERFETCH_SMALL, FUSION_DEPTH, LARGE_MEMORY, MAX_COLLAPSE_DEPTH, MAX_K, MIN_FUSION_DEPTH, OptionsSchema, rerankParts, type HybridSearchOptions, type SearchAnswer, type SearchHit, type SearchMode, type SearchOptions, type SearchQuery, type SearchSide } from './search-contract';

export * from './search-contract';

interface CandidateRow {
  rid: number;
  id: string;
  created_task: number;
  embedding: Buffer | null;
}

type UtilityRow = Pick<ProgramRow, 'rid' | 'utility_sum' | 'utility_count' | 'created_task'>;

/** A collapse candidate that carries its program identity (its code is not read: ''). */
type IdentifiedCandidate = ProgramCandidate & { program: number };

/** A collapsing search's dense side across its passes (HybridSearch.denseSearch): exact cosines read (never twice); re-ranked (`ahead`): the top `depth` of `candidates`. */
interface DenseMemo {
  candidates: number;
  depth: number;
  hits: DenseHit[] | null;
  ahead: boolean;
  exact: KnownCosines;
}

interface ProgramRow {
  rid: number;
  question: string;
  code: string;
  language: string;
  utility_sum: number;
  utility_count: number;
  created_task: number;
}

interface Ranked {
  fused: RankedKey[];
  denseRank: Map<string, number>;
  keywordRank: Map<string, number>;
  sides: SearchSide[];
  /** Collapsing: a side holds fewer distinct programs than asked while a deeper list may hold more. */
  short: boolean;
  /** Collapsing: candidates left out of the rankings as copies of a better-ranked program (grouped after fusion). */
  copies: string[];
}

/**
 * Hybrid retrieval over the active records: dense candidates (binary-code
 * Hamming scan over sqlite-vec's `vec_bits` codes held in the kernel's memory,
 * then cosine rescoring of the candidates: int8 or float16 copies, with the exact
 * vectors read from `records.embedding` where the copies leave the order
 * undecided; see DenseIndex),
 * keyword candidates (MiniSearch BM25), fused with reciprocal-rank fusion and
 * de-duplicated, optionally weighted by recency. The keyword side is the
 * backup: it answers alone when the dense side cannot (no query vector,
 * embedder mismatch, no vectors), waiting for it to load if need be. Both sides
 * see writes of other processes at the next query (record_changes log).
 *
 * @example
 * const search = HybridSearch.open(store, { logger });
 * const hits = search.search({ text: question, vector: embedder.embedSync(question) }, 4);
 * // [{ recordId, rid, score, inputSimilarity, denseRank, keywordRank }]
 * search.answer(query, 4).sides; // ['dense', 'keyword']
 * search.close();
 */
export class HybridSearch {
  private readonly rowStmt;
  private readonly programStmt;
  private readonly utilitiesStmt;
  private shapeIndex: ShapeIndex | null = null;

  constructor(
    store: MemoryStore,
    readonly keywords: KeywordSource,
    readonly dense: DenseIndex,
    private readonly shapeOptions: { store: MemoryStore; logger?: Logger; background: boolean; domainValues?: DomainValues | null } | null = null,
  ) {
    this.rowStmt = store.connectionForQueries().prepare("SELECT rid, id, created_task, embedding FROM records WHERE rid = ? AND status = 'active'");
    this.programStmt = store
      .connectionForQueries()
      .prepare("SELECT rid, question, code, language, utility_sum, utility_count, created_task FROM records WHERE rid = ? AND status = 'active'");
    // Many rows in one read (`+status`: each rid looked up, the status index never scanned).
    this.utilitiesStmt = store
      .connectionForQueries()
      .prepare("SELECT rid, utility_sum, utility_count, created_task FROM records WHERE rid IN (SELECT value FROM json_each(?)) AND +status = 'active'");
  }

  /** Opens the keyword index (loading or rebuilding it) and the dense code cache, their caches capped by HybridSearchOptions.memoryBudget; see HybridSearchOptions.background. */
  static open(store: MemoryStore, options: HybridSearchOptions = {}): HybridSearch {
    const logger = options.logger ?? store.log;
    const background = options.background ?? (!store.connectionForQueries().memory && options.file !== null);
    const budget = options.memoryBudget ?? memoryBudget();
    const keywordOptions = { ...options, termCachePostings: options.termCachePostings ?? keywordCachePostings(budget) };
    const keywords = background && !store.connectionForQueries().memory ? new WorkerKeywords(store, keywordOptions, logger) : new InlineKeywords(KeywordIndex.open(store, keywordOptions), logger);
    return new HybridSearch(store, keywords, DenseIndex.open(store, { logger, background, vectorCopyBytes: budget.vectorCopyBytes, copyForm: budget.vectorCopyForm }), { store, logger, background, domainValues: options.domainValues });
  }

  /** Settles when both sides (and the re-ranking's question shapes, once a search asked for them) are loaded. */
  get ready(): Promise<void> {
    return Promise.all([this.dense.ready, this.keywords.ready, this.shapeIndex?.ready]).then(() => undefined);
  }

  /**
   * The re-ranking's memory-side state, read when first asked for (the first re-ranked search):
   * nothing is read or held while the re-ranking is off.
   */
  get shapes(): ShapeIndex {
    if (!this.shapeIndex) {
      const o = this.shapeOptions;
      if (!o) throw new AgentMemoryError('INVALID_STATE', 'This search was built without a store for the re-ranking; open it with HybridSearch.open.');
      this.shapeIndex = ShapeIndex.open(o.store, { logger: o.logger, background: o.background, after: Promise.all([this.dense.ready, this.keywords.ready]), domainValues: o.domainValues });
    }
    return this.shapeIndex;
  }

  /** Whether a search asking for re-ranking re-ranks: the data's values are attached (rerank.ts, rerankApplies); else it is the fused search. */
  get rerankApplies(): boolean {
    return rerankApplies(this.shapeOptions?.domainValues);
  }

  /** The values of the data the agent works on, for the re-ranking's value columns (null: none); kept for a later shapes read. */
  setDomainValues(values: DomainValues | null): void {
    if (this.shapeOptions) this.shapeOptions.domainValues = values;
    this.shapeIndex?.setDomainValues(values);
  }

  /** Settles when the warm caches filled after loading are full too: the dense side's vector copies and the keyword side's per-term results (first warm; both refill after changes). */
  get warmed(): Promise<void> {
    return Promise.all([this.dense.warmed, this.keywords.warmed]).then(() => undefined);
  }

  /** The `k` best active records for the query. */
  search(query: SearchQuery, k: number, options: SearchOptions = {}): SearchHit[] {
    return this.answer(query, k, options).hits;
  }

  /** The `k` best active records for the query, and which sides answered. */
  answer(query: SearchQuery, k: number, options: SearchOptions = {}): SearchAnswer {
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new AgentMemoryError('INVALID_INPUT', `k must be an integer from 1 to ${MAX_K}, got ${k}.`);
    const { mode, recency, collapse, diversity } = OptionsSchema.parse({ mode: options.mode, recency: options.recency, collapse: options.collapse, diversity: options.diversity });
    const vector = query.vector;
    const collapsing = collapse ?? mode === 'hybrid';
    // Re-ranked searches collapse per side when the collapsed top holds copies (see SearchOptions.collapseSides).
    let perSide = collapsing && options.collapseSides === true;
    const sidesWhenCopies = collapsing && options.collapseSides === undefined;
    const baseDepth = Math.max(MIN_FUSION_DEPTH, k * FUSION_DEPTH);
    // Re-ranking applies only with the data's values attached (rerankApplies): else this is the fused search, exactly.
    const parts = collapsing && this.rerankApplies ? rerankParts(options.rerank) : null;
    const shapes = parts ? this.shapes.shapes() : null;
    let depth = baseDepth;
    // A collapse may look again, deeper: its exact cosines (a re-ranked one's dense answer too) serve every pass.
    const denseMemo: DenseMemo | null = collapsing ? { candidates: 0, depth: 0, hits: null, ahead: shapes !== null, exact: new Map() } : null;
    // Program identities held with the question shapes (loaded by a re-ranked search) serve a fused collapse too:
    // copies are told apart without reading a row (see heldIdentities).
    const identity = shapes ?? (collapsing ? this.heldIdentities() : null);
    // Collapsing: the program rows read, once per search (its passes share them).
    const programs = collapsing ? new Map<string, ProgramRow | null>() : null;
    for (;;) {
      // Collapsing per side: each side's ranking keeps one entry per program before fusion, so copies neither take
      // several ranks on a side nor push other programs down (with copies the ranks match the memory without).
      const ranked = this.rank(query, k, depth, mode, options.fusion, perSide ? programs : null, baseDepth, identity, denseMemo);
      if (mode === 'hybrid' && options.callAgreement !== false) ranked.fused = agreeOnCalls(ranked.fused, [ranked.denseRank, ranked.keywordRank], query.text, (keys) => callSetCacheOf(this.rowStmt.database).callSets(keys, identity ? programsReader(this.rowStmt.database) : (read) => new Map(read.map((key) => [key, this.programOf(key, programs)]))));
      const weigh = (rid: number, createdTask: number, score: number): number =>
        recency ? score * Math.exp(-recency.lambda * Math.max(0, recency.currentTask - createdTask)) : score;
      if (!collapsing) return { hits: this.plainHits(ranked, k, mode, vector, weigh, recency !== undefined), sides: ranked.sides };
      // Per side, a full side short of distinct programs: look deeper before reading any row.
      if (perSide && ranked.short && depth < MAX_COLLAPSE_DEPTH) {
        depth = Math.min(MAX_COLLAPSE_DEPTH, depth * 4);
        continue;
      }
      // The re-ranking orders the best RERANK_DEPTH programs: the collapse looks that deep before it.
      const want = shapes ? Math.max(k, RERANK_DEPTH) : k;
      // The next pass, from this one's number of programs and of their records (null: this pass answers).
      const nextPass = (count: number, records: number): { depth: number; perSide: boolean } | null => {
        // Fewer distinct programs than wanted while the rankings may hold more: look deeper.
        if (!perSide && count < want && ranked.fused.length >= depth && depth < MAX_COLLAPSE_DEPTH) return { depth: Math.min(MAX_COLLAPSE_DEPTH, depth * 4), perSide };
        // Start as deep as the copies seen so far suggest (records per program), not at the base depth.
        if (shapes && !perSide && sidesWhenCopies && records > count) return { depth: Math.min(MAX_COLLAPSE_DEPTH, Math.ceil(baseDepth * Math.max(1, records / Math.max(1, count)))), perSide: true };
        return null;
      };
      let groups: ProgramGroup<ProgramCandidate>[];
      const byMembers = identity !== null && !recency && diversity === 0;
      if (byMembers) {
        const members = topProgramMembers(ranked.fused, ranked.copies, want, identity);
        // The program identities tell whether another pass follows: no row is read for a pass that does not answer.
        const next = nextPass(members.programs, members.list.length);
        if (next) {
          ({ depth, perSide } = next);
          continue;
        }
        groups = collapseByProgram(this.memberCandidates(members.list), want, { keyOf: (c) => c.program });
      } else {
        const candidates = this.allCandidates(ranked, programs, weigh, recency !== undefined);
        groups = collapseByProgram(candidates, want, { diversity, ...(identity ? { keyOf: (c: ProgramCandidate) => identity.programId(c.rid) ?? programKey(c.code, c.language) } : {}) });
      }
      const next = nextPass(groups.length, groups.reduce((n, g) => n + 1 + g.identical, 0));
      if (next) {
        ({ depth, perSide } = next);
        continue;
      }
      if (shapes && parts) {
        const source = (g: ProgramGroup<ProgramCandidate>) => this.unheldShapeSource(g, shapes, !byMembers, programs);
        groups = shapes.rerank(query.text, groups.map((g) => ({ g, key: g.representative.rid, score: g.score, ...source(g) })), parts).map((c) => c.g);
      }
      groups = groups.slice(0, k);
      const hits: SearchHit[] = [];
      for (const g of groups) {
        const row = this.rowStmt.get(g.representative.rid) as CandidateRow | undefined;
        if (!row) continue;
        const hit = this.hitOf(row, g.score, mode, vector, ranked, String(g.representative.rid));
        hit.identical = g.identical;
        hits.push(hit);
      }
      return { hits, sides: ranked.sides };
    }
  }

  /**
   * The program identities of the question shapes when a re-ranked search loaded them (null: not opened, or
   * still loading; nothing is opened here): caught up with the store's changes, they hold exactly the active
   * records, so a fused collapse groups by them as it would by the code it reads (hash53 of programKey).
   */
  private heldIdentities(): QuestionShapes | null {
    return this.shapeIndex?.loaded ? this.shapeIndex.shapes() : null;
  }

  /** Collapse: every candidate's program is read (a short row read each) and weighted; copies follow (counted, eligible as representative). */
  private allCandidates(ranked: Ranked, programs: Map<string, ProgramRow | null> | null, weigh: (rid: number, createdTask: number, score: number) => number, reorder: boolean): ProgramCandidate[] {
    const candidates: ProgramCandidate[] = [];
    for (const h of ranked.fused) {
      const row = this.programOf(h.key, programs);
      if (!row) continue;
      candidates.push({ rid: row.rid, score: weigh(row.rid, row.created_task, h.score), code: row.code, language: row.language, utilitySum: row.utility_sum, utilityCount: row.utility_count, createdTask: row.created_task });
    }
    for (const key of ranked.copies) {
      const row = this.programOf(key, programs);
      if (row) candidates.push({ rid: row.rid, score: -Infinity, code: row.code, language: row.language, utilitySum: row.utility_sum, utilityCount: row.utility_count, createdTask: row.created_task });
    }
    if (reorder) candidates.sort((a, b) => b.score - a.score);
    return candidates;
  }

  /**
   * The members' candidates, in their order, from one read of their utilities (members no longer
   * active are left out). Their code is not read (''): the program identity groups them, and the
   * re-ranking reads a held record's shape from the index (see {@link unheldShapeSource}).
   */
  private memberCandidates(members: readonly ProgramMember[]): IdentifiedCandidate[] {
    const rows = new Map<number, UtilityRow>();
    for (const row of this.utilitiesStmt.all(JSON.stringify(members.map((m) => m.rid))) as UtilityRow[]) rows.set(row.rid, row);
    const candidates: IdentifiedCandidate[] = [];
    for (const m of members) {
      const row = rows.get(m.rid);
      if (row) candidates.push({ rid: row.rid, score: m.score, code: '', language: '', utilitySum: row.utility_sum, utilityCount: row.utility_count, createdTask: row.created_task, program: m.program });
    }
    return candidates;
  }

  /**
   * What the re-ranking shapes a group's representative from when its shape is no longer held (it left
   * after the shapes caught up): its question, and its program's code as the group's best-ranked member
   * holds it (`codes`: the candidates carry their code; else it is read). Nothing is read for a held one.
   */
  private unheldShapeSource(g: ProgramGroup<ProgramCandidate>, shapes: QuestionShapes, codes: boolean, cache: Map<string, ProgramRow | null> | null): { question: string; code: string } {
    const rid = g.representative.rid;
    if (shapes.has(rid)) return { question: '', code: '' };
    const code = codes ? g.representative.code : (this.programOf(String(g.members[0].rid), cache)?.code ?? '');
    return { question: this.programOf(String(rid), cache)?.question ?? '', code };
  }

  /** The record's program row (read once per search into `cache`); null when it is no longer active. */
  private programOf(key: string, cache: Map<string, ProgramRow | null> | null): ProgramRow | null {
    let row = cache?.get(key);
    if (row === undefined) {
      row = (this.programStmt.get(Number(key)) as ProgramRow | undefined) ?? null;
      cache?.set(key, row);
    }
    return row;
  }

  /**
   * One entry per normalised program, the best-ranked (input order); the others go to `copies` (still
   * counted and eligible as the representative); records no longer active are dropped.
   */
  private onePerProgram(list: RankedKey[], cache: Map<string, ProgramRow | null>, copies: Set<string>, identity: QuestionShapes | null): RankedKey[] {
    const seen = new Set<string | number>();
    return list.filter((h) => {
      let key: string | number | undefined;
      if (identity) {
        // Held by the caught-up shapes = active.
        key = identity.programId(Number(h.key));
        if (key === undefined) return false;
      } else {
        const row = this.programOf(h.key, cache);
        if (!row) return false;
        key = programKey(row.code, row.language);
      }
      if (seen.has(key)) {
        copies.add(h.key);
        return false;
      }
      seen.add(key);
      return true;
    });
  }

  /**
   * The dense and keyword rankings for one depth, fused (or one of them alone, by mode). With
   * `programs` (collapsing), each ranking keeps only its best entry per program before fusion.
   */
  private rank(
    query: SearchQuery,
    k: number,
    depth: number,
    mode: SearchMode,
    fusion: FusionOptions | undefined,
    programs: Map<string, ProgramRow | null> | null = null,
    want = depth,
    identity: QuestionShapes | null = null,
    denseMemo: DenseMemo | null = null,
  ): Ranked {
    const vector = query.vector;
    const useDense = mode !== 'keyword' && vector !== undefined;
    const useKeyword = mode !== 'vector';
    const overfetch = this.dense.size >= LARGE_MEMORY ? DENSE_OVERFETCH_LARGE : DENSE_OVERFETCH_SMALL;
    // A keyword worker searches while this thread does the dense side.
    if (useKeyword && useDense) this.keywords.prefetch(query.text, depth);
    const denseAnswer = useDense ? this.denseSearch(vector, depth, Math.max(k * overfetch, depth), denseMemo) : null;
    if (mode === 'vector' && vector !== undefined && denseAnswer === null) {
      throw new AgentMemoryError('EMBEDDER_MISMATCH', `The query vector has ${vector.length} dimensions, the memory's vectors ${this.dense.dimension ?? 'none'}. Re-embed the memory (agent-memory re-embed) or switch back to the embedder it was built with.`);
    }
    // The keyword side is the backup: without a dense answer, wait for it to load.
    const keywordAnswer = useKeyword ? this.keywords.search(query.text, depth, denseAnswer === null) : null;
    const sides: SearchSide[] = [];
    if (denseAnswer) sides.push('dense');
    if (keywordAnswer) sides.push('keyword');
    let denseRanked: RankedKey[] = (denseAnswer ?? []).map((h) => ({ key: String(h.rid), score: h.similarity }));
    let keywordRanked: RankedKey[] = (keywordAnswer ?? []).map((h) => ({ key: String(h.rid), score: h.score }));
    let short = false;
    const copies = new Set<string>();
    if (programs) {
      // A side that filled its list but kept fewer distinct programs than `want` may hold more deeper down.
      const dense = this.onePerProgram(denseRanked, programs, copies, identity);
      const keyword = this.onePerProgram(keywordRanked, programs, copies, identity);
      short = (denseRanked.length >= depth && dense.length < want) || (keywordRanked.length >= depth && keyword.length < want);
      denseRanked = dense;
      keywordRanked = keyword;
    }
    const fused = mode === 'vector' ? denseRanked : mode === 'keyword' ? keywordRanked : fuseRankings(denseRanked, keywordRanked, fusion).map((h) => ({ key: h.key, score: h.score }));
    for (const h of fused) copies.delete(h.key);
    return { fused, sides, short, copies: [...copies], denseRank: new Map(denseRanked.map((h, i) => [h.key, i + 1])), keywordRank: new Map(keywordRanked.map((h, i) => [h.key, i + 1])) };
  }

  /**
   * The dense top `depth` of `candidates` coarse candidates. With `memo` (a collapse, which may look again, deeper)
   * its passes share the exact cosines read; a re-ranked one (`ahead`) asks for {@link DENSE_AHEAD}× its depth (at
   * most every candidate): DenseIndex.search gives the exact top k in the exact order, so a later pass over
   * the same candidates takes the head it needs instead of scanning and rescoring them again.
   */
  private denseSearch(vector: Float32Array, depth: number, candidates: number, memo: DenseMemo | null): DenseHit[] | null {
    if (!memo?.ahead) return this.dense.search(vector, depth, candidates, memo?.exact);
    if (memo.candidates !== candidates || memo.depth < depth) {
      memo.candidates = candidates;
      memo.depth = Math.min(candidates, depth * DENSE_AHEAD);
      memo.hits = this.dense.search(vector, memo.depth, candidates, memo.exact);
    }
    return memo.hits && memo.hits.slice(0, depth);
  }

  /**
   * Without collapse: rows are read only for the hits returned (all fused ones when recency
   * re-orders them); a row that is no longer active (changed since the caches were read) is skipped.
   */
  private plainHits(ranked: Ranked, k: number, mode: SearchMode, vector: Float32Array | undefined, weigh: (rid: number, createdTask: number, score: number) => number, reorder: boolean): SearchHit[] {
    const out: SearchHit[] = [];
    for (const h of ranked.fused) {
      if (!reorder && out.length === k) break;
      const row = this.rowStmt.get(Number(h.key)) as CandidateRow | undefined;
      if (!row) continue;
      const hit = this.hitOf(row, h.score, mode, vector, ranked, h.key);
      hit.score = weigh(row.rid, row.created_task, hit.score);
      out.push(hit);
    }
    if (reorder) out.sort((a, b) => b.score - a.score);
    return out.slice(0, k);
  }

  private hitOf(row: CandidateRow, score: number, mode: SearchMode, vector: Float32Array | undefined, ranked: Ranked, key: string): SearchHit {
    let cosine = vector && row.embedding && row.embedding.byteLength === vector.byteLength ? dotBlob(vector, row.embedding) : null;
    // Float32 dot products of unit vectors can land a hair outside [-1, 1].
    if (cosine !== null) cosine = Math.min(1, Math.max(-1, cosine));
    // Vector mode scores by cosine: the exact one (the dense side may rank from int8 or float16 copies).
    const hit: SearchHit = { recordId: row.id, rid: row.rid, score: mode === 'vector' && cosine !== null ? cosine : score, inputSimilarity: cosine };
    const dr = ranked.denseRank.get(key);
    const kr = ranked.keywordRank.get(key);
    if (dr !== undefined) hit.denseRank = dr;
    if (kr !== undefined) hit.keywordRank = kr;
    return hit;
  }

  /** Persists the keyword index now (also done debounced after changes and on close). */
  flush(): void {
    this.keywords.flush();
  }

  /** After close(): settles when the keyword side has stopped (see KeywordSource.stopped). */
  get stopped(): Promise<void> {
    return this.keywords.stopped;
  }

  /** Empties the agreement of programs' call-set cache of this search's connection (a bench times the stage from cold). */
  clearCallSets(): void {
    callSetCacheOf(this.rowStmt.database).clear();
  }

  close(): void {
    this.keywords.close();
    this.dense.dispose();
    this.shapeIndex?.dispose();
  }
}
