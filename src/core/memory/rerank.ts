/**
 * A re-ranking stage over the fused, collapsed top of a hybrid search (issue 18):
 * it re-orders the best {@link RERANK_DEPTH} candidates by two learned-free
 * agreements between the query and each candidate, added to the candidate's
 * fused score scaled by the best one (so the first-stage order still leads):
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
 * Weights are round numbers ({@link SLOT_WEIGHT}, {@link LINK_WEIGHT}), not fitted:
 * measured on the shared EHRSQL split and on the held-back one (README).
 *
 * @example
 * ```ts
 * const shapes = new QuestionShapes();
 * for (const r of records) shapes.add(r.question, r.code);
 * const order = shapes.rerank('What is the cost of a knee x-ray?', candidates); // best first
 * ```
 */
import { FUNCTION_WORDS } from './text-processing';
import { programLiterals, ValueVocabulary, VALUE_PLACEHOLDER } from './value-masking';

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
  /** First-stage score (higher is better); candidates arrive best first. */
  score: number;
  question: string;
  code: string;
}

interface Profile {
  slots: number;
  terms: string[];
  own: Set<string>;
}

const TOKEN = /<\w+>|[\p{L}\p{N}]+/gu;
const NO_VALUES = new ValueVocabulary();

function tokensOf(masked: string): string[] {
  return masked.match(TOKEN) ?? [];
}

/** Words of a program's identifiers (camelCase and snake_case split), literals left out. */
export function identifierWords(code: string): string[] {
  let rest = code;
  for (const literal of programLiterals(code)) rest = rest.split(literal).join(' ');
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

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const x of a) if (b.has(x)) shared += 1;
  return shared / (a.size + b.size - shared);
}

function slotCount(tokens: readonly string[]): number {
  return tokens.filter((t) => t === VALUE_PLACEHOLDER).length;
}

/**
 * The memory-side state of the re-ranking: the value vocabulary of the stored
 * programs and the words stored questions use outside values, both counted per
 * record so they follow records as they come (`add`) and go (`remove`).
 */
export class QuestionShapes {
  private readonly vocabulary = new ValueVocabulary();
  private readonly known = new Map<string, number>();

  /** Number of distinct question words known outside values. */
  get size(): number {
    return this.known.size;
  }

  add(question: string, code: string): void {
    this.vocabulary.add(code);
    for (const w of new Set(ownMasked(question, code))) this.known.set(w, (this.known.get(w) ?? 0) + 1);
  }

  remove(question: string, code: string): void {
    this.vocabulary.remove(code);
    for (const w of new Set(ownMasked(question, code))) {
      const n = this.known.get(w) ?? 0;
      if (n > 1) this.known.set(w, n - 1);
      else this.known.delete(w);
    }
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
    const top = head[0].score;
    const scale = top > 0 && Number.isFinite(top) ? top : 1;
    const q = this.maskQuery(query);
    const qSlots = slotCount(q);
    const scored = head.map((c, index) => {
      const p = profileOf(c);
      let value = c.score / scale;
      if (parts.slots && p.slots === qSlots) value += SLOT_WEIGHT;
      if (parts.links) value += LINK_WEIGHT * jaccard(linked(q, p.terms), p.own);
      return { c, value, index };
    });
    scored.sort((a, b) => b.value - a.value || a.index - b.index);
    return [...scored.map((s) => s.c), ...candidates.slice(RERANK_DEPTH)];
  }
}

/** A question's tokens masked with its own program's literals only. */
function ownMasked(question: string, code: string): string[] {
  return tokensOf(NO_VALUES.mask(question, code).text);
}

function profileOf(c: RerankCandidate): Profile {
  const tokens = ownMasked(c.question, c.code);
  const terms = identifierWords(c.code);
  return { slots: slotCount(tokens), terms, own: linked(tokens, terms) };
}
