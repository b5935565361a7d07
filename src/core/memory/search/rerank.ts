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
 * - **value columns** (`columns`): the share of the query's values whose column
 *   the candidate's program compares a literal with. Stored programs tell which
 *   named thing each value belongs to (`d_labitems.label = 'potassium'`, `r.drug
 *   == "aspirin"`: see `literalColumns`); a value of the query found in the
 *   vocabulary takes the column it is most often compared with, so "minimum
 *   potassium" prefers a lab-test program to a chart-event one of the same
 *   wording. With the values of the data the agent works on
 *   ({@link QuestionShapes.setDomainValues}), a query's value no stored
 *   program has used yet counts too, with every column holding it (a
 *   one-word value the stored questions use as a word is left out). Queries
 *   with no known value get nothing from it.
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
import { programKey } from './program-collapse';
import { FUNCTION_WORDS } from '../text-processing';
import type { DomainValues } from './domain-values';
import { hash53 } from '../../text-hash';
import { HeldShape, ShapeStore } from './question-shape-store';
import { literalColumns, phraseKey, programLiterals, ValueVocabulary, valuePhrase, VALUE_PLACEHOLDER } from './value-masking';

/**
 * Whether a search re-ranks when its caller does not say (SearchOptions.rerank unset: the CLI, a
 * hand-started MCP server, the bench stream, eval-retrieval): off, so their figures stay comparable
 * with the grids, which were measured with the fused ranking. The editor says: its setting
 * agentMemory.retrieval.rerank is on by default (settings.ts), and it passes `--rerank` to the MCP
 * server it defines. At 100k synthetic records the p50 is the fused search's (`bench:retrieval --sizes
 * 100000 --keywords worker`, 27 Nov at load 1.0: 1.69 ms against 1.68 ms), its p95 is not (13.7 ms
 * against 4.2 ms: the per-side pass over programs with many copies). `rerank: true` / `--rerank` opt in.
 */
export const DEFAULT_RERANK = false;
/**
 * Whether the re-ranking applies to a memory's searches (issue 35): only when the search knows the data the
 * programs query, the values of that database by column (DomainValues: `--values-from`, the editor agent's
 * database). Its three parts are built for programs over a database (slot counts and value columns come from
 * the data's values and the programs' literal-to-column comparisons, links from programs named the way the
 * questions name them); on general code they lowered retrieval (CoNaLa 5-fold dev hit@1 0.3684 re-ranked vs
 * 0.3993 fused; every per-query gate tried stayed below fused). Without values a re-ranked search is the fused
 * search: the same records, order and scores.
 */
export function rerankApplies(domainValues: DomainValues | null | undefined): domainValues is DomainValues {
  return domainValues !== null && domainValues !== undefined && domainValues.size > 0;
}

/** What a caller that asked for re-ranking without the data's values is told (the fused order was used). */
export const RERANK_NEEDS_VALUES = "re-ranking needs the values of the database the programs query (--values-from DB.sqlite); without them the fused order was used";

/** How many of the best candidates are re-ordered. */
export const RERANK_DEPTH = 10;
/** Added when the query and the candidate have the same number of value slots. */
export const SLOT_WEIGHT = 0.5;
/** Times the Jaccard agreement of the program parts the two questions name. */
export const LINK_WEIGHT = 0.5;
/** Times the share of the query's known values whose column the candidate's program compares a literal with. */
export const COLUMN_WEIGHT = 0.5;
/** Shortest shared prefix that links a question word to a longer identifier word. */
export const LINK_PREFIX = 5;

/** The parts of the re-ranking that apply (ablation). */
export interface RerankParts {
  slots: boolean;
  links: boolean;
  columns: boolean;
}

export const RERANK_PART_NAMES = ['slots', 'links', 'columns'] as const;

export const ALL_RERANK_PARTS: RerankParts = { slots: true, links: true, columns: true };

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
  /** Value phrases its program compares with a named thing, with that name (counted into the value columns). */
  columns: readonly (readonly [string, string])[];
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

/** The shape of one record (its question masked with its own program's literals only). */
export function recordShape(question: string, code: string): RecordShape {
  const literals = programLiterals(code);
  // valuePhrases(code), from the literals already read.
  const phrases = literals.flatMap((literal) => valuePhrase(literal) ?? []);
  const tokens = tokensOf(new ValueVocabulary().maskWith(question, ValueVocabulary.of(phrases)).text);
  const terms = identifierWords(code, literals);
  return { slots: slotCount(tokens), terms, own: linked(tokens, terms), phrases, words: [...new Set(tokens)], columns: literalColumns(code, phrases) };
}

/** Share of the query's values (each with the columns it may belong to) whose column `held` has (0 without values). */
function coverage(values: readonly (readonly string[])[], held: ReadonlySet<string>): number {
  if (values.length === 0) return 0;
  let n = 0;
  for (const columns of values) if (columns.some((c) => held.has(c))) n += 1;
  return n / values.length;
}

/**
 * The memory-side state of the re-ranking: the storage ({@link ShapeStore},
 * question-shape-store.ts: each record's shape by key (rid), the value
 * vocabulary of the stored programs, the words stored questions use outside
 * values and the columns each value is compared with, counted per record) and
 * the scoring over it. 100k records keep about 58 MB (heap and typed arrays;
 * 77 MB as objects) before the value columns and the pooling of equal shapes.
 */
export class QuestionShapes extends ShapeStore {
  private domain: DomainValues | null = null;

  /** The values of the data the agent works on, by column (null: the memory's programs only). */
  setDomainValues(values: DomainValues | null): void {
    this.domain = values;
  }

  /**
   * Adds a record, or replaces the one held under `key` (its text changed). `language`: its program's
   * language, part of its program identity (see {@link programId}).
   */
  set(key: number, question: string, code: string, language = ''): void {
    this.setShape(key, recordShape(question, code), hash53(programKey(code, language)));
  }

  /** Tokens of the query's masked view: vocabulary values, then words no stored question uses, as value slots. */
  maskQuery(query: string): string[] {
    return this.maskedQuery(query).tokens;
  }

  /**
   * Per value of the query, the columns it may belong to: a vocabulary value, the one stored programs most
   * often compare it with (ties: the first name in order); then a value of the data no stored program
   * compares, every column holding it.
   */
  queryColumns(query: string): string[][] {
    return this.columnsOf(query, this.maskedQuery(query).values);
  }

  /** The candidates re-ordered (the best {@link RERANK_DEPTH}; the rest follow unchanged). */
  rerank<C extends RerankCandidate>(query: string, candidates: readonly C[], parts: RerankParts = ALL_RERANK_PARTS): C[] {
    if (candidates.length < 2 || (!parts.slots && !parts.links && !parts.columns)) return [...candidates];
    const head = candidates.slice(0, RERANK_DEPTH);
    const { tokens: q, values } = this.maskedQuery(query);
    const qSlots = slotCount(q);
    const qColumns = parts.columns ? this.columnsOf(query, values) : [];
    const scored = head.map((c, index) => {
      const p = this.shapeOf(c.key) ?? heldShape(recordShape(c.question, c.code));
      let value = DEFAULT_RANK_CONSTANT / (DEFAULT_RANK_CONSTANT + index);
      if (parts.slots && p.slots === qSlots) value += SLOT_WEIGHT;
      if (parts.links) value += LINK_WEIGHT * jaccard(linked(q, p.terms), p.own);
      if (parts.columns) value += COLUMN_WEIGHT * coverage(qColumns, p.columns);
      return { c, value, index };
    });
    scored.sort((a, b) => b.value - a.value || a.index - b.index);
    return [...scored.map((s) => s.c), ...candidates.slice(RERANK_DEPTH)];
  }

  private maskedQuery(query: string): { tokens: string[]; values: string[] } {
    const masked = this.vocabulary.mask(query);
    const tokens: string[] = [];
    for (const t of tokensOf(masked.text)) {
      const token = t.startsWith('<') || this.known.has(t) ? t : VALUE_PLACEHOLDER;
      // Adjacent value words are one value ("isosorbide dinitrate").
      if (token === VALUE_PLACEHOLDER && tokens[tokens.length - 1] === VALUE_PLACEHOLDER) continue;
      tokens.push(token);
    }
    return { tokens, values: masked.masked };
  }

  private columnsOf(query: string, values: readonly string[]): string[][] {
    const out: string[][] = [];
    const seen = new Set<string>();
    for (const value of values) {
      const phrase = phraseKey(value);
      const byColumn = this.phraseColumns.get(phrase);
      if (!byColumn) continue;
      let best: [string, number] | null = null;
      for (const entry of byColumn) if (!best || entry[1] > best[1] || (entry[1] === best[1] && entry[0] < best[0])) best = entry;
      if (best) out.push([best[0]]);
      seen.add(phrase);
    }
    for (const { phrase, columns } of this.domain?.columnsIn(query) ?? []) {
      if (seen.has(phrase) || (!phrase.includes(' ') && this.known.has(phrase))) continue;
      seen.add(phrase);
      out.push([...columns]);
    }
    return out;
  }
}

function heldShape(shape: RecordShape): HeldShape {
  return { slots: shape.slots, terms: shape.terms, own: shape.own, columns: new Set(shape.columns.map(([, column]) => column)) };
}
