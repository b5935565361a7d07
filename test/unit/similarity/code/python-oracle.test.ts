import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { codeSimilarityDetail } from '../../../../src/core/similarity/code';

interface Pair {
  id: string;
  a: string;
  b: string;
  score_ab: number;
  score_ba: number;
  matched_ab: number;
  total_ab: number;
  matched_ba: number;
  total_ba: number;
}

const FIXTURE = path.join(__dirname, '..', '..', '..', 'fixtures', 'python-pairs.jsonl');

function ranks(values: number[]): number[] {
  const order = values.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    for (let k = i; k <= j; k++) out[order[k][1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

function spearman(x: number[], y: number[]): number {
  const rx = ranks(x);
  const ry = ranks(y);
  const mean = (v: number[]): number => v.reduce((s, a) => s + a, 0) / v.length;
  const mx = mean(rx);
  const my = mean(ry);
  let num = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < rx.length; i++) {
    num += (rx[i] - mx) * (ry[i] - my);
    dx += (rx[i] - mx) ** 2;
    dy += (ry[i] - my) ** 2;
  }
  return num / Math.sqrt(dx * dy);
}

describe('python similarity vs the pycode_similar oracle (600 directions)', () => {
  it('reproduces pycode_similar -m scores', () => {
    const pairs = fs.readFileSync(FIXTURE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Pair);
    assert.equal(pairs.length, 300);
    const mine: number[] = [];
    const ref: number[] = [];
    let exact = 0;
    let within = 0;
    for (const p of pairs) {
      for (const [r, c, score, matched, total] of [
        [p.a, p.b, p.score_ab, p.matched_ab, p.total_ab],
        [p.b, p.a, p.score_ba, p.matched_ba, p.total_ba],
      ] as const) {
        const d = codeSimilarityDetail(r, c, 'python', { mode: 'pycode_similar' });
        assert.equal(d.method, 'structural', `${p.id} parsed`);
        mine.push(d.score);
        ref.push(score);
        if (d.matched === matched && d.total === total) exact++;
        if (Math.abs(d.score - score) <= 0.05) within++;
      }
    }
    const rho = spearman(mine, ref);
    const share = within / mine.length;
    process.stdout.write(`      oracle: exact ${exact}/${mine.length}, within 0.05 ${(share * 100).toFixed(1)}%, Spearman ${rho.toFixed(4)}\n`);
    assert.ok(share >= 0.9, `within-0.05 share ${share}`);
    assert.ok(rho >= 0.9, `Spearman ${rho}`);
    assert.ok(exact >= 570, `exact integer matches ${exact}`); // regression guard: the port is exact today (600/600)
  });
});
