/**
 * The compact keyword index's file beside the database (`<db>.keywords.bin`):
 *
 *   "AMKWIDX\0" | u32 header length | header JSON (format, the `record_changes`
 *   seq the index reflects, counts, average field lengths) | zero padding to 8 |
 *   sections, each 8-byte aligned: rid Float64[docs], text hash Float64[docs],
 *   field lengths Uint32[docs] per field, slot offsets Int32[terms × fields + 1],
 *   posting ordinals Int32[postings], term frequencies Uint16|Uint32[postings],
 *   term text offsets Uint32[terms + 1] (UTF-16 units), term text UTF-8 |
 *   checksum of everything before it (u32: FNV-1a over its 32-bit words, which
 *   a JS loop computes at about 40× zlib's CRC-32 speed here: 0.2 s vs 8 s for
 *   a 1M-record file on a loaded machine).
 *
 * It is read in one `readFileSync` and its sections used in place as typed
 * arrays (no per-posting objects, outside the V8 heap); a file whose magic,
 * header, sizes or checksum do not match is corrupt and rebuilt. Written
 * atomically (temp file, fsync, rename) like the MiniSearch file, after a
 * compaction or a merge only: the changes in between are appended to the
 * delta file beside it (keyword-compact-delta.ts), which names this file by
 * its checksum, seq and size.
 */
import * as fs from 'node:fs';
import { z } from 'zod';
import { errorMessage } from '../../errors';
import type { Logger } from '../../logger';
import { COMPACT_FIELDS, CompactState } from './keyword-compact';
import type { BaseIdentity } from './keyword-compact-delta';
import { removeStaleTempFiles, writeFileAtomically } from './keyword-index-file';

const MAGIC = Buffer.from('AMKWIDX\0', 'latin1');
export const COMPACT_FORMAT = 1;
const FNV_OFFSET = 0x811c9dc5;

/** FNV-1a over the little-endian 32-bit words of `bytes` (its length a multiple of 4), continuing from `h`. */
export function checksum(bytes: Uint8Array, h = FNV_OFFSET): number {
  const words = bytes.byteOffset % 4 === 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2) : new Uint32Array(bytes.slice().buffer, 0, bytes.length >>> 2);
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i], 0x01000193);
  return h >>> 0;
}

const HeaderSchema = z.object({
  format: z.literal(COMPACT_FORMAT),
  seq: z.number().int().min(0),
  fields: z.array(z.string()),
  documents: z.number().int().min(0),
  terms: z.number().int().min(0),
  postings: z.number().int().min(0),
  tfBytes: z.union([z.literal(2), z.literal(4)]),
  textBytes: z.number().int().min(0),
  avg: z.array(z.number()),
});
type Header = z.infer<typeof HeaderSchema>;

export type CompactFileRead = { origin: 'loaded'; state: CompactState; seq: number; base: BaseIdentity } | { origin: 'rebuilt:missing' | 'rebuilt:corrupt' };

const align8 = (n: number): number => (n + 7) & ~7;

/** Byte sizes of the sections, in file order. */
function sectionSizes(h: Header): number[] {
  const f = h.fields.length;
  return [h.documents * 8, h.documents * 8, ...Array.from({ length: f }, () => h.documents * 4), (h.terms * f + 1) * 4, h.postings * 4, h.postings * h.tfBytes, (h.terms + 1) * 4, h.textBytes];
}

/** Writes the state atomically (a failed write removes its temp file); what a delta of it names. */
export function writeCompactFile(file: string, seq: number, s: CompactState): BaseIdentity {
  const offsets = new Uint32Array(s.terms.length + 1);
  s.terms.forEach((t, i) => (offsets[i + 1] = offsets[i] + t.length));
  const text = Buffer.from(s.terms.join(''), 'utf8');
  const header: Header = {
    format: COMPACT_FORMAT,
    seq,
    fields: [...COMPACT_FIELDS],
    documents: s.rid.length,
    terms: s.terms.length,
    postings: s.docs.length,
    tfBytes: s.tfs.BYTES_PER_ELEMENT as 2 | 4,
    textBytes: text.length,
    avg: s.avg,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const head = Buffer.alloc(align8(MAGIC.length + 4 + json.length));
  MAGIC.copy(head, 0);
  head.writeUInt32LE(json.length, MAGIC.length);
  json.copy(head, MAGIC.length + 4);
  const sections = [s.rid, s.hash, ...s.lengths, s.start, s.docs, s.tfs, offsets, text].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  let sum = 0;
  let bytes = 0;
  writeFileAtomically(file, (fd) => {
    sum = checksum(head);
    fs.writeSync(fd, head);
    for (const section of sections) {
      const whole = section.length & ~3;
      sum = checksum(section.subarray(0, whole), sum);
      fs.writeSync(fd, section);
      // The section's last bytes and its zero padding, as the reader's words see them.
      const rest = Buffer.alloc(align8(section.length) - whole);
      section.copy(rest, 0, whole);
      sum = checksum(rest, sum);
      if (align8(section.length) > section.length) fs.writeSync(fd, rest, section.length - whole);
      bytes += align8(section.length);
    }
    bytes += head.length + 4;
    const tail = Buffer.alloc(4);
    tail.writeUInt32LE(sum, 0);
    fs.writeSync(fd, tail);
  });
  return { checksum: sum, seq, bytes };
}

/** Reads the file; says why not when it cannot. */
export function readCompactFile(file: string, logger: Logger): CompactFileRead {
  removeStaleTempFiles(file, logger);
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    logger.info(`no keyword index at ${file}; building it from the database`);
    return { origin: 'rebuilt:missing' };
  }
  try {
    const read = parseCompact(buf);
    logger.debug(`loaded keyword index ${file} (${read.state.rid.length} records, change ${read.seq})`);
    return { origin: 'loaded', ...read };
  } catch (error) {
    logger.warn(`keyword index ${file} is corrupt or of another format (${errorMessage(error)}); rebuilding`);
    return { origin: 'rebuilt:corrupt' };
  }
}

function parseCompact(input: Buffer): { state: CompactState; seq: number; base: BaseIdentity } {
  if (input.length < MAGIC.length + 8 || !input.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a keyword index file');
  const body = input.length - 4;
  // Typed arrays need aligned offsets: a buffer not at an 8-byte boundary of its memory is copied once.
  const buf = input.byteOffset % 8 === 0 ? input : Buffer.from(input.buffer.slice(input.byteOffset, input.byteOffset + input.length));
  if (body % 8 !== 0 || checksum(buf.subarray(0, body)) !== buf.readUInt32LE(body)) throw new Error('checksum mismatch');
  const jsonLength = buf.readUInt32LE(MAGIC.length);
  const h = HeaderSchema.parse(JSON.parse(buf.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + jsonLength)));
  if (h.fields.join('\u0000') !== COMPACT_FIELDS.join('\u0000') || h.avg.length !== h.fields.length) throw new Error(`indexes fields ${h.fields.join(', ')}, not ${COMPACT_FIELDS.join(', ')}`);
  const sizes = sectionSizes(h);
  let at = align8(MAGIC.length + 4 + jsonLength);
  if (sizes.reduce((sum, n) => sum + align8(n), at) !== body) throw new Error('its size does not match its header');
  const view = <T>(make: (b: ArrayBuffer, offset: number, length: number) => T, bytes: number, per: number): T => {
    const v = make(buf.buffer as ArrayBuffer, buf.byteOffset + at, bytes / per);
    at += align8(bytes);
    return v;
  };
  const f = h.fields.length;
  const rid = view((b, o, n) => new Float64Array(b, o, n), sizes[0], 8);
  const hash = view((b, o, n) => new Float64Array(b, o, n), sizes[1], 8);
  const lengths = Array.from({ length: f }, (_, i) => view((b, o, n) => new Uint32Array(b, o, n), sizes[2 + i], 4));
  const start = view((b, o, n) => new Int32Array(b, o, n), sizes[2 + f], 4);
  const docs = view((b, o, n) => new Int32Array(b, o, n), sizes[3 + f], 4);
  const tfs = h.tfBytes === 2 ? view((b, o, n) => new Uint16Array(b, o, n), sizes[4 + f], 2) : view((b, o, n) => new Uint32Array(b, o, n), sizes[4 + f], 4);
  const offsets = view((b, o, n) => new Uint32Array(b, o, n), sizes[5 + f], 4);
  const text = buf.toString('utf8', at, at + h.textBytes);
  const terms = new Array<string>(h.terms);
  for (let t = 0; t < h.terms; t++) terms[t] = text.slice(offsets[t], offsets[t + 1]);
  checkPostings(h, start, docs);
  return { state: { terms, start, docs, tfs, rid, hash, lengths, avg: h.avg }, seq: h.seq, base: { checksum: buf.readUInt32LE(body), seq: h.seq, bytes: input.length } };
}

/** Offsets ascending within bounds, ordinals within the documents: a file passing its checksum yet inconsistent is rejected. */
function checkPostings(h: Header, start: Int32Array, docs: Int32Array): void {
  if (start[0] !== 0 || start[start.length - 1] !== h.postings) throw new Error('its posting offsets do not cover its postings');
  for (let s = 0; s + 1 < start.length; s++) if (start[s + 1] < start[s]) throw new Error('its posting offsets are not ascending');
  for (let j = 0; j < docs.length; j++) if (docs[j] < 0 || docs[j] >= h.documents) throw new Error('a posting names a document it does not hold');
}

/** Whether `file` is still the base `base` names (its size and checksum): another process may have written a new one. */
export function sameBase(file: string, base: BaseIdentity): boolean {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      if (fs.fstatSync(fd).size !== base.bytes) return false;
      const tail = Buffer.alloc(4);
      fs.readSync(fd, tail, 0, 4, base.bytes - 4);
      return tail.readUInt32LE(0) === base.checksum;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}
