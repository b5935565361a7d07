import { HalfVectorCache } from './half-vector-cache';
import { Int8VectorCache } from './int8-vector-cache';
import { VECTOR_COPY_FORMS, type VectorCopies, type VectorCopyForm } from './vector-copies';

/** How the form of the vector copies is chosen: 'auto' (the default) or one form for every memory size. */
export const VECTOR_COPY_CHOICES = ['auto', ...VECTOR_COPY_FORMS] as const;
export type VectorCopyChoice = (typeof VECTOR_COPY_CHOICES)[number];

/**
 * New, empty copies for `records` active records of `dimension` dimensions within `maxBytes`
 * (none: no cap). 'auto': float16 (tighter bounds, fewer exact reads) when the cap holds every
 * record's, else int8 (half the bytes: 100k records at 384 dimensions in the default budget's
 * 40 MB, where float16 would hold half of them). A memory that later outgrows its float16
 * copies has them replaced by int8 copies (DenseIndex).
 *
 * @example
 * copiesFor('auto', 384, 40e6, 10_000).form;  // 'float16'
 * copiesFor('auto', 384, 40e6, 100_000).form; // 'int8'
 */
export function copiesFor(choice: VectorCopyChoice, dimension: number, maxBytes: number | undefined, records: number): VectorCopies {
  const halves = new HalfVectorCache(dimension, { maxBytes });
  const form: VectorCopyForm = choice !== 'auto' ? choice : halves.capacity >= records ? 'float16' : 'int8';
  return form === 'float16' ? halves : new Int8VectorCache(dimension, { maxBytes });
}
