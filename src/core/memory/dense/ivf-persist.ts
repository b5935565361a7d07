import { z } from 'zod';
import type { Logger } from '../../logger';
import type { Database } from '../sqlite/database';
import type { RecordChangeLog } from '../sqlite/record-changes';
import type { BinaryCodeCache } from './binary-code-cache';
import { IvfCodeIndex } from './ivf-code-index';
import { listCountFor, trainCentroids } from './ivf-train';

/**
 * The inverted file's durable part, in the memory's own database (table
 * `dense_ivf`, created on first save like sqlite-vec's `vec_bits`): the
 * centroids, each record's list, and the `record_changes` seq they reflect.
 * An open then lays the codes it read out by the saved lists and only places
 * the records changed since (no training, no scan of every code against
 * every centroid). It is a cache: a missing, other-dimension or too old copy
 * (the change log no longer reaches back to it) means training anew.
 */
export const IVF_TABLE = 'dense_ivf';
/** Seed of the centroid training (same codes ⇒ same lists). */
export const IVF_SEED = 37;
/** A saved quantiser trained on fewer than a quarter of today's codes is trained anew. */
export const IVF_RETRAIN_GROWTH = 4;

const HeaderSchema = z.object({ version: z.literal(1), dimension: z.number().int().positive(), seq: z.number().int().nonnegative(), trainedSize: z.number().int().nonnegative() });

interface SavedIvf {
  dimension: number;
  seq: number;
  trainedSize: number;
  centroids: Uint8Array;
  /** Ascending rids and the list of each. */
  rids: Float64Array;
  lists: Int32Array;
}

function tableExists(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(IVF_TABLE) !== undefined;
}

/** The saved inverted file for `dimension`-bit codes, or null (none, another dimension, unreadable). */
export function loadIvf(db: Database, dimension: number): SavedIvf | null {
  if (!tableExists(db)) return null;
  const rows = new Map((db.prepare(`SELECT name, value FROM ${IVF_TABLE}`).all() as { name: string; value: Buffer }[]).map((r) => [r.name, r.value]));
  const header = rows.get('header');
  const centroids = rows.get('centroids');
  const rids = rows.get('rids');
  const lists = rows.get('lists');
  if (!header || !centroids || !rids || !lists) return null;
  const parsed = HeaderSchema.safeParse(JSON.parse(header.toString('utf8')));
  if (!parsed.success || parsed.data.dimension !== dimension || rids.length / 8 !== lists.length / 4) return null;
  return {
    ...parsed.data,
    centroids: new Uint8Array(centroids),
    rids: new Float64Array(new Uint8Array(rids).buffer),
    lists: new Int32Array(new Uint8Array(lists).buffer),
  };
}

/** Saves the inverted file (one transaction; replaces the previous copy). */
export function saveIvf(db: Database, index: IvfCodeIndex, seq: number): void {
  const { rids, lists } = index.assignment();
  const order = Array.from(rids.keys()).sort((a, b) => rids[a] - rids[b]);
  const sortedRids = Float64Array.from(order, (i) => rids[i]);
  const sortedLists = Int32Array.from(order, (i) => lists[i]);
  const header = JSON.stringify({ version: 1, dimension: index.dimension, seq, trainedSize: index.trainedSize });
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${IVF_TABLE} (name TEXT PRIMARY KEY, value BLOB NOT NULL)`);
    const put = db.prepare(`INSERT OR REPLACE INTO ${IVF_TABLE}(name, value) VALUES (?, ?)`);
    put.run('header', Buffer.from(header, 'utf8'));
    put.run('centroids', Buffer.from(index.centroids));
    put.run('rids', Buffer.from(sortedRids.buffer));
    put.run('lists', Buffer.from(sortedLists.buffer));
  })();
}

/** Index of `rid` in the ascending `rids`, or -1. */
function find(rids: Float64Array, rid: number): number {
  let lo = 0;
  let hi = rids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (rids[mid] < rid) lo = mid + 1;
    else if (rids[mid] > rid) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/**
 * The inverted file over the codes of `flat` (read at change `seq`): laid out
 * by the saved lists when a usable copy exists, else trained anew; saved
 * again when trained or when more than 1/20 of the codes had to be placed.
 */
export function openIvf(db: Database, flat: BinaryCodeCache, seq: number, log: RecordChangeLog, logger: Logger): IvfCodeIndex {
  const started = Date.now();
  const { codes, rids } = flat.entries();
  const saved = loadIvf(db, flat.dimension);
  const changes = saved && saved.trainedSize * IVF_RETRAIN_GROWTH >= rids.length && saved.seq <= seq ? log.since(saved.seq) : null;
  let index: IvfCodeIndex;
  let placed = rids.length;
  if (saved && changes && !('reload' in changes)) {
    const changed = new Set(changes.rids);
    const lists = new Int32Array(rids.length);
    placed = 0;
    for (let i = 0; i < rids.length; i++) {
      const at = changed.has(rids[i]) ? -1 : find(saved.rids, rids[i]);
      lists[i] = at < 0 ? -1 : saved.lists[at];
      if (at < 0) placed++;
    }
    index = IvfCodeIndex.build(flat.dimension, saved.centroids, codes, rids, lists, saved.trainedSize);
  } else {
    const centroids = trainCentroids(codes, rids.length, flat.blocks, listCountFor(rids.length), IVF_SEED);
    index = IvfCodeIndex.build(flat.dimension, centroids, codes, rids, null);
  }
  const trained = placed === rids.length;
  if ((trained || placed * 20 > rids.length) && !db.readonly) {
    try {
      saveIvf(db, index, seq);
    } catch (error) {
      logger.warn(`could not save the inverted file of the binary codes (${String(error)}); the next open places every code again`);
    }
  }
  logger.debug(`inverted file over ${rids.length} codes (${index.lists} lists, ${trained ? 'trained' : `${placed} placed`}) in ${Date.now() - started} ms`);
  return index;
}
