/**
 * The re-ranking's question shapes saved in the memory's own database (table
 * `question_shapes`, created on first save like the inverted file's
 * `dense_ivf`): the interned words, the distinct packed shapes, each active
 * record's shape and program identity, and the `record_changes` seq they
 * reflect ({@link SavedShapes}). Computing a shape masks the record's question
 * and parses its program (~100–300 µs a record: 98 s at a million); restoring
 * a saved copy reads a few flat arrays and recounts the memory-wide counts from
 * the distinct shapes. It is a cache: ShapeIndex checks a copy against the
 * store before using it and computes every shape anew when it does not hold.
 */
import { z } from 'zod';
import type { Database } from '../sqlite/database';
import { SHAPE_LISTS, type SavedShapes } from './question-shape-store';

export const SHAPES_TABLE = 'question_shapes';
/** Version of the saved layout (bump when the packing of a shape changes). */
export const SHAPES_FORMAT = 1;

const HeaderSchema = z.object({
  format: z.literal(SHAPES_FORMAT),
  /** SHAPE_LISTS joined: a copy packed with other lists is not read. */
  lists: z.string(),
  seq: z.number().int().nonnegative(),
  records: z.number().int().nonnegative(),
  distinct: z.number().int().nonnegative(),
  words: z.number().int().nonnegative(),
  poolWords: z.number().int().nonnegative(),
});

const BLOBS = ['header', 'words', 'pool', 'rids', 'shapes', 'programs'] as const;

/** A saved copy with the seq it reflects, or why there is none to use. */
export type SavedRead = { saved: SavedShapes; seq: number } | { missing: true } | { corrupt: string };

function tableExists(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(SHAPES_TABLE) !== undefined;
}

/** A typed array over a copy of `blob` (aligned), or null when its length is no multiple of the element size. */
function typed<T>(blob: Buffer, bytes: number, make: (buffer: ArrayBuffer) => T): T | null {
  if (blob.length % bytes !== 0) return null;
  return make(new Uint8Array(blob).buffer);
}

/** Reads the saved copy (not yet checked against the store: ShapeIndex does that). */
export function loadShapes(db: Database): SavedRead {
  if (!tableExists(db)) return { missing: true };
  const rows = new Map((db.prepare(`SELECT name, value FROM ${SHAPES_TABLE}`).all() as { name: string; value: Buffer }[]).map((r) => [r.name, r.value]));
  if (BLOBS.some((name) => !rows.has(name))) return rows.size === 0 ? { missing: true } : { corrupt: 'a part of the saved copy is missing' };
  const blob = (name: (typeof BLOBS)[number]): Buffer => rows.get(name)!;
  let header: z.infer<typeof HeaderSchema>;
  let words: unknown;
  try {
    const parsed = HeaderSchema.safeParse(JSON.parse(blob('header').toString('utf8')));
    if (!parsed.success) return { corrupt: 'the header is not one this version writes' };
    header = parsed.data;
    words = JSON.parse(blob('words').toString('utf8'));
  } catch {
    return { corrupt: 'the header or the words are not JSON' };
  }
  if (header.lists !== SHAPE_LISTS.join(',')) return { corrupt: 'the shapes were packed with other lists' };
  const wordList = z.array(z.string()).safeParse(words);
  const pool = typed(blob('pool'), 4, (b) => new Uint32Array(b));
  const rids = typed(blob('rids'), 8, (b) => new Float64Array(b));
  const shapes = typed(blob('shapes'), 4, (b) => new Uint32Array(b));
  const programs = typed(blob('programs'), 8, (b) => new Float64Array(b));
  if (!wordList.success || !pool || !rids || !shapes || !programs) return { corrupt: 'a part has the wrong size' };
  if (wordList.data.length !== header.words || pool.length !== header.poolWords || rids.length !== header.records || shapes.length !== header.records || programs.length !== header.records) {
    return { corrupt: 'the parts do not match the header' };
  }
  return { saved: { words: wordList.data, pool, rids, shapes, programs }, seq: header.seq };
}

/** Saves the shapes reflecting change `seq` (one transaction; replaces the previous copy). */
export function saveShapes(db: Database, saved: SavedShapes, seq: number): void {
  let distinct = 0;
  for (let i = 0; i < saved.shapes.length; i++) distinct = Math.max(distinct, saved.shapes[i] + 1);
  const header = { format: SHAPES_FORMAT, lists: SHAPE_LISTS.join(','), seq, records: saved.rids.length, distinct, words: saved.words.length, poolWords: saved.pool.length };
  const bytes = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${SHAPES_TABLE} (name TEXT PRIMARY KEY, value BLOB NOT NULL)`);
    const put = db.prepare(`INSERT OR REPLACE INTO ${SHAPES_TABLE}(name, value) VALUES (?, ?)`);
    put.run('header', Buffer.from(JSON.stringify(header), 'utf8'));
    put.run('words', Buffer.from(JSON.stringify(saved.words), 'utf8'));
    put.run('pool', bytes(saved.pool));
    put.run('rids', bytes(saved.rids));
    put.run('shapes', bytes(saved.shapes));
    put.run('programs', bytes(saved.programs));
  })();
}

/** Removes the saved copy (tests; a copy that did not hold is replaced by the next save anyway). */
export function dropShapes(db: Database): void {
  db.exec(`DROP TABLE IF EXISTS ${SHAPES_TABLE}`);
}
