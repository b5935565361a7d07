import * as assert from 'node:assert/strict';
import { evidenceSentences, evidenceText, windowText } from '../../../src/vscode/text/evidence-text';

const base = { totalRetrievals: 6, evaluatedRetrievals: 6, meanUtility: 1 / 3, ageTasks: 40, createdTask: 3, lastRetrievedTask: 41, provenance: 'agent' };

describe('deletion evidence in sentences', () => {
  it('history: mean Φ over at least n retrievals ≤ β (the rule), with rounded numbers', () => {
    const [s] = evidenceSentences('history', { ...base, minRetrievals: 5, beta: 0.7 });
    assert.equal(s, 'mean Φ 0.33 over 6 evaluated retrieval(s) ≤ β 0.70 (judged once retrieved at least n = 5 times)');
  });

  it('periodic: a window longer than the history never starts at a negative task', () => {
    const e = { ...base, retrievalsInWindow: 0, windowStart: -167, windowEnd: 33, period: 200, alpha: 0 };
    const text = evidenceSentences('periodic', e)[0];
    assert.doesNotMatch(text, /-\d/);
    assert.equal(windowText(e), 'in all 33 task(s) so far (shorter than the 200-task period)');
    assert.equal(windowText({ windowStart: 100, windowEnd: 300, period: 200 }), 'in tasks 101–300 (the last 200)');
  });

  it('periodic+history gives both reasons, then the record history', () => {
    const text = evidenceText('periodic+history', { ...base, retrievalsInWindow: 1, windowStart: 10, windowEnd: 210, period: 200, alpha: 1, minRetrievals: 5, beta: 0.7 });
    assert.match(text, /^Retrieved 1 time in tasks 11–210 .*≤ α 1; and mean Φ 0\.33/);
    assert.match(text, /Created at task 3 \(40 tasks ago\), retrieved 6 times, last retrieved at task 41\.$/);
  });

  it('forgetting states the retention formula with its numbers', () => {
    const [s] = evidenceSentences('forgetting', { deltaTasks: 250, lambda: 2, retention: 0.0439, threshold: 0.01, timeScale: 40 });
    assert.equal(s, 'retention R = exp(−250/(40·2)) = 0.044 < threshold 0.010 (250 tasks since last use, λ = 1 + 1 retrievals)');
  });
});
