/**
 * A re-ranking stage over the fused, collapsed top of a hybrid search (issue 18):
 * it re-orders the best {@link RERANK_DEPTH} candidates by two learned-free
 * agreements between the query and each candidate, added to a first-stage
 * score of the candidate's place in the collapsed order, scored as the fusion
 * scores ranks (c / (c + i), c = the fusion's rank constant, i = 0 for the
 * first), so the first-stage order still leads. The place, not the fused score:
 * copies of other programs push a program's fused score down (they take ranks
 * on each side) but not its place among distinct programs, so a memory with
 * copies is re-ranked from the same footing as one without.
 *
 * - **value slots** (`slots`): the number of value slots of the query's masked
 *   view equals the candidate's. The query is masked with the value vocabulary
 *   of the memory's programs (see value-masking.ts) and every word no stored
 *   question uses outside a value (a word the memory has never seen as
 *   question text is most likely a value); a candidate's question is masked
 *   with its own program's literals. Requests of one shape ask for the same
 *   number of values ("cost of X" vs "cost of X for patient N"): masking makes
 *   the counts comparable whatever the values are.
 * - **program links** (`links`): the words of a question that name parts of the
 *   candidate's program (identifier words of its code, literals left out: a
 *   question word links an identifier word when one is a prefix of the other or
 *   they share five letters) are the same for the query as for the candidate's
 *   own question (Jaccard). "Which ward" links `wardid`, "care unit" links
 *   `careunit`: the candidate whose program the query talks about the way its
 *   own question did wins. Any language: only identifiers and literals are read.
 *
 * Cost: each record's shape (its masked question's slot count, its program's
 * identifier words and the ones its question names, and what it adds to the
 * memory-wide counts) is computed once, when the record is `set` (index time),
 * and un-counted on `delete`; a query is masked in O(its words) (map lookups,
 * no scan of the vocabulary) and each candidate costs a few string compares.
 *
 * Weights are round numbers ({@link SLOT_WEIGHT}, {@link LINK_WEIGHT}), not fitted:
 * measured on the shared EHRSQL split and on the held-back one (README).
 *
 * @example
 * ```ts
 * const shapes = new QuestionShapes();
 * for (const r of records) shapes.set(r.rid, r.question, r.code);
 * const order = shapes.rerank('What is the cost of a knee x-ray?', candidates); // best first
 * shapes.delete(rid); // the record went
 * ```
 */
import { DEFAULT_RANK_CONSTANT } from './fusion';
import { FUNCTION_WORDS } from '../text-processing';
import { programLiterals, ValueVocabulary, valuePhrases, VALUE_PLACEHOLDER } from './value-masking';

/**
 * Whether hybrid retrieval re-ranks by default (product, MCP server, bench stream, eval-retrieval): off.
 * Its cold-start cost is gone (compact state, loaded after both sides: first answer unchanged, steady RSS
 * +66 MB at 100k), but a re-ranked search at 100k synthetic records takes 6.8 ms p50 against 1.9 ms
 * (wider collapse, and per-side collapse where copies are found; README). `rerank: true` /
 * `eval-retrieval --rerank` opt in.
 */
export const DEFAULT_RERANK = false;
/** How many of the best candidates are re-ordered. */
export const RERANK_DEPTH = 10;
/** Added when the query and the candidate have the same number of value slots. */
export const SLOT_WEIGHT = 0.5;
/** Times the Jaccard agreement of the program parts the two questions name. */
export const LINK_WEIGHT = 0.5;
/** Shortest shared prefix that links a question word to a longer identifier word. */
export const LINK_PREFIX = 5;

/** The parts of the re-ranking that apply (ablation). */
export interface RerankParts {
  slots: boolean;
  links: boolean;
}

export const RERANK_PART_NAMES = ['slots', 'links'] as const;

export const ALL_RERANK_PARTS: RerankParts = { slots: true, links: true };

export interface RerankCandidate {
  /** The record's key (rid): its shape is looked up by it, computed from question and code when not held. */
  key: number;
  /** First-stage score (higher is better); candidates arrive best first (the re-ranking reads their order). */
  score: number;
  question: string;
  code: string;
}

/** What one record contributes, computed once at index time. */
export interface RecordShape {
  /** Value slots of its question masked with its own program's literals. */
  slots: number;
  /** Identifier words of its program (literals left out). */
  terms: readonly string[];
  /** The subset of `terms` its own question names. */
  own: ReadonlySet<string>;
  /** Value phrases of its program (counted into the vocabulary). */
  phrases: readonly string[];
  /** Distinct words of its question outside values (counted as known). */
  words: readonly string[];
}

const TOKEN = /<\w+>|[\p{L}\p{N}]+/gu;

function tokensOf(masked: string): string[] {
  return masked.match(TOKEN) ?? [];
}

/** Words of a program's identifiers (camelCase and snake_case split), literals left out. */
export function identifierWords(code: string, literals: readonly string[] = programLiterals(code)): string[] {
  let rest = code;
  for (const literal of literals) rest = rest.split(literal).join(' ');
  const out = new Set(rest.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().match(/[a-z]{3,}/g) ?? []);
  return [...out];
}

function links(word: string, term: string): boolean {
  if (word.length < 3) return false;
  if (term.startsWith(word) || word.startsWith(term)) return true;
  let i = 0;
  while (i < word.length && i < term.length && word[i] === term[i]) i++;
  return i >= LINK_PREFIX;
}

/** The identifier words of a program that the question's content words name. */
function linked(tokens: readonly string[], terms: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const w of tokens) {
    if (w.startsWith('<') || FUNCTION_WORDS.has(w)) continue;
    for (const t of terms) if (links(w, t)) out.add(t);
  }
  return out;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared += 1;
  return shared / (a.size + b.size - shared);
}

function slotCount(tokens: readonly string[]): number {
  return tokens.filter((t) => t === VALUE_PLACEHOLDER).length;
}

/** What one record adds to the memory-wide counts: its program's value phrases and its question's words outside values. */
export function recordCounts(question: string, code: string): { phrases: string[]; tokens: string[]; words: string[] } {
  const phrases = valuePhrases(code);
  const tokens = tokensOf(new ValueVocabulary().maskWith(question, ValueVocabulary.of(phrases)).text);
  return { phrases, tokens, words: [...new Set(tokens)] };
}

/** The shape of one record (its question masked with its own program's literals only). */
export function recordShape(question: string, code: string): RecordShape {
  const { phrases, tokens, words } = recordCounts(question, code);
  const terms = identifierWords(code);
  return { slots: slotCount(tokens), terms, own: linked(tokens, terms), phrases, words };
}

/** Candidate shapes kept for re-use between queries (computed again when evicted; a few µs each). */
export const SHAPE_CACHE_SIZE = 2048;

/**
 * The memory-side state of the re-ranking: the value vocabulary of the stored
 * programs and the words stored questions use outside values, counted per
 * record so they follow records as they come (`set`) and go (`delete`).
 *
 * Compact: per record only what it added to the two counts is held, as ids of
 * interned words in one typed array (about 40 bytes a record plus the Map
 * entry); a candidate's own shape (slots, identifier words, the ones its
 * question names) is computed when a query first needs it and kept in a
 * bounded cache ({@link SHAPE_CACHE_SIZE}). Holding every record's shape as
 * objects cost ~480 MB of RSS at 100k records.
 */
export class QuestionShapes {
  private vocabulary = new ValueVocabulary();
  private readonly known = new Map<string, number>();
  /** Per record: [number of phrases, phrase ids…, word ids…] (ids into `words`). */
  private readonly counted = new Map<number, Uint32Array>();
  /** Word or phrase → id, and back. */
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];
  /** Candidates' shapes by key, least recently used first. */
  private readonly cache = new Map<number, RecordShape>();

  /** Number of records held. */
  get size(): number {
    return this.counted.size;
  }

  has(key: number): boolean {
    return this.counted.has(key);
  }

  /** Adds a record, or replaces the one held under `key` (its text changed). */
  set(key: number, question: string, code: string): void {
    this.delete(key);
    const { phrases, words } = recordCounts(question, code);
    const counts = new Uint32Array(1 + phrases.length + words.length);
    counts[0] = phrases.length;
    let i = 1;
    for (const p of phrases) {
      counts[i++] = this.idOf(p);
      this.vocabulary.addPhrase(p);
    }
    for (const w of words) {
      counts[i++] = this.idOf(w);
      this.known.set(w, (this.known.get(w) ?? 0) + 1);
    }
    this.counted.set(key, counts);
  }

  /** Un-counts a record (nothing happens when it is not held). */
  delete(key: number): void {
    this.cache.delete(key);
    const counts = this.counted.get(key);
    if (!counts) return;
    this.counted.delete(key);
    const phrases = counts[0];
    for (let i = 1; i < counts.length; i++) {
      const word = this.words[counts[i]];
      if (i <= phrases) {
        this.vocabulary.removePhrase(word);
        continue;
      }
      const n = this.known.get(word) ?? 0;
      if (n > 1) this.known.set(word, n - 1);
      else this.known.delete(word);
    }
  }

  clear(): void {
    this.counted.clear();
    this.known.clear();
    this.ids.clear();
    this.words.length = 0;
    this.cache.clear();
    this.vocabulary = new ValueVocabulary();
  }

  /** The memory-wide counts, sorted (tests compare an incrementally kept state with a rebuilt one). */
  snapshot(): { records: number[]; phrases: [string, number][]; known: [string, number][] } {
    const byKey = (a: [string, number], b: [string, number]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    return { records: [...this.counted.keys()].sort((a, b) => a - b), phrases: this.vocabulary.entries(), known: [...this.known.entries()].sort(byKey) };
  }

  /** Tokens of the query's masked view: vocabulary values, then words no stored question uses, as value slots. */
  maskQuery(query: string): string[] {
    const out: string[] = [];
    for (const t of tokensOf(this.vocabulary.mask(query).text)) {
      const token = t.startsWith('<') || this.known.has(t) ? t : VALUE_PLACEHOLDER;
      // Adjacent value words are one value ("isosorbide dinitrate").
      if (token === VALUE_PLACEHOLDER && out[out.length - 1] === VALUE_PLACEHOLDER) continue;
      out.push(token);
    }
    return out;
  }

  /** The candidates re-ordered (the best {@link RERANK_DEPTH}; the rest follow unchanged). */
  rerank<C extends RerankCandidate>(query: string, candidates: readonly C[], parts: RerankParts = ALL_RERANK_PARTS): C[] {
    if (candidates.length < 2 || (!parts.slots && !parts.links)) return [...candidates];
    const head = candidates.slice(0, RERANK_DEPTH);
    const q = this.maskQuery(query);
    const qSlots = slotCount(q);
    const scored = head.map((c, index) => {
      const p = this.shapeOf(c);
      let value = DEFAULT_RANK_CONSTANT / (DEFAULT_RANK_CONSTANT + index);
      if (parts.slots && p.slots === qSlots) value += SLOT_WEIGHT;
      if (parts.links) value += LINK_WEIGHT * jaccard(linked(q, p.terms), p.own);
      return { c, value, index };
    });
    scored.sort((a, b) => b.value - a.value || a.index - b.index);
    return [...scored.map((s) => s.c), ...candidates.slice(RERANK_DEPTH)];
  }

  /** A candidate's shape: from the cache, else computed from its question and code (and cached). */
  private shapeOf(c: RerankCandidate): RecordShape {
    const held = this.cache.get(c.key);
    if (held) {
      this.cache.delete(c.key);
      this.cache.set(c.key, held);
      return held;
    }
    const shape = recordShape(c.question, c.code);
    if (this.counted.has(c.key)) this.remember(c.key, shape);
    return shape;
  }

  private remember(key: number, shape: RecordShape): void {
    this.cache.delete(key);
    this.cache.set(key, shape);
    if (this.cache.size > SHAPE_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as number);
  }

  private idOf(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.words.push(word);
      this.ids.set(word, id);
    }
    return id;
  }
}
