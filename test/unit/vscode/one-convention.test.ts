/**
 * One way to write a rank and a count of times on screen (issue 38): ranks are 1-based for people
 * (the first demonstration is 1, as the result document's "1." list), counts read `6×` (never `6x`).
 * The scan finds a view that writes either another way.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rankText, timesText } from '../../../src/vscode/text/result-text';

const SRC = path.resolve(__dirname, '..', '..', '..', 'src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return sources(file);
    return /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** `file:line: text` of every line matching `pattern`. */
function hits(pattern: RegExp): string[] {
  return sources(SRC).flatMap((file) =>
    fs.readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (pattern.test(line) ? [`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('one convention for ranks and counts of times', () => {
  it('rankText counts from 1; timesText writes ×', () => {
    assert.equal(rankText(0), '1');
    assert.equal(rankText(3), '4');
    assert.equal(timesText(0), '0×');
    assert.equal(timesText(12), '12×');
  });

  it('no text in src writes a count as `${n}x`', () => {
    assert.deepEqual(hits(/\$\{[^}]+\}x(?![A-Za-z0-9_])/), []);
  });

  it('no view shows a stored (0-based) rank as it is', () => {
    assert.deepEqual(hits(/\$\{[^}]*\.rank\}/).filter((h) => h.startsWith(`vscode${path.sep}`) || h.startsWith(`mcp${path.sep}`)), []);
  });
});
