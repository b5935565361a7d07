/**
 * The compact keyword index: per term and field, postings in typed arrays
 * (document ordinal Int32 + term frequency Uint16/Uint32), per-document field
 * lengths in typed arrays, BM25 computed at query time with MiniSearch 7.1's
 * own formula, parameters and field-length bookkeeping (so scores equal its
 * own, and ties order the same: a document's ordinal follows insertion order
 * as MiniSearch's short ids do).
 *
 * Two parts: the base, immutable CSR arrays (as read from the index file, no
 * per-posting objects: `start` offsets per term×field slot into `docs`/`tfs`),
 * and the delta, the postings added since, as linked lists in growable typed
 * arrays. A leaving document is a tombstone (`alive` 0); its field lengths
 * leave the averages and its terms the live document frequencies at once.
 * `compact` merges base and delta into a new base without the tombstones
 * (renumbering ordinals in the same order): when the delta or the tombstones
 * grow large. What changed since the base was last written (or since the
 * last `markWritten`) is a `DeltaSegment` (keyword-compact-delta.ts appends
 * it to the delta file), and `applySegment` replays one on a loaded base:
 * the same arrays, floats and ordinals as the index that wrote it.
 *
 * @example
 * const postings = CompactPostings.empty();
 * postings.add({ id: 7, question: 'aspirin dose', code: '' });
 * postings.readTerm('aspirin', new Map([[7, 0]])); // { ords: [0], scores: [...], field: [0] }
 */
import { hash53 } from '../../text-hash';
import { Doc, MINISEARCH_OPTIONS, SCORER_OPTIONS, tokenize } from './keyword-documents';
import { EMPTY_RESULTS, readTermView, SlotView, TermView, topOfTermView } from './keyword-compact-read';
import { fieldBoosts, inverseDocumentFrequency, PostingsReader } from './keyword-postings';
import type { TermResults } from './keyword-select';
import type { DeltaSegment } from './keyword-compact-delta';
import { DeltaPostings, grow } from './keyword-delta-postings';

/** The indexed fields, in MiniSearch's field order (field index = MiniSearch's field id). */
export const COMPACT_FIELDS: readonly string[] = MINISEARCH_OPTIONS.fields;
const F = COMPACT_FIELDS.length;
/** Fewest delta postings that trigger a compaction (below that, the delta is cheap to read). */
export const COMPACT_MIN_DELTA = 262_144;
const BOOSTS = fieldBoosts(SCORER_OPTIONS);
const BM25 = SCORER_OPTIONS.bm25;

/** The identity of a document's indexed text (a leaving record whose text changed since needs a compaction). */
export function indexedTextHash(doc: Doc): number {
  return hash53(`${doc.question}\u0000${doc.code}`);
}

/** What a compact index is made of, as written to and read from its file (the base only: no delta, no tombstones). */
export interface CompactState {
  terms: string[];
  /** `terms.length × fields + 1` offsets into docs/tfs; slot = term × fields + field. */
  start: Int32Array;
  docs: Int32Array;
  tfs: Uint16Array | Uint32Array;
  /** Per document (ordinal): record rowid, indexed text hash, unique terms per field. */
  rid: Float64Array;
  hash: Float64Array;
  lengths: Uint32Array[];
  /** MiniSearch's running average field lengths (its float operations, replayed). */
  avg: number[];
}

/** The documents that may rank in the best `limit` of a one-term query, ordinals `ordinalOf`'s (null: read the term whole). */
export type TopOfTerm = (term: string, limit: number, ordinalOf: ReadonlyMap<number, number>) => TermResults | null;

export class CompactPostings {
  // Terms.
  private terms: string[] = [];
  private termId = new Map<string, number>();
  /** Live documents holding each term, per field. */
  private df: Int32Array[] = Array.from({ length: F }, () => new Int32Array(0));
  // Base.
  private baseTerms = 0;
  private start: Int32Array = new Int32Array(1);
  private docs: Int32Array = new Int32Array(0);
  private tfs: Uint16Array | Uint32Array = new Uint16Array(0);
  // Delta: the postings added since the base.
  private delta = new DeltaPostings();
  // The journal since the last written state: terms, documents and delta entries from `mark` on, and the
  // tombstones and document frequency decrements since then (slots).
  private mark = { terms: 0, count: 0, delta: 0 };
  private deadLog: number[] = [];
  private dfDown: number[] = [];
  // Documents, by ordinal.
  private count = 0;
  private rid: Float64Array = new Float64Array(0);
  private hash: Float64Array = new Float64Array(0);
  private lengths: Uint32Array[] = Array.from({ length: F }, () => new Uint32Array(0));
  private alive: Uint8Array = new Uint8Array(0);
  private readonly ordOf = new Map<number, number>();
  private dead = 0;
  /** A document left whose terms are not known (its text changed): the frequencies are recounted by a compaction before the next read. */
  private stale = false;
  private avg: number[] = new Array<number>(F).fill(0);
  /** Live documents. */
  documentCount = 0;
  /** Compactions done (tests, diagnostics); each makes a new base (what a delta segment extends). */
  compactions = 0;

  private constructor() {}

  static empty(): CompactPostings {
    return new CompactPostings();
  }

  /** An index over a state read from a file (its arrays are used as they are: no copy of the postings). */
  static fromState(s: CompactState): CompactPostings {
    const p = new CompactPostings();
    p.adopt(s);
    return p;
  }

  has(rid: number): boolean {
    return this.ordOf.has(rid);
  }

  /** Whether `now` is the text the live document `rid` was indexed with (so its terms are known). */
  knows(rid: number, now: Doc | null): boolean {
    const o = this.ordOf.get(rid);
    return o !== undefined && now !== null && indexedTextHash(now) === this.hash[o];
  }

  /** Record rowids of the live documents, in document (insertion) order. */
  *documentIds(): IterableIterator<number> {
    for (let o = 0; o < this.count; o++) if (this.alive[o]) yield this.rid[o];
  }

  /** Live documents holding `term`, per field. */
  perField(term: string): number[] {
    if (this.stale) this.compact();
    const id = this.termId.get(term);
    return this.df.map((d) => (id === undefined ? 0 : d[id]));
  }

  /** Every term with a live document (each once). */
  *termList(): IterableIterator<string> {
    for (let t = 0; t < this.terms.length; t++) if (this.df.some((d) => d[t] > 0)) yield this.terms[t];
  }

  /** Postings held (base + delta, tombstoned ones included) and tombstones (diagnostics, compaction). */
  get sizes(): { terms: number; basePostings: number; deltaPostings: number; documents: number; tombstones: number } {
    return { terms: this.terms.length, basePostings: this.docs.length, deltaPostings: this.delta.count, documents: this.documentCount, tombstones: this.dead };
  }

  /** Indexes a document as MiniSearch's `add` does (field lengths = unique tokens; terms = non-empty tokens). */
  add(doc: Doc): void {
    if (this.ordOf.has(doc.id)) throw new Error(`keyword index: record ${doc.id} is already indexed (remove it first)`);
    const o = this.newDocument(doc.id, indexedTextHash(doc));
    const texts = [doc.question, doc.code];
    for (let f = 0; f < F; f++) {
      const tokens = tokenize(texts[f], COMPACT_FIELDS[f]);
      const unique = new Set(tokens).size;
      this.lengths[f][o] = unique;
      // MiniSearch's addFieldLength, with its count (documents before this one) and operation order.
      const before = this.documentCount - 1;
      this.avg[f] = ((this.avg[f] || 0) * before + unique) / (before + 1);
      const tf = new Map<string, number>();
      for (const t of tokens) if (t) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [term, n] of tf) {
        const id = this.idOf(term);
        this.df[f][id]++;
        this.delta.push(id * F + f, o, n);
      }
    }
  }

  /**
   * Removes a live document: a tombstone, its field lengths out of the averages (MiniSearch's removeFieldLength),
   * its terms out of the document frequencies. `now` is its text as it is in the database: when that is not the
   * text it was indexed with (an edited record), its terms are not known and the index is compacted at once.
   */
  remove(rid: number, now: Doc | null): void {
    const o = this.ordOf.get(rid);
    if (o === undefined) return;
    for (let f = 0; f < F; f++) {
      const n = this.documentCount;
      this.avg[f] = n === 1 ? 0 : (this.avg[f] * n - this.lengths[f][o]) / (n - 1);
    }
    this.documentCount--;
    this.alive[o] = 0;
    this.ordOf.delete(rid);
    this.dead++;
    this.deadLog.push(o);
    if (now && indexedTextHash(now) === this.hash[o]) {
      const texts = [now.question, now.code];
      for (let f = 0; f < F; f++) {
        for (const t of new Set(tokenize(texts[f], COMPACT_FIELDS[f]))) {
          const id = t ? this.termId.get(t) : undefined;
          if (id === undefined) continue;
          this.df[f][id]--;
          this.dfDown.push(id * F + f);
        }
      }
    } else {
      this.stale = true;
    }
  }

  /** Compacts when the delta or the tombstones have grown large. */
  maybeCompact(): void {
    if (this.stale || this.delta.count > Math.max(COMPACT_MIN_DELTA, this.docs.length / 2) || this.dead > Math.max(1024, this.count / 4)) this.compact();
  }

  /** `term`'s results, as MiniSearch's `search(term)` scores them (see PostingsReader). */
  readonly readTerm: PostingsReader = (term, ordinalOf, only) => {
    const view = this.view(term);
    return view ? readTermView(view, ordinalOf, only) : EMPTY_RESULTS;
  };

  /** The documents that may rank in the best `limit` of a query of `term` alone (see topOfTermView); null: read it whole. */
  readonly topOfTerm: TopOfTerm = (term, limit, ordinalOf) => {
    const view = this.view(term);
    return view ? topOfTermView(view, limit, ordinalOf) : EMPTY_RESULTS;
  };

  /** A term's postings per field and what scores them (null: no such term). */
  private view(term: string): TermView | null {
    if (this.stale) this.compact();
    const id = this.termId.get(term);
    if (id === undefined) return null;
    const slots: SlotView[] = [];
    let capacity = 0;
    for (let f = 0; f < F; f++) {
      const matching = this.df[f][id];
      if (matching === 0) continue;
      capacity += matching;
      const slot = id * F + f;
      const inBase = id < this.baseTerms;
      slots.push({
        field: f,
        idf: inverseDocumentFrequency(this.documentCount, matching),
        boost: BOOSTS[f],
        avg: this.avg[f],
        bm25: BM25,
        lengths: this.lengths[f],
        docs: this.docs,
        tfs: this.tfs,
        from: inBase ? this.start[slot] : 0,
        to: inBase ? this.start[slot + 1] : 0,
        delta: this.delta.entries(slot),
        dOrd: this.delta.ord,
        dTf: this.delta.tf,
      });
    }
    return { alive: this.alive, rid: this.rid, slots, capacity };
  }

  /** The index as one base (compacted first): what its file holds. */
  state(): CompactState {
    if (this.delta.count > 0 || this.dead > 0 || this.rid.length !== this.count) this.compact();
    return { terms: this.terms.slice(0, this.baseTerms), start: this.start, docs: this.docs, tfs: this.tfs, rid: this.rid, hash: this.hash, lengths: this.lengths, avg: [...this.avg] };
  }

  /**
   * What changed since the last written state (the base, or the last segment: `markWritten`), as a segment;
   * null when a document left with unknown terms (its frequencies are recounted by a compaction: write a base).
   */
  segment(): Omit<DeltaSegment, 'seq'> | null {
    if (this.stale) return null;
    const { terms, count, delta } = this.mark;
    return {
      from: { terms, documents: count, entries: delta, tombstones: this.dead - this.deadLog.length },
      terms: this.terms.slice(terms),
      rid: this.rid.slice(count, this.count),
      hash: this.hash.slice(count, this.count),
      lengths: this.lengths.map((l) => l.slice(count, this.count)),
      ...this.delta.since(delta),
      dead: Int32Array.from(this.deadLog),
      dfDown: Int32Array.from(this.dfDown),
      avg: [...this.avg],
    };
  }

  /** The state as it is now was written (the journal starts over from here). */
  markWritten(): void {
    this.mark = { terms: this.terms.length, count: this.count, delta: this.delta.count };
    this.deadLog = [];
    this.dfDown = [];
  }

  /** Whether `s` extends this state as it is (the state it was taken from). */
  extendedBy(s: DeltaSegment): boolean {
    const f = s.from;
    return f.terms === this.terms.length && f.documents === this.count && f.entries === this.delta.count && f.tombstones === this.dead && s.avg.length === F;
  }

  /** Replays a segment written by an index in this state (`extendedBy`): its terms, documents, postings and tombstones. */
  applySegment(s: DeltaSegment): void {
    if (!this.extendedBy(s)) throw new Error('keyword index: a delta segment does not extend this index');
    for (const t of s.terms) this.idOf(t);
    for (let i = 0; i < s.rid.length; i++) {
      const o = this.newDocument(s.rid[i], s.hash[i]);
      for (let f = 0; f < F; f++) this.lengths[f][o] = s.lengths[f][i];
    }
    for (let e = 0; e < s.slot.length; e++) {
      const slot = s.slot[e];
      if (slot < 0 || slot >= this.terms.length * F || s.ord[e] < this.mark.count || s.ord[e] >= this.count) throw new Error('keyword index: a delta segment names a term or document it does not hold');
      this.df[slot % F][Math.floor(slot / F)]++;
      this.delta.push(slot, s.ord[e], s.tf[e]);
    }
    for (const o of s.dead) {
      if (o < 0 || o >= this.count || !this.alive[o]) throw new Error('keyword index: a delta segment removes a document it does not hold');
      this.alive[o] = 0;
      if (this.ordOf.get(this.rid[o]) === o) this.ordOf.delete(this.rid[o]);
      this.dead++;
      this.documentCount--;
    }
    for (const slot of s.dfDown) if (slot >= 0 && slot < this.terms.length * F) this.df[slot % F][Math.floor(slot / F)]--;
    this.avg = [...s.avg];
    this.markWritten();
  }

  /**
   * Merges base and delta into a new base without tombstones or terms no live document holds: ordinals are
   * renumbered in the same order (ties rank the same), frequencies recounted from the live postings.
   */
  compact(): void {
    const newOrd = new Int32Array(this.count);
    let docs = 0;
    for (let o = 0; o < this.count; o++) newOrd[o] = this.alive[o] ? docs++ : -1;
    const slots = this.terms.length * F;
    // 1. Live postings per slot.
    const live = new Int32Array(slots);
    let maxTf = 0;
    this.forEachPosting((slot, o, tf) => {
      if (newOrd[o] < 0) return;
      live[slot]++;
      if (tf > maxTf) maxTf = tf;
    });
    const keep = new Int32Array(this.terms.length);
    const terms: string[] = [];
    for (let t = 0; t < this.terms.length; t++) {
      let total = 0;
      for (let f = 0; f < F; f++) total += live[t * F + f];
      keep[t] = total > 0 ? terms.length : -1;
      if (total > 0) terms.push(this.terms[t]);
    }
    // 2. Offsets and frequencies of the kept terms.
    const start = new Int32Array(terms.length * F + 1);
    const df = Array.from({ length: F }, () => new Int32Array(terms.length));
    for (let t = 0; t < this.terms.length; t++) {
      if (keep[t] < 0) continue;
      for (let f = 0; f < F; f++) df[f][keep[t]] = live[t * F + f];
    }
    for (let s = 0; s < terms.length * F; s++) start[s + 1] = start[s] + df[s % F][Math.floor(s / F)];
    // 3. The postings, base first then delta (older ordinals first within a slot).
    const total = start[start.length - 1];
    const out = new Int32Array(total);
    const outTf = maxTf > 0xffff ? new Uint32Array(total) : new Uint16Array(total);
    const fill = start.slice(0, Math.max(0, start.length - 1));
    this.forEachPosting((slot, o, tf) => {
      const t = keep[Math.floor(slot / F)];
      if (newOrd[o] < 0 || t < 0) return;
      const at = fill[t * F + (slot % F)]++;
      out[at] = newOrd[o];
      outTf[at] = tf;
    });
    // 4. Documents.
    const rid = new Float64Array(docs);
    const hash = new Float64Array(docs);
    const lengths = Array.from({ length: F }, () => new Uint32Array(docs));
    for (let o = 0; o < this.count; o++) {
      const n = newOrd[o];
      if (n < 0) continue;
      rid[n] = this.rid[o];
      hash[n] = this.hash[o];
      for (let f = 0; f < F; f++) lengths[f][n] = this.lengths[f][o];
    }
    this.adopt({ terms, start, docs: out, tfs: outTf, rid, hash, lengths, avg: this.avg });
    this.df = df;
    this.stale = false;
    this.compactions++;
  }

  // ---------------------------------------------------------------- internals

  private adopt(s: CompactState): void {
    this.terms = s.terms;
    this.termId = new Map(s.terms.map((t, i) => [t, i]));
    this.baseTerms = s.terms.length;
    this.start = s.start;
    this.docs = s.docs;
    this.tfs = s.tfs;
    this.df = Array.from({ length: F }, () => new Int32Array(s.terms.length));
    for (let t = 0; t < s.terms.length; t++) for (let f = 0; f < F; f++) this.df[f][t] = s.start[t * F + f + 1] - s.start[t * F + f];
    this.delta = new DeltaPostings();
    this.count = s.rid.length;
    this.rid = s.rid;
    this.hash = s.hash;
    this.lengths = s.lengths;
    this.alive = new Uint8Array(this.count).fill(1);
    this.ordOf.clear();
    for (let o = 0; o < this.count; o++) this.ordOf.set(this.rid[o], o);
    this.dead = 0;
    this.documentCount = this.count;
    this.avg = [...s.avg];
    this.markWritten();
  }

  /** Every posting held (tombstoned ones included): base, then delta oldest first. */
  private forEachPosting(visit: (slot: number, o: number, tf: number) => void): void {
    for (let s = 0; s < this.baseTerms * F; s++) for (let j = this.start[s]; j < this.start[s + 1]; j++) visit(s, this.docs[j], this.tfs[j]);
    const d = this.delta;
    for (let e = 0; e < d.count; e++) visit(d.slot[e], d.ord[e], d.tf[e]);
  }

  private newDocument(rid: number, hash: number): number {
    const o = this.count++;
    this.rid = grow(this.rid, this.count, (n) => new Float64Array(n));
    this.hash = grow(this.hash, this.count, (n) => new Float64Array(n));
    this.alive = grow(this.alive, this.count, (n) => new Uint8Array(n));
    this.lengths = this.lengths.map((l) => grow(l, this.count, (n) => new Uint32Array(n)));
    this.rid[o] = rid;
    this.hash[o] = hash;
    this.alive[o] = 1;
    this.ordOf.set(rid, o);
    this.documentCount++;
    return o;
  }

  private idOf(term: string): number {
    let id = this.termId.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.termId.set(term, id);
      this.df = this.df.map((d) => grow(d, id! + 1, (n) => new Int32Array(n)));
    }
    return id;
  }
}
