/**
 * How a record becomes a keyword document: its fields (question words,
 * stemmed code identifier words), the tokenisers, MiniSearch's options (BM25
 * parameters, field boosts, exact OR matching) and the matching options of
 * the scorer, stated once for the index, its file and its scorer.
 */
import MiniSearch from 'minisearch';
import { stem, tokenizeForKeywords } from '../text-processing';

/** BM25 parameters (MiniSearch's defaults, stated once here). */
export const KEYWORD_BM25 = { k: 1.2, b: 0.7, d: 0.5 };
/** Field weights of a keyword query: a word found in a record's code counts as much as one in its question (as in team spaces). */
export const KEYWORD_FIELD_BOOST: Record<string, number> = { question: 1, code: 1 };

export interface Doc {
  id: number;
  question: string;
  code: string;
}

/** Identifier words of code (snake_case and camelCase split, stemmed like question words). */
export function codeTerms(code: string): string[] {
  const out = new Set<string>();
  for (const ident of code.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    for (const part of ident.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split('_')) {
      if (part.length >= 2 && !/^\d/.test(part)) out.add(stem(part));
    }
  }
  return [...out];
}

export function tokenize(text: string, field?: string): string[] {
  return field === 'code' ? codeTerms(text) : tokenizeForKeywords(text);
}

const identity = (term: string): string => term;
export const splitTerms = (text: string): string[] => text.split(' ');

/** Key prefixes of the per-field document frequencies, in MINISEARCH_OPTIONS.fields order. */
export const FIELD_PREFIXES = ['q:', 'c:'] as const;

/** MiniSearch's public options: our tokenizer, no further term processing, BM25 and field boosts, exact OR matching. */
export const MINISEARCH_OPTIONS = {
  fields: ['question', 'code'],
  idField: 'id',
  storeFields: [],
  // Discarded documents are vacuumed in one synchronous pass (KeywordIndex.vacuum), never by MiniSearch's timer-driven
  // batches: MiniSearch 7.1's background vacuum crashes ("Cannot read properties of undefined (reading 'keys')" in
  // TreeIterator.dive) when documents are added or discarded between its batches (test/unit/retrieval/keyword-vacuum.test.ts).
  autoVacuum: false as const,
  tokenize,
  processTerm: identity,
  searchOptions: { boost: KEYWORD_FIELD_BOOST, bm25: KEYWORD_BM25, prefix: false, fuzzy: false, combineWith: 'OR' as const },
};

/** How queries are scored (KeywordScorer): as MiniSearch's options say; code terms occur once per document (codeTerms is a set). */
export const SCORER_OPTIONS = {
  fields: MINISEARCH_OPTIONS.fields,
  boost: KEYWORD_FIELD_BOOST,
  bm25: KEYWORD_BM25,
  maxTermFrequency: { question: Infinity, code: 1 },
  // The index's terms are already processed (processTerm is the identity): its postings can be read directly.
  readPostings: true,
};

export function newMiniSearch(): MiniSearch<Doc> {
  return new MiniSearch<Doc>(MINISEARCH_OPTIONS);
}
