import { z } from 'zod';
import type { Logger } from '../../logger';
import type { Database } from '../sqlite/database';
import type { RecordChangeLog } from '../sqlite/record-changes';
import type { BinaryCodeCache } from './binary-code-cache';
import { IVF_BUILD_CHUNK, IvfBuilder, IvfCodeIndex } from './ivf-code-index';
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
function findRid(rids: Float64Array, rid: number): number {
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
  const opening = new IvfOpening(db, flat, seq, log, logger);
  while (opening.step());
  return opening.finish();
}

/**
 * {@link openIvf} in steps (an open across event-loop turns: a few ms each, the training of a new
 * quantiser excepted): `step()` until false, then `finish()`; `finish()` earlier does the rest at once.
 * `flat` must not change in between.
 */
export class IvfOpening {
  private readonly started = Date.now();
  private readonly builder: IvfBuilder;
  private readonly placedAll: boolean;
  private placed: number;
  private result: IvfCodeIndex | null = null;
  private find: { saved: SavedIvf; changed: Set<number>; lists: Int32Array; next: number } | null = null;
  private readonly rids: readonly number[];

  constructor(private readonly db: Database, flat: BinaryCodeCache, private readonly seq: number, log: RecordChangeLog, private readonly logger: Logger) {
    const { codes, rids } = flat.entries();
    this.rids = rids;
    const saved = loadIvf(db, flat.dimension);
    const changes = saved && saved.trainedSize * IVF_RETRAIN_GROWTH >= rids.length && saved.seq <= seq ? log.since(saved.seq) : null;
    this.placed = rids.length;
    if (saved && changes && !('reload' in changes)) {
      const lists = new Int32Array(rids.length);
      this.find = { saved, changed: new Set(changes.rids), lists, next: 0 };
      this.placedAll = false;
      this.placed = 0;
      this.builder = IvfCodeIndex.builder(flat.dimension, saved.centroids, codes, rids, lists, saved.trainedSize);
    } else {
      const centroids = trainCentroids(codes, rids.length, flat.blocks, listCountFor(rids.length), IVF_SEED);
      this.placedAll = true;
      this.builder = IvfCodeIndex.builder(flat.dimension, centroids, codes, rids, null);
    }
  }

  /** Does the next chunk of work; false once only `finish()` is left. */
  step(): boolean {
    const find = this.find;
    if (find) {
      const end = Math.min(this.rids.length, find.next + IVF_BUILD_CHUNK);
      for (let i = find.next; i < end; i++) {
        const at = find.changed.has(this.rids[i]) ? -1 : findRid(find.saved.rids, this.rids[i]);
        find.lists[i] = at < 0 ? -1 : find.saved.lists[at];
        if (at < 0) this.placed++;
      }
      find.next = end;
      if (end === this.rids.length) this.find = null;
      return true;
    }
    return this.builder.step();
  }

  /** The index (completing the steps left), saved when trained or when many codes had to be placed. */
  finish(): IvfCodeIndex {
    if (this.result) return this.result;
    while (this.step());
    const index = this.builder.index;
    const n = this.rids.length;
    const trained = this.placedAll;
    if ((trained || this.placed * 20 > n) && !this.db.readonly) {
      try {
        saveIvf(this.db, index, this.seq);
      } catch (error) {
        this.logger.warn(`could not save the inverted file of the binary codes (${String(error)}); the next open places every code again`);
      }
    }
    this.logger.debug(`inverted file over ${n} codes (${index.lists} lists, ${trained ? 'trained' : `${this.placed} placed`}) in ${Date.now() - this.started} ms`);
    this.result = index;
    return index;
  }
}
