/**
 * The keyword scorer's cache of per-term results (keyword-scorer.ts), within a budget of postings: the terms
 * warming pinned (kept until the index changes) and, within the rest of the budget, the terms queries read
 * whole, least recently used evicted first.
 */
import type { TermResults } from './keyword-select';

/** Sizes of the term cache (tests, diagnostics). */
export interface TermCacheStats {
  /** Cached terms, warmed or cached on demand. */
  terms: number;
  /** Their postings (documents held). */
  postings: number;
  /** Terms cached by `warm`: kept until the index changes. */
  warmedTerms: number;
  /** Their postings. */
  warmedPostings: number;
}

export class TermCache {
  /** Terms cached by warming: never evicted (only dropped with the whole cache). */
  private readonly warmed = new Map<string, TermResults>();
  private warmedPostings = 0;
  /** Terms cached by queries, least recently used first. */
  private readonly queried = new Map<string, TermResults>();
  /** Postings of both. */
  private postings = 0;

  constructor(readonly budget: number) {}

  has(term: string): boolean {
    return this.warmed.has(term) || this.queried.has(term);
  }

  isWarmed(term: string): boolean {
    return this.warmed.has(term);
  }

  /** Postings warming may still pin. */
  get warmRoom(): number {
    return this.budget - this.warmedPostings;
  }

  /** A cached term's results (a queried one becomes the most recently used), or undefined. */
  get(term: string): TermResults | undefined {
    const warmed = this.warmed.get(term);
    if (warmed) return warmed;
    const hit = this.queried.get(term);
    if (hit) {
      // Most recently used last: the budget evicts from the front.
      this.queried.delete(term);
      this.queried.set(term, hit);
    }
    return hit;
  }

  /** Pins a term queries cached (true), or says it is not cached (false). */
  promote(term: string): boolean {
    const cached = this.queried.get(term);
    if (!cached) return false;
    this.queried.delete(term);
    this.warmed.set(term, cached);
    this.warmedPostings += cached.ords.length;
    return true;
  }

  /** Caches a queried term, evicting the least recently used ones (never warmed ones) to stay within the budget. */
  remember(term: string, r: TermResults): void {
    if (!this.makeRoom(r.ords.length)) return;
    this.queried.set(term, r);
    this.postings += r.ords.length;
  }

  /** Caches a warmed term. */
  pin(term: string, r: TermResults): void {
    if (!this.makeRoom(r.ords.length)) return;
    this.warmed.set(term, r);
    this.postings += r.ords.length;
    this.warmedPostings += r.ords.length;
  }

  clear(): void {
    this.warmed.clear();
    this.queried.clear();
    this.postings = 0;
    this.warmedPostings = 0;
  }

  get stats(): TermCacheStats {
    return { terms: this.warmed.size + this.queried.size, postings: this.postings, warmedTerms: this.warmed.size, warmedPostings: this.warmedPostings };
  }

  /** Evicts queried terms, least recently used first, until `size` more postings fit; false when they cannot (warmed terms take the room). */
  private makeRoom(size: number): boolean {
    if (this.warmedPostings + size > this.budget) return false;
    for (const [oldest, old] of this.queried) {
      if (this.postings + size <= this.budget) break;
      this.queried.delete(oldest);
      this.postings -= old.ords.length;
    }
    return true;
  }
}
