/**
 * The storage half of the re-ranking's memory-side state ({@link QuestionShapes}
 * in rerank.ts holds the scoring): each record's shape by key (rid), the value
 * vocabulary of the stored programs, the words stored questions use outside
 * values and the columns each value is compared with, all counted per record
 * so they follow records as they come (`setShape`) and go (`delete`).
 *
 * Compact: a record's shape is one packed array of ids of interned words
 * (`[the length of each of SHAPE_LISTS, slots, phrase ids…, word ids…, term
 * ids…, own ids…, compared phrase ids…, their column ids…]`), each distinct
 * one held once in a {@link ShapePool}; its program's identity is kept by rid
 * (program-ids.ts). A query decodes the shapes of its ten candidates (array
 * lookups), so re-ranking computes nothing per candidate.
 *
 * Saved and restored whole ({@link ShapeStore.exportShapes}, {@link ShapeStore.restore}):
 * the words, the distinct shapes and each record's shape and program; the
 * memory-wide counts are recounted from the distinct shapes times the records
 * holding each (no masking, no parsing of programs: shape-persist.ts).
 */
import type { RecordShape } from './rerank';
import { ProgramIds } from './program-ids';
import { RidTable } from '../rid-table';
import { ShapePool } from './shape-pool';
import { ValueVocabulary } from './value-masking';

/** The packed lists of a record's shape, in order. */
export const SHAPE_LISTS = ['phrases', 'words', 'terms', 'own', 'columnPhrases', 'columns'] as const;
type ListName = (typeof SHAPE_LISTS)[number];
const at = (list: ListName): number => SHAPE_LISTS.indexOf(list);
/** Header of a record's packed shape: the length of each list, then the slot count. */
const SLOTS = SHAPE_LISTS.length;
export const SHAPE_HEAD = SLOTS + 1;

/** What the re-ranking reads of a candidate's shape. */
export type HeldShape = Pick<RecordShape, 'slots' | 'terms' | 'own'> & { columns: ReadonlySet<string> };

/** The whole state as flat arrays (see {@link ShapeStore.exportShapes}). */
export interface SavedShapes {
  /** Interned words: every id in `pool` indexes it. */
  words: string[];
  /** The distinct packed shapes, one after the other (each its header's length). */
  pool: Uint32Array;
  /** The keys held, ascending, with the index (in pool order) of each one's shape and its program identity. */
  rids: Float64Array;
  shapes: Uint32Array;
  programs: Float64Array;
}

/** Length of the packed shape starting at `from` (its header read), or -1 when the header does not fit. */
export function packedLength(pool: Uint32Array, from: number): number {
  if (from + SHAPE_HEAD > pool.length) return -1;
  let n = SHAPE_HEAD;
  for (let i = 0; i < SLOTS; i++) n += pool[from + i];
  return n;
}

export class ShapeStore {
  protected vocabulary = new ValueVocabulary();
  protected readonly known = new Map<string, number>();
  /** Value phrase → column it is compared with → number of records that do. */
  protected readonly phraseColumns = new Map<string, Map<string, number>>();
  private readonly pool = new ShapePool();
  /** Per record: the id of its shape in `pool`. */
  private readonly shapeIds = new RidTable();
  /** Per record: its program's identity (see {@link programId}). */
  private readonly programs = new ProgramIds();
  /** Word, phrase or identifier word → id, and back. */
  private readonly ids = new Map<string, number>();
  private readonly words: string[] = [];

  /** Number of records held. */
  get size(): number {
    return this.shapeIds.size;
  }

  /** Distinct shapes held (diagnostics). */
  get distinctShapes(): number {
    return this.pool.distinct;
  }

  has(key: number): boolean {
    return this.shapeIds.get(key) >= 0;
  }

  /**
   * Adds a record of a precomputed shape, or replaces the one held under `key`; `program`: its
   * program's identity (see {@link programId}).
   */
  setShape(key: number, shape: RecordShape, program: number): void {
    this.delete(key);
    const out = pack(shape, (w) => this.idOf(w))!;
    this.count(out, 1);
    this.shapeIds.set(key, this.pool.intern(out));
    this.programs.set(key, program);
  }

  /** Whether the record held under `key` has this shape and program (a saved copy checked against the shape computed anew). */
  holds(key: number, shape: RecordShape, program: number): boolean {
    const id = this.shapeIds.get(key);
    if (id < 0 || this.programs.get(key) !== program) return false;
    const packed = pack(shape, (w) => this.ids.get(w) ?? -1);
    const held = this.pool.view(id);
    return packed !== null && packed.length === held.length && packed.every((w, i) => w === held[i]);
  }

  /**
   * The identity of a held record's program: equal for two records whose programs `programKey` makes
   * equal (a 53-bit hash of it); undefined when the record is not held. Lets a collapsing search tell
   * copies apart without reading their rows.
   */
  programId(key: number): number | undefined {
    return this.programs.get(key);
  }

  /** Un-counts a record (nothing happens when it is not held). */
  delete(key: number): void {
    const id = this.shapeIds.get(key);
    if (id < 0) return;
    this.shapeIds.delete(key);
    this.programs.delete(key);
    this.count(this.pool.view(id), -1);
    this.pool.release(id);
  }

  clear(): void {
    this.pool.clear();
    this.shapeIds.clear();
    this.programs.clear();
    this.known.clear();
    this.phraseColumns.clear();
    this.ids.clear();
    this.words.length = 0;
    this.vocabulary = new ValueVocabulary();
  }

  /** The memory-wide counts, sorted (tests compare an incrementally kept state with a rebuilt one). */
  snapshot(): { records: number[]; phrases: [string, number][]; known: [string, number][]; columns: [string, number][] } {
    const byKey = (a: [string, number], b: [string, number]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    const columns: [string, number][] = [];
    for (const [phrase, byColumn] of this.phraseColumns) for (const [column, n] of byColumn) columns.push([`${phrase} → ${column}`, n]);
    return {
      records: [...this.shapeIds.entries()].map(([key]) => key).sort((a, b) => a - b),
      phrases: this.vocabulary.entries(),
      known: [...this.known.entries()].sort(byKey),
      columns: columns.sort(byKey),
    };
  }

  /** The whole state as flat arrays (the distinct shapes in use, each once; keys ascending). */
  exportShapes(): SavedShapes {
    const entries = [...this.shapeIds.entries()];
    const rids = new Float64Array(entries.length);
    const shapes = new Uint32Array(entries.length);
    const programs = new Float64Array(entries.length);
    const order = new Map<number, number>();
    const parts: Uint32Array[] = [];
    let words = 0;
    entries.forEach(([key, id], i) => {
      let index = order.get(id);
      if (index === undefined) {
        index = parts.length;
        order.set(id, index);
        const view = this.pool.view(id);
        parts.push(view);
        words += view.length;
      }
      rids[i] = key;
      shapes[i] = index;
      programs[i] = this.programs.get(key) ?? 0;
    });
    const pool = new Uint32Array(words);
    let from = 0;
    for (const part of parts) {
      pool.set(part, from);
      from += part.length;
    }
    return { words: [...this.words], pool, rids, shapes, programs };
  }

  /**
   * Replaces the state with a saved one; the counts are recounted from the distinct shapes times the
   * records holding each. Throws (state cleared) when the saved arrays do not fit together.
   */
  restore(saved: SavedShapes): void {
    this.clear();
    try {
      this.restoreChecked(saved);
    } catch (error) {
      this.clear();
      throw error;
    }
  }

  /** One packed list of a record's shape (ids into `words`). */
  private list(shape: Uint32Array, name: ListName): Uint32Array {
    let start = SHAPE_HEAD;
    for (let i = 0; i < at(name); i++) start += shape[i];
    return shape.subarray(start, start + shape[at(name)]);
  }

  /** The slots, identifier words, own words and compared columns of a record held (decoded from its packed shape). */
  protected shapeOf(key: number): HeldShape | undefined {
    const id = this.shapeIds.get(key);
    if (id < 0) return undefined;
    const shape = this.pool.view(id);
    const word = (w: number): string => this.words[w];
    return {
      slots: shape[SLOTS],
      terms: Array.from(this.list(shape, 'terms'), word),
      own: new Set(Array.from(this.list(shape, 'own'), word)),
      columns: new Set(Array.from(this.list(shape, 'columns'), word)),
    };
  }

  /** Adds (`times` > 0) or takes away what `times` records of this packed shape count memory-wide. */
  private count(shape: Uint32Array, times: number): void {
    for (const id of this.list(shape, 'phrases')) {
      if (times > 0) this.vocabulary.addPhrase(this.words[id], times);
      else for (let n = 0; n < -times; n++) this.vocabulary.removePhrase(this.words[id]);
    }
    for (const id of this.list(shape, 'words')) adjust(this.known, this.words[id], times);
    const columns = this.list(shape, 'columns');
    this.list(shape, 'columnPhrases').forEach((id, i) => {
      const phrase = this.words[id];
      let byColumn = this.phraseColumns.get(phrase);
      if (!byColumn) {
        if (times < 0) return;
        byColumn = new Map<string, number>();
        this.phraseColumns.set(phrase, byColumn);
      }
      adjust(byColumn, this.words[columns[i]], times);
      if (byColumn.size === 0) this.phraseColumns.delete(phrase);
    });
  }

  private restoreChecked(saved: SavedShapes): void {
    const { words, pool, rids, shapes, programs } = saved;
    if (rids.length !== shapes.length || rids.length !== programs.length) throw new Error('the saved shapes hold arrays of different lengths');
    words.forEach((w) => this.idOf(w));
    if (this.words.length !== words.length) throw new Error('the saved shapes repeat a word');
    const starts: number[] = [];
    for (let from = 0; from < pool.length; ) {
      const n = packedLength(pool, from);
      if (n < 0 || from + n > pool.length) throw new Error('a saved shape runs past the end of the pool');
      for (let i = from + SHAPE_HEAD; i < from + n; i++) if (pool[i] >= words.length) throw new Error('a saved shape names a word that is not saved');
      starts.push(from);
      from += n;
    }
    const refs = new Int32Array(starts.length);
    for (let i = 0; i < shapes.length; i++) {
      if (shapes[i] >= starts.length) throw new Error('a saved record names a shape that is not saved');
      if (i > 0 && !(rids[i] > rids[i - 1])) throw new Error('the saved records are not in ascending order');
      refs[shapes[i]]++;
    }
    const ids = starts.map((from, s) => {
      const shape = pool.subarray(from, from + packedLength(pool, from));
      if (refs[s] === 0) return -1;
      const id = this.pool.add(shape, refs[s]);
      this.pool.index(id);
      this.count(shape, refs[s]);
      return id;
    });
    for (let i = 0; i < rids.length; i++) {
      this.shapeIds.set(rids[i], ids[shapes[i]]);
      this.programs.set(rids[i], programs[i]);
    }
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

/** The packed form of a shape with the word ids `idOf` gives (null when it gives -1 for a word). */
function pack(shape: RecordShape, idOf: (word: string) => number): Uint32Array | null {
  const lists: Record<ListName, readonly string[]> = {
    phrases: shape.phrases,
    words: shape.words,
    terms: shape.terms,
    own: [...shape.own],
    columnPhrases: shape.columns.map(([phrase]) => phrase),
    columns: shape.columns.map(([, column]) => column),
  };
  const out = new Uint32Array(SHAPE_HEAD + SHAPE_LISTS.reduce((n, l) => n + lists[l].length, 0));
  SHAPE_LISTS.forEach((l, i) => (out[i] = lists[l].length));
  out[SLOTS] = shape.slots;
  let i = SHAPE_HEAD;
  for (const l of SHAPE_LISTS) {
    for (const w of lists[l]) {
      const id = idOf(w);
      if (id < 0) return null;
      out[i++] = id;
    }
  }
  return out;
}

/** Adds `times` to a count (negative: takes away), dropping the key at zero. */
function adjust(counts: Map<string, number>, key: string, times: number): void {
  const n = (counts.get(key) ?? 0) + times;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
