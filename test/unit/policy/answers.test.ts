import { strict as assert } from 'node:assert';
import { answersMatch } from '../../../src/core/policy/answers';
import { evaluateGroundTruth, evaluateHumanVerdict, evaluateTermination } from '../../../src/core/policy/utility';

describe('answersMatch (strict ground truth)', () => {
  it('ignores row order and duplicate rows (set semantics)', () => {
    assert.equal(answersMatch([['a'], ['b']], [['b'], ['a'], ['a']]), true);
    assert.equal(answersMatch([['a'], ['b']], [['a']]), false);
    assert.equal(answersMatch([['a']], [['a'], ['c']]), false);
  });
  it('compares strings case- and whitespace-insensitively', () => {
    assert.equal(answersMatch([['po']], [['  PO ']]), true);
    assert.equal(answersMatch([['iv  drip']], [['IV drip']]), true);
    assert.equal(answersMatch([['po']], [['pr']]), false);
  });
  it('compares numbers with a relative tolerance, int vs float and numeric strings', () => {
    assert.equal(answersMatch([[12.5]], [[12.5000001]]), true);
    assert.equal(answersMatch([[12.5]], [[12.51]]), false);
    assert.equal(answersMatch([[5]], [[5.0]]), true);
    assert.equal(answersMatch([[5]], [['5']]), true);
    assert.equal(answersMatch([['12.50']], [[12.5]]), true);
    assert.equal(answersMatch([[0]], [[1e-12]]), true);
    assert.equal(answersMatch([[1000]], [[1000.01]], { relativeTolerance: 1e-3 }), true);
    assert.equal(answersMatch([[1000]], [[1000.01]], { relativeTolerance: 1e-9 }), false);
  });
  it('treats a scalar as [[scalar]] and a flat list as single-column rows or one row', () => {
    assert.equal(answersMatch([['po']], 'po'), true);
    assert.equal(answersMatch([[42]], 42), true);
    assert.equal(answersMatch([['a'], ['b']], ['b', 'a']), true);
    assert.equal(answersMatch([['a', 1]], ['a', 1]), true);
    assert.equal(answersMatch([['a', 1]], [['a', 2]]), false);
  });
  it('distinguishes no answer from an empty result', () => {
    assert.equal(answersMatch([], []), true);
    assert.equal(answersMatch([], null), false);
    assert.equal(answersMatch([['x']], null), false);
    assert.equal(answersMatch(null, undefined), true);
    assert.equal(answersMatch([[null]], [[null]]), true);
    assert.equal(answersMatch([[null]], [[0]]), false);
  });
});

describe('utility evaluators', () => {
  const base = { question: 'q', code: 'answer = 1', outcome: 'success' as const };
  it('ground truth: 1 when the answer matches, 0 otherwise or when execution failed', async () => {
    assert.equal(evaluateGroundTruth({ ...base, answer: 'PO', groundTruth: [['po']] }).utility, 1);
    assert.equal(evaluateGroundTruth({ ...base, answer: 'iv', groundTruth: [['po']] }).utility, 0);
    assert.equal(evaluateGroundTruth({ ...base, outcome: 'error', answer: 'po', groundTruth: [['po']] }).utility, 0);
    const e = evaluateGroundTruth({ ...base, answer: [[3]], groundTruth: [[3.0]] });
    assert.deepEqual({ utility: e.utility, evaluator: e.evaluator }, { utility: 1, evaluator: 'strict:ground-truth' });
    assert.throws(() => evaluateGroundTruth({ ...base, answer: 1 }), /groundTruth/);
  });
  it('human verdict: approve 1, reject 0, none → not evaluated', () => {
    assert.equal(evaluateHumanVerdict('approve').utility, 1);
    assert.equal(evaluateHumanVerdict('reject').utility, 0);
    assert.equal(evaluateHumanVerdict(null).utility, null);
    assert.equal(evaluateHumanVerdict('approve').evaluator, 'strict:human');
  });
  it('termination signal: complete and answered → 1', () => {
    assert.equal(evaluateTermination({ completed: true, outcome: 'success', answer: [[1]] }).utility, 1);
    assert.equal(evaluateTermination({ completed: false, outcome: 'success', answer: [[1]] }).utility, 0);
    assert.equal(evaluateTermination({ completed: true, outcome: 'success', answer: null }).utility, 0);
    assert.equal(evaluateTermination({ completed: true, outcome: 'timeout', answer: 1 }).utility, 0);
    assert.equal(evaluateTermination({ completed: true, outcome: 'success', answer: 1 }).evaluator, 'coarse:self');
  });
  it('termination signal: an empty answer (empty string, no rows, one empty row) is not an answer', () => {
    for (const answer of ['', '  ', [], [[]]]) {
      assert.equal(evaluateTermination({ completed: true, outcome: 'success', answer }).utility, 0, JSON.stringify(answer));
    }
    assert.equal(evaluateTermination({ completed: true, outcome: 'success', answer: [[0]] }).utility, 1, 'a zero is an answer');
  });
});
