/**
 * The compact keyword index's delta file beside its base (`<db>.keywords.bin.delta`): what changed since the
 * base was written, appended at each persist instead of rewriting the base (hundreds of MB at 1M records).
 *
 *   "AMKWDLT\0" | u32 header length | header JSON (format, the base it extends: its checksum, seq and size) |
 *   zero padding to 8 | segments, each: u32 body length | u32 checksum | body
 *
 * A body is u32 JSON length | JSON (seq, the state it extends, new terms, average field lengths, counts) |
 * padding to 8 | new documents' rowids and text hashes (Float64), field lengths (Uint32 per field), the new
 * postings' slots, ordinals (Int32) and term frequencies (Uint32), the tombstoned ordinals and the slots whose
 * document frequency went down (Int32) | padding to 8. Its checksum is FNV-1a over the body's 32-bit words
 * continuing from the previous segment's checksum (the base's for the first): segments form a chain, so a
 * segment appended by another process on another state, a truncated tail (a crash during an append) or a
 * flipped byte ends the chain there. A reader replays the segments of the chain (CompactPostings.applySegment)
 * and the index catches up on the rest from `record_changes`, as after any load.
 */
import * as fs from 'node:fs';
import { z } from 'zod';
import { checksum } from './keyword-compact-file';
import { COMPACT_FIELDS } from './keyword-compact';

const MAGIC = Buffer.from('AMKWDLT\0', 'latin1');
const DELTA_FORMAT = 1;
/** The delta file of a base file. */
export const DELTA_SUFFIX = '.delta';
/** Fewest bytes of delta that make a persist merge it into a new base (with a quarter of the base's size). */
export const DELTA_MERGE_MIN_BYTES = 32 * 1024 * 1024;

/** A base file as its delta names it: the chain starts from its checksum. */
export interface BaseIdentity {
  checksum: number;
  seq: number;
  bytes: number;
}

/** What changed in a compact index since the state `from` (see CompactPostings.segment). */
export interface DeltaSegment {
  seq: number;
  from: { terms: number; documents: number; entries: number; tombstones: number };
  terms: string[];
  rid: Float64Array;
  hash: Float64Array;
  lengths: Uint32Array[];
  slot: Int32Array;
  ord: Int32Array;
  tf: Uint32Array;
  dead: Int32Array;
  dfDown: Int32Array;
  avg: number[];
}

const Count = z.number().int().min(0);
const FileHeaderSchema = z.object({ format: z.literal(DELTA_FORMAT), fields: z.array(z.string()), base: z.object({ checksum: Count, seq: Count, bytes: Count }) });
const SegmentHeaderSchema = z.object({
  seq: Count,
  from: z.object({ terms: Count, documents: Count, entries: Count, tombstones: Count }),
  terms: z.array(z.string()),
  documents: Count,
  entries: Count,
  dead: Count,
  dfDown: Count,
  avg: z.array(z.number()),
});

const align8 = (n: number): number => (n + 7) & ~7;

function fileHeader(base: BaseIdentity): Buffer {
  const json = Buffer.from(JSON.stringify({ format: DELTA_FORMAT, fields: [...COMPACT_FIELDS], base }), 'utf8');
  const head = Buffer.alloc(align8(MAGIC.length + 4 + json.length));
  MAGIC.copy(head, 0);
  head.writeUInt32LE(json.length, MAGIC.length);
  json.copy(head, MAGIC.length + 4);
  return head;
}

function encodeBody(s: DeltaSegment): Buffer {
  const header = { seq: s.seq, from: s.from, terms: s.terms, documents: s.rid.length, entries: s.slot.length, dead: s.dead.length, dfDown: s.dfDown.length, avg: s.avg };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const head = Buffer.alloc(align8(4 + json.length));
  head.writeUInt32LE(json.length, 0);
  json.copy(head, 4);
  const parts = [s.rid, s.hash, ...s.lengths, s.slot, s.ord, s.tf, s.dead, s.dfDown].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  const size = parts.reduce((n, p) => n + p.length, head.length);
  return Buffer.concat([head, ...parts, Buffer.alloc(align8(size) - size)]);
}

function decodeBody(body: Buffer): DeltaSegment {
  const jsonLength = body.readUInt32LE(0);
  const h = SegmentHeaderSchema.parse(JSON.parse(body.toString('utf8', 4, 4 + jsonLength)));
  let at = align8(4 + jsonLength);
  const take = <T>(make: (b: ArrayBuffer) => T, n: number, per: number): T => {
    if (at + n * per > body.length) throw new Error('a segment is shorter than its header says');
    // Copied: the body's offset in the file need not suit the typed array.
    const copy = new Uint8Array(n * per);
    copy.set(body.subarray(at, at + n * per));
    at += n * per;
    return make(copy.buffer);
  };
  const f64 = (n: number) => take((b) => new Float64Array(b), n, 8);
  const i32 = (n: number) => take((b) => new Int32Array(b), n, 4);
  const rid = f64(h.documents);
  const hash = f64(h.documents);
  const lengths = COMPACT_FIELDS.map(() => take((b) => new Uint32Array(b), h.documents, 4));
  const slot = i32(h.entries);
  const ord = i32(h.entries);
  const tf = take((b) => new Uint32Array(b), h.entries, 4);
  return { seq: h.seq, from: h.from, terms: h.terms, rid, hash, lengths, slot, ord, tf, dead: i32(h.dead), dfDown: i32(h.dfDown), avg: h.avg };
}

/** The delta file of `base` as read: the chain of segments, and the bytes it spans (what follows is to be cut). */
export type DeltaRead =
  | { origin: 'none' }
  | { origin: 'foreign'; reason: string }
  | { origin: 'read'; headerBytes: number; fileBytes: number; segments: { segment: DeltaSegment; end: number; chain: number }[] };

/** Reads the delta of the base `base` at `file` (the base file's path + DELTA_SUFFIX). */
export function readDelta(file: string, base: BaseIdentity): DeltaRead {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return { origin: 'none' };
  }
  if (buf.length < MAGIC.length + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return { origin: 'foreign', reason: 'not a keyword delta file' };
  let h: z.infer<typeof FileHeaderSchema>;
  try {
    const jsonLength = buf.readUInt32LE(MAGIC.length);
    h = FileHeaderSchema.parse(JSON.parse(buf.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + jsonLength)));
  } catch (error) {
    return { origin: 'foreign', reason: `its header does not parse (${String(error)})` };
  }
  if (h.fields.join('\u0000') !== COMPACT_FIELDS.join('\u0000')) return { origin: 'foreign', reason: 'it indexes other fields' };
  if (h.base.checksum !== base.checksum || h.base.seq !== base.seq || h.base.bytes !== base.bytes) return { origin: 'foreign', reason: 'it extends another base file' };
  const headerBytes = fileHeader(h.base).length;
  let at = headerBytes;
  let chain = base.checksum;
  const segments: { segment: DeltaSegment; end: number; chain: number }[] = [];
  while (at + 8 <= buf.length) {
    const length = buf.readUInt32LE(at);
    const sum = buf.readUInt32LE(at + 4);
    if (length % 8 !== 0 || at + 8 + length > buf.length) break;
    // Aligned for the checksum's 32-bit words (a Buffer from readFileSync may sit at any offset of its memory).
    const body = Buffer.from(buf.subarray(at + 8, at + 8 + length));
    if (checksum(body, chain) !== sum) break;
    let segment: DeltaSegment;
    try {
      segment = decodeBody(body);
    } catch {
      break;
    }
    chain = sum;
    at += 8 + length;
    segments.push({ segment, end: at, chain });
  }
  return { origin: 'read', headerBytes, fileBytes: buf.length, segments };
}

/**
 * Appends a segment to the delta file of `base`, whose chain so far ends at `chain` (the base's checksum
 * when `expectedBytes` is 0: the file is then created). False, writing nothing, when the file is not as
 * this process left it (`expectedBytes`): another process wrote it since, the caller writes a new base.
 * Returns the new chain end and file size.
 */
export function appendSegment(file: string, base: BaseIdentity, chain: number, expectedBytes: number, s: DeltaSegment): { chain: number; bytes: number } | null {
  let size = 0;
  try {
    size = fs.statSync(file).size;
  } catch {
    size = 0;
  }
  if (size !== expectedBytes) return null;
  const body = encodeBody(s);
  const sum = checksum(body, chain);
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32LE(body.length, 0);
  prefix.writeUInt32LE(sum, 4);
  const head = expectedBytes === 0 ? fileHeader(base) : Buffer.alloc(0);
  const fd = fs.openSync(file, expectedBytes === 0 ? 'w' : 'a');
  try {
    fs.writeSync(fd, Buffer.concat([head, prefix, body]));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { chain: sum, bytes: expectedBytes + head.length + 8 + body.length };
}
