/**
 * Relevance: a score in [0, 1] with the same meaning in every memory, and the
 * floor below which a search answers "no record is close to this task"
 * (issue 35, abstention).
 *
 * The fused score (reciprocal ranks) and the cosine cannot say this: they rank
 * within one query. Measured on EHRSQL and CoNaLa (fitted built-in embedder;
 * top-1 hit of 250–1,198 queries per case), the top hit's cosine of questions
 * from the other domain (EHR questions against the CoNaLa memory: median 0.60;
 * CoNaLa questions against the EHR memory: median 0.72) lies inside the range
 * of questions of the memory's own domain (5th percentile 0.72 EHRSQL, 0.46
 * CoNaLa), and so does its gap to the cosines of the memory's other records
 * (z-score: cross-domain 5th percentile 2.2–3.6, in-domain 2.2–3.8). What does
 * separate them is lexical: a question from elsewhere is made of words the
 * memory does not know, and shares few of them with the record returned.
 *
 * relevance = √(known × shared), both shares of the query's content words
 * (stemmed words, function words left out, as the keyword index stems them):
 * - known: the share the memory holds at all (in any active record's question
 *   or code identifiers: the keyword index's document frequencies), each word
 *   weighted by its IDF in the memory ({@link termWeight}; a word the memory
 *   never saw weighs most), so a task that shares only everyday words with
 *   the memory ("list", "value", "number", "date") is not known by them;
 * - shared: the share the record itself holds (its question words and its
 *   code's identifier words, snake_case and camelCase split), unweighted.
 * 1 = every word of the task is in the record; 0 = none. Its meaning does not
 * depend on the memory's size, embedder or the query's length.
 *
 * {@link DEFAULT_MIN_RELEVANCE} (0.4) was chosen on dev cases that hold no shared CoNaLa query
 * (`scripts/relevance-floor-sweep.ts`: EHRSQL test → valid; CoNaLa 5-fold split of its memory; EHR test
 * questions → the CoNaLa memory; the CoNaLa memory's questions → the EHR valid memory; share of queries
 * answered, k = 4). At 0.4: 95.7 % / 96.5 % answered in domain, 2.8 % / 4.1 % across domains (the
 * unweighted known share answered 6.4 % of CoNaLa questions against the EHR memory). What it costs:
 * EHRSQL hit@1 at the floor 0.6411 (0.6528 unweighted, 0.6594 without a floor): questions made mostly of
 * values the memory never saw (drug, diagnosis and procedure names) look like questions from elsewhere.
 * With the values of the data the agent works on (DomainValues, `--values-from`; the editor's agent
 * database), a query's words inside one of those values that the memory never saw are left out of the
 * known share (neither known nor unknown), and each value phrase counts once in the shared share, as one
 * value: held when the record holds its words, or when the record's question has a value slot (its
 * program's literals masked, value-masking.ts `recordSlots`) and its program compares a literal with a
 * column holding the phrase (by column name: `prescriptions.drug` ↔ `t1.drug`). A record that asks the
 * same thing about another drug or procedure then shares the query's value; a coding question that happens
 * to hold a database value ("insert 77 to index 2": `index` is a chart label) does not get in, its other
 * words being unknown; a value of one word alone gets a slot only when the memory knows the word.
 * EHRSQL test → valid at 0.4 then answers 99.1 % with hit@1 0.6619 (0.6594 without a floor; 0.6561 with
 * the values left out of the known share only), re-ranked 0.7504 (0.7513 unfloored, 0.7421 before);
 * held-back valid → test 99.1 % / 0.6776 (0.6789 unfloored, 0.6763 before); the CoNaLa memory's questions
 * against the EHR memory with those values 4.2 % (4.1 % before; 4.5 % with one-word values given slots
 * too). Measured and dropped: counting unseen value words as known (4.5 %), leaving them out of the shared
 * share word by word (4.7 %), quoted words as values (4.7 %), and a template-coverage score (the share of
 * a stored question's words outside its values that the query repeats, with at least N of them; max with
 * this score): it moves one EHRSQL test question and nothing on the held-back or CoNaLa dev cases at
 * N ≥ 4, and at N = 3 / 2 lets 3.2 % / 7.8 % of EHR questions into the CoNaLa memory.
 * Without document frequencies (team spaces) the known share is unweighted, as before. A query with no
 * content word (`%_%`) has relevance 0.
 *
 * @example
 * ```ts
 * const terms = queryContentTerms('fix the off-by-one in paginate()');  // ['fix', 'off', 'paginat']
 * const known = terms.map((t) => df(t) > 0);
 * relevanceOf(terms, known, recordTerms(question, code));              // 0..1
 * ```
 */
import { BoundedMap } from '../../bounded-map';
import { codeTerms } from '../keyword/keyword-documents';
import { FUNCTION_WORDS, KEYWORD_STOP_WORDS, lexTokens, stem } from '../text-processing';
import { columnName, recordSlots, type RecordSlots } from './value-masking';

/** Default floor of memory_search (MCP / chat tools) and eval-retrieval: hits below it are not returned. */
export const DEFAULT_MIN_RELEVANCE = 0.4;

/** What a search with a floor answers when nothing passes it. */
export const NOTHING_RELEVANT = 'no record is close to this task';

/** The query's content words as index terms: stemmed, distinct, function words, the index's stop words and one-letter words left out. */
export function queryContentTerms(text: string): string[] {
  const out = new Set<string>();
  for (const t of lexTokens(text)) {
    if (t.kind !== 'word' || t.text.length < 2 || FUNCTION_WORDS.has(t.text)) continue;
    const term = stem(t.text);
    // The keyword index never holds its stop words ("show", "tell", "please") as question terms.
    if (!KEYWORD_STOP_WORDS.has(term)) out.add(term);
  }
  return [...out];
}

/** The terms a record holds: its question's stemmed words and its code's identifier words (as the keyword index holds them). */
export function recordTerms(question: string, code: string): Set<string> {
  const out = new Set<string>(codeTerms(code));
  for (const t of lexTokens(question)) if (t.kind === 'word') out.add(stem(t.text));
  return out;
}

/**
 * Weight of a query word in the known share: its smoothed IDF in a memory of `records` active records,
 * ln((records + 1) / (df + 1)) + 1 (a word held by every record: 1; one never seen: the most).
 */
export function termWeight(df: number, records: number): number {
  const n = Math.max(0, records);
  return Math.log((n + 1) / (Math.min(Math.max(0, df), n) + 1)) + 1;
}

/** A value phrase of the data found in a query ({@link ValueTerms}): its key, its content terms (among the query's) and the columns (`table.column`) holding it. */
export interface QueryValue {
  /** Lower-case words joined by single spaces (value-masking.ts `phraseKey`). */
  phrase: string;
  terms: readonly string[];
  columns: readonly string[];
}

/** The query's value phrases, and the record's value slots (read only when a phrase is not in the record word for word). */
export interface ValueMatch {
  phrases: readonly QueryValue[];
  slots?: () => RecordSlots;
}

/**
 * √(known × shared) for one record (see the module comment): `known[i]` says whether the memory holds
 * `terms[i]`, `weights[i]` its weight in the known share (default: 1 each, {@link termWeight} in a memory).
 * `values`: the query's value phrases of the caller's data (a drug, a diagnosis name). A word of one the
 * memory does not know is left out of the known share (neither known nor unknown), so a question made
 * mostly of values the memory never saw is judged by its other words; a value word the memory knows counts
 * as known, as any word. In the shared share each phrase counts once, as one value: held when the record
 * holds every word of it, or when the record's question has a value slot left (`values.slots`) and its
 * program compares a literal with a column holding the phrase (by column name): the record asks the same
 * kind of thing about another value. A one-word phrase gets a slot only when the memory knows the word. Without `values` every word counts as itself. When every word is an
 * unseen value the known share is 1. 0 for a query without content words; never NaN or negative.
 */
export function relevanceOf(terms: readonly string[], known: readonly boolean[], record: ReadonlySet<string>, weights?: readonly number[], values?: ValueMatch): number {
  return relevanceParts(terms, known, record, weights, values).relevance;
}

/** The two shares of a relevance and the relevance itself (√(known × shared)); what the floor sweep lists for a cut hit. */
export interface RelevanceParts {
  /** The (weighted) share of the query's content words the memory holds, unseen values of the data left out. */
  known: number;
  /** The share of the query's units (words outside values, each value phrase once) the record holds. */
  shared: number;
  relevance: number;
}

/** {@link relevanceOf} with its two shares. */
export function relevanceParts(terms: readonly string[], known: readonly boolean[], record: ReadonlySet<string>, weights?: readonly number[], values?: ValueMatch): RelevanceParts {
  if (terms.length === 0) return { known: 0, shared: 0, relevance: 0 };
  const inValue = new Set<string>();
  for (const phrase of values?.phrases ?? []) for (const t of phrase.terms) inValue.add(t);
  let held = 0;
  let total = 0;
  let shared = 0;
  let units = 0;
  terms.forEach((t, i) => {
    const value = inValue.has(t);
    // A value of the data the memory never saw: neither known nor unknown.
    if (!value || known[i]) {
      const w = weights?.[i] ?? 1;
      total += w;
      if (known[i]) held += w;
    }
    if (value) return;
    units += 1;
    if (record.has(t)) shared += 1;
  });
  let slots: RecordSlots | undefined;
  let free = 0;
  for (const phrase of values?.phrases ?? []) {
    if (phrase.terms.length === 0) continue;
    units += 1;
    if (phrase.terms.every((t) => record.has(t))) {
      shared += 1;
      continue;
    }
    if (!values?.slots) continue;
    if (!slots) {
      slots = values.slots();
      free = slots.slots;
    }
    // One word alone ("position", "index": chart labels and everyday words) is a value only when the memory knows it.
    const single = !phrase.phrase.includes(' ') && !known[terms.indexOf(phrase.terms[0])];
    if (free > 0 && !single && phrase.columns.some((c) => slots!.columns.has(columnName(c)))) {
      shared += 1;
      free -= 1;
    }
  }
  // Every word an unseen value of the data: nothing says the task is from elsewhere.
  const knownShare = total > 0 ? held / total : 1;
  const sharedShare = units > 0 ? shared / units : 0;
  const value = Math.sqrt(knownShare * sharedShare);
  return { known: knownShare, shared: sharedShare, relevance: Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0 };
}

/** How many active records hold each term (null: the memory cannot say now); the keyword index answers it. */
export type TermFrequencies = (terms: readonly string[]) => readonly number[] | null;

/**
 * The value phrases of the data the agent works on that the query holds (DomainValues.valueTerms), each once
 * with its content terms and columns; see {@link relevanceOf}'s `values`.
 */
export type ValueTerms = (query: string) => readonly QueryValue[];

/**
 * The query's relevance scorer: content terms, whether the memory knows each and their weights, read once
 * per query; `records` is the memory's number of active records (the IDF's N; callers with frequencies pass it,
 * else N is the largest frequency). Without frequencies (the
 * keyword side failed; team spaces) a term counts as known when the record holds it, every term weighing 1.
 * `valueTerms`: the value phrases of the caller's data in the query (see {@link relevanceOf}). A record's
 * terms and slots are kept for the next searches ({@link recordFeatures}).
 */
export function relevanceScorer(query: string, frequencies: TermFrequencies, records?: number, valueTerms?: ValueTerms): (question: string, code: string) => number {
  const parts = relevancePartsScorer(query, frequencies, records, valueTerms);
  return (question, code) => parts(question, code).relevance;
}

/** {@link relevanceScorer} giving each record's {@link RelevanceParts}. */
export function relevancePartsScorer(query: string, frequencies: TermFrequencies, records?: number, valueTerms?: ValueTerms): (question: string, code: string) => RelevanceParts {
  const terms = queryContentTerms(query);
  const df = terms.length > 0 ? frequencies(terms) : [];
  // N is at least the largest document frequency (a count read a moment apart from the frequencies).
  const n = df ? Math.max(records ?? 0, ...df) : 0;
  const weights = df ? terms.map((_, i) => termWeight(df[i] ?? 0, n)) : undefined;
  const phrases = terms.length > 0 && valueTerms ? valueTerms(query) : [];
  return (question, code) => {
    const features = recordFeatures(question, code);
    const known = terms.map((t, i) => (df ? (df[i] ?? 0) > 0 : features.terms.has(t)));
    return relevanceParts(terms, known, features.terms, weights, phrases.length > 0 ? { phrases, slots: () => features.slots() } : undefined);
  };
}

/** Records whose features {@link recordFeatures} keeps (the oldest program goes first past it). */
export const FEATURE_MEMO_RECORDS = 2_048;

interface RecordFeatures {
  terms: ReadonlySet<string>;
  slots(): RecordSlots;
}

/**
 * Program → question → features, the records of one program weighing their number: the retriever hands back
 * the same strings, so each lookup hashes nothing new.
 */
const memo = new BoundedMap<string, Map<string, RecordFeatures>>(FEATURE_MEMO_RECORDS);

/**
 * A record's terms ({@link recordTerms}) and value slots ({@link recordSlots}, computed when first asked), kept
 * for at most {@link FEATURE_MEMO_RECORDS} records (the oldest program goes first): the top hits of one search
 * come back in the next ones, and a record's question and program never change.
 */
export function recordFeatures(question: string, code: string): RecordFeatures {
  const byQuestion = memo.get(code);
  const found = byQuestion?.get(question);
  if (found) return found;
  let slots: RecordSlots | undefined;
  const features: RecordFeatures = { terms: recordTerms(question, code), slots: () => (slots ??= recordSlots(question, code)) };
  // One program's questions alone never pass the cap either: they start over.
  const group = byQuestion && byQuestion.size < FEATURE_MEMO_RECORDS ? byQuestion : new Map<string, RecordFeatures>();
  group.set(question, features);
  memo.set(code, group, group.size);
  return features;
}

/** Whether a search answers at all: a query with no content word (`%_%`) asks for nothing a record could match. */
export function hasContentWords(query: string): boolean {
  return queryContentTerms(query).length > 0;
}

/** A relevance rounded for display (4 decimals), never negative or NaN. */
export function roundRelevance(value: number): number {
  return Number.isFinite(value) ? Math.round(Math.min(1, Math.max(0, value)) * 10_000) / 10_000 : 0;
}
