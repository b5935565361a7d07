/**
 * The import's progress line: its words and figures, rewritten in place on a terminal, one line per
 * interval elsewhere (0: at every report), and ended with a newline before anything else is printed.
 */
import { strict as assert } from 'node:assert';
import { count, duration, ImportProgressLine, progressText } from '../../../src/cli/import-progress';
import type { ImportProgress } from '../../../src/core/memory/io/jsonl-file-import';

const at = (line: number, total = 1_000_000): ImportProgress => ({ phase: 'write', line, written: line - 12_000, bytes: line * 100, totalBytes: total * 100, startLine: 12_000, startBytes: 1_200_000, totalLines: total });

function stream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
  const out = { text: '', isTTY, write: (s: string) => ((out.text += s), true) };
  return out as unknown as NodeJS.WriteStream & { text: string };
}

describe('agent-memory import: the progress line', () => {
  it('says lines read of the total, records written, the rate and the time left', () => {
    assert.equal(count(412_001), '412,001');
    assert.equal(duration(42.4), '42 s');
    assert.equal(duration(185), '3 min 05 s');
    assert.equal(duration(3720), '1 h 02 min');
    // 100,000 lines in 10 s from line 12,000: 10,000 lines/s, and the 88.8 MB left take 89 s at the bytes' rate.
    assert.equal(progressText('big.jsonl', at(112_000), 10), 'importing big.jsonl: line 112,000 of 1,000,000 read, 100,000 record(s) written (11%), 10,000 lines/s, 1 min 29 s left');
    assert.equal(progressText('big.jsonl', { ...at(50_000), phase: 'check', totalLines: undefined }, 0), 'checking big.jsonl: line 50,000 (5%), 0 lines/s, ? left');
  });

  it('on a terminal rewrites one line in place and ends it with a newline', () => {
    const out = stream(true);
    const progress = new ImportProgressLine(out, 'big.jsonl', 5);
    progress.begin();
    progress.report(at(20_000));
    progress.done();
    assert.match(out.text, /^\r\u001b\[2Kimporting big\.jsonl: line 20,000 of 1,000,000 read.*\n$/);
  });

  it('elsewhere prints a whole line per interval: none within the first one, each report at interval 0', () => {
    const quiet = stream(false);
    const every5 = new ImportProgressLine(quiet, 'big.jsonl', 5);
    every5.begin();
    every5.report(at(20_000));
    every5.report(at(30_000));
    every5.done();
    assert.equal(quiet.text, '', 'nothing before 5 s have passed');
    const out = stream(false);
    const each = new ImportProgressLine(out, 'big.jsonl', 0);
    each.begin();
    each.report(at(20_000));
    each.report(at(30_000));
    each.done();
    assert.deepEqual(out.text.split('\n').map((l) => l.replace(/ \(.*$/, '')), ['importing big.jsonl: line 20,000 of 1,000,000 read, 8,000 record(s) written', 'importing big.jsonl: line 30,000 of 1,000,000 read, 18,000 record(s) written', '']);
  });
});
