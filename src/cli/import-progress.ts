/**
 * The progress line of `agent-memory import`, on stderr only (stdout stays the one result line):
 * on a terminal rewritten in place, otherwise one line every `everySeconds` (0: at every report).
 *
 * @example
 * const progress = new ImportProgressLine(process.stderr, 'big.jsonl', 5);
 * progress.begin();
 * progress.report({ phase: 'write', line: 1000, written: 1000, bytes: 1e6, totalBytes: 1e9, startLine: 0, startBytes: 0 });
 * progress.done();
 */
import type { ImportProgress } from '../core/memory/io/jsonl-file-import';

const NUMBER = new Intl.NumberFormat('en-US');

/** 412001 as "412,001". */
export function count(n: number): string {
  return NUMBER.format(n);
}

/** Seconds as "42 s", "3 min 05 s", "1 h 02 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** One progress line: what is done, the rate and the time left (from the bytes read, so it holds for lines of any length). */
export function progressText(file: string, p: ImportProgress, elapsedSeconds: number): string {
  const lines = p.line - p.startLine;
  const rate = elapsedSeconds > 0 ? lines / elapsedSeconds : 0;
  const bytesDone = p.bytes - p.startBytes;
  const bytesLeft = p.totalBytes - p.bytes;
  const eta = bytesDone > 0 && elapsedSeconds > 0 ? duration((bytesLeft * elapsedSeconds) / bytesDone) : '?';
  const percent = p.totalBytes > 0 ? Math.floor((100 * p.bytes) / p.totalBytes) : 100;
  const of = p.totalLines !== undefined ? ` of ${count(p.totalLines)}` : '';
  const what = p.phase === 'check' ? `checking ${file}: line ${count(p.line)}` : `importing ${file}: line ${count(p.line)}${of} read, ${count(p.written)} record(s) written`;
  return `${what} (${percent}%), ${count(Math.round(rate))} lines/s, ${eta} left`;
}

export class ImportProgressLine {
  private phaseStart = Date.now();
  private lastShown = Date.now();
  private shownOnTty = false;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly file: string,
    private readonly everySeconds: number,
  ) {}

  /** A pass begins (its rate and time left are measured from here). */
  begin(): void {
    this.phaseStart = this.lastShown = Date.now();
  }

  report(p: ImportProgress): void {
    const now = Date.now();
    const text = progressText(this.file, p, (now - this.phaseStart) / 1000);
    if (this.out.isTTY) {
      if (now - this.lastShown < 200 && this.shownOnTty) return;
      this.out.write(`\r\u001b[2K${text}`);
      this.shownOnTty = true;
    } else {
      if (now - this.lastShown < this.everySeconds * 1000) return;
      this.out.write(`${text}\n`);
    }
    this.lastShown = now;
  }

  /** Ends a line rewritten in place (before anything else is printed). */
  done(): void {
    if (this.shownOnTty) this.out.write('\n');
    this.shownOnTty = false;
  }
}
