import * as assert from 'node:assert/strict';
import type { AgentTaskResult, TaskVerdict } from '../../../src/core/app/types';
import { additionText, resultSummary, streamSummary, verdictText } from '../../../src/vscode/text/result-text';

function result(over: Partial<AgentTaskResult> & { verdict: TaskVerdict }): AgentTaskResult {
  return {
    taskIndex: 1,
    question: 'how many?',
    model: 'reuse',
    language: 'python',
    code: 'answer = 1',
    answer: [[8]],
    outcome: 'success',
    modelKind: 'reuse',
    attempts: 1,
    demonstrations: [],
    utility: null,
    addition: { added: false, recordId: null, status: null, reason: 'strict: incorrect per strict:ground-truth (wrong)' },
    deletions: [],
    inputSimilarity: null,
    outputSimilarity: null,
    durationMs: 12.3456,
    ...over,
  };
}

const gold = (ok: boolean): TaskVerdict => ({ kind: ok ? 'correct' : 'wrong', source: 'gold' });

describe('result text: ran is not correct', () => {
  it('a stream summary counts ran and correct apart', () => {
    const results = [...Array(21)].map(() => result({ verdict: gold(true) })).concat([...Array(9)].map(() => result({ verdict: gold(false) })));
    assert.equal(streamSummary(results), '30 ran · 21 correct · 9 wrong (checked against gold answers)');
  });

  it('failures are counted apart from "ran", unchecked answers are named, pending records pointed at', () => {
    const results = [
      result({ verdict: gold(true) }),
      result({ outcome: 'error', verdict: gold(false) }),
      result({ outcome: 'timeout', verdict: { kind: 'unknown', source: 'human' }, addition: { added: true, recordId: 'r', status: 'pending', reason: 'strict: stored as pending until the user approves it' } }),
    ];
    assert.equal(streamSummary(results), '3 tasks: 1 ran, 1 error, 1 timeout · 1 correct · 1 wrong (checked against gold answers) · 1 not checked (no gold answer). 1 record(s) pending: approve or reject them in the explorer');
  });

  it('the one-task summary shows the outcome, the verdict and the model', () => {
    const text = resultSummary(result({ verdict: gold(false), answer: [[8]] }));
    assert.equal(text, 'Task 1: ran · wrong (gold answer) · answer [[8]] · reuse model');
    assert.match(resultSummary(result({ verdict: { kind: 'unknown', source: 'none' }, modelKind: 'llm', model: 'gpt' })), /not checked · answer .* · LLM$/);
  });

  it('strict addition decided by the gold answer says so; a pending record asks the user', () => {
    const approved = result({ verdict: gold(true), addition: { added: true, recordId: 'r', status: 'active', reason: 'strict: correct per strict:ground-truth (match)' } });
    assert.match(additionText(approved), /approved by gold answer/);
    const pendingChecked = result({ verdict: gold(true), addition: { added: true, recordId: 'r', status: 'pending', reason: 'strict: stored as pending until the user approves it' } });
    assert.equal(additionText(pendingChecked), 'added as pending: approve or reject it');
    assert.match(streamSummary([approved]), /1 added as approved by gold answer/);
  });

  it('every verdict kind reads differently', () => {
    const kinds: TaskVerdict[] = [gold(true), gold(false), { kind: 'approved', source: 'human' }, { kind: 'rejected', source: 'human' }, { kind: 'judged-correct', source: 'judge' }, { kind: 'judged-wrong', source: 'judge' }, { kind: 'unknown', source: 'none' }];
    assert.equal(new Set(kinds.map(verdictText)).size, kinds.length);
  });
});
