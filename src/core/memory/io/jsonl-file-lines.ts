import * as fs from 'node:fs';

/** One line of a file read by jsonlFileLines: its bytes (without the newline), its number and where the next line starts. */
export interface FileLine {
  bytes: Buffer;
  /** 1-based line number. */
  lineNo: number;
  /** Byte offset just past this line's newline (where the next line starts). */
  next: number;
}

/** Bytes read from the file at a time (a longer line is read whole, in several reads). */
const READ_BYTES = 4 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * The lines of `file` from byte `offset` on (a line start; `line` lines come before it), read in
 * blocks of `blockBytes` so a file of any size takes a few MB of memory. A last line without a
 * newline is included; the end of a file ending with a newline is not a line (so a file of N
 * newline-ended lines has N lines, and an empty file none).
 *
 * @example
 * for (const { bytes, lineNo, next } of jsonlFileLines('big.jsonl', 0, 0)) offsets.set(lineNo, { length: bytes.length, next });
 */
export function* jsonlFileLines(file: string, offset: number, line: number, blockBytes = READ_BYTES): Generator<FileLine> {
  const fd = fs.openSync(file, 'r');
  try {
    let pending = Buffer.alloc(0);
    let pendingStart = offset;
    let position = offset;
    let lineNo = line;
    for (;;) {
      const block = Buffer.allocUnsafe(blockBytes);
      const read = fs.readSync(fd, block, 0, blockBytes, position);
      position += read;
      const data = pending.length > 0 ? Buffer.concat([pending, block.subarray(0, read)]) : block.subarray(0, read);
      let start = 0;
      for (let end = data.indexOf(NEWLINE, start); end >= 0; end = data.indexOf(NEWLINE, start)) {
        yield { bytes: data.subarray(start, end), lineNo: ++lineNo, next: pendingStart + end + 1 };
        start = end + 1;
      }
      pendingStart += start;
      pending = Buffer.from(data.subarray(start));
      if (read === 0) {
        if (pending.length > 0) yield { bytes: pending, lineNo: ++lineNo, next: pendingStart + pending.length };
        return;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
