/**
 * The reference baseline of issue 2 item 7: plain TF-IDF cosine over
 * lower-cased question words (no stop words, no stemming, no n-grams).
 * It exists to be beaten: the built-in embedder must do better than this.
 *
 * - tokens: words of two or more word characters in the lower-cased question
 *   (`\b\w\w+\b`, the customary default of TF-IDF vectorisers);
 * - tf: raw count; idf: ln(N / df) + 1 (smooth, never zero) fitted on the memory side only;
 * - score: cosine of the tf·idf vectors (query words unseen in memory are ignored).
 *
 * @example
 * ```ts
 * const index = new TfidfBaselineIndex();
 * index.add([{ key: 'a', text: 'How many patients died?' }]);
 * index.search('how many patients were admitted', 4); // [{ key: 'a', score: 0.7… }]
 * ```
 */

/** Tokens of the baseline: lower-cased words of at least two word characters. */
export function baselineTokens(text: string): string[] {
  return text.toLowerCase().match(/\b\w\w+\b/g) ?? [];
}

interface BaselineDoc {
  key: string;
  weights: Map<string, number>;
  norm: number;
}

export class TfidfBaselineIndex {
  private readonly docs: BaselineDoc[] = [];
  private readonly rawDocs: { key: string; counts: Map<string, number> }[] = [];
  private readonly df = new Map<string, number>();
  private dirty = false;

  /** Adds documents; IDF is (re)fitted lazily on the whole memory before the next search. */
  add(items: readonly { key: string; text: string }[]): void {
    for (const item of items) {
      const counts = countTokens(baselineTokens(item.text));
      for (const term of counts.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
      this.rawDocs.push({ key: item.key, counts });
    }
    this.dirty = true;
  }

  get size(): number {
    return this.rawDocs.length;
  }

  /** Top-k documents by cosine, best first (ties keep insertion order). */
  search(text: string, k: number): { key: string; score: number }[] {
    if (this.dirty) this.refit();
    const query = this.weigh(countTokens(baselineTokens(text)));
    const qNorm = vectorNorm(query);
    if (qNorm === 0) return [];
    const scored = this.docs.map((doc, index) => {
      let dot = 0;
      for (const [term, w] of query) dot += w * (doc.weights.get(term) ?? 0);
      return { key: doc.key, score: doc.norm === 0 ? 0 : dot / (qNorm * doc.norm), index };
    });
    scored.sort((a, b) => b.score - a.score || a.index - b.index);
    return scored.slice(0, k).map(({ key, score }) => ({ key, score }));
  }

  private idf(term: string): number {
    const df = this.df.get(term);
    return df ? Math.log(this.rawDocs.length / df) + 1 : 0;
  }

  private weigh(counts: Map<string, number>): Map<string, number> {
    const out = new Map<string, number>();
    for (const [term, tf] of counts) {
      const w = tf * this.idf(term);
      if (w > 0) out.set(term, w);
    }
    return out;
  }

  private refit(): void {
    this.docs.length = 0;
    for (const raw of this.rawDocs) {
      const weights = this.weigh(raw.counts);
      this.docs.push({ key: raw.key, weights, norm: vectorNorm(weights) });
    }
    this.dirty = false;
  }
}

function countTokens(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

function vectorNorm(weights: Map<string, number>): number {
  let s = 0;
  for (const w of weights.values()) s += w * w;
  return Math.sqrt(s);
}
