/**
 * The toasts after a task stream (issue 38): a task merged into a record already stored is said
 * (not counted as a new pending record), and the proposal notice counts what stands now and
 * names the policy as the explorer's rows do.
 */
import * as assert from 'node:assert/strict';
import type { AgentTaskResult } from '../../../src/core/app/types';
import { proposalNotice } from '../../../src/vscode/text/proposal-text';
import { streamSummary } from '../../../src/vscode/text/result-text';

function result(over: Partial<AgentTaskResult> = {}): AgentTaskResult {
  return {
    taskIndex: 1,
    question: 'how many?',
    model: 'reuse',
    language: 'python',
    code: 'answer = 1',
    answer: [[8]],
    outcome: 'success',
    verdict: { kind: 'unknown', source: 'human' },
    modelKind: 'reuse',
    attempts: 1,
    demonstrations: [],
    utility: null,
    addition: { added: true, recordId: 'r', status: 'pending', reason: 'strict: stored as pending until the user approves it' },
    deletions: [],
    inputSimilarity: null,
    outputSimilarity: null,
    durationMs: 1,
    ...over,
  };
}

describe('stream toasts: merges and proposals', () => {
  it('a task merged into a stored record is said, not counted as a new pending record', () => {
    const merged = result({ addition: { added: true, recordId: 'seed', status: 'active', reason: 'strict: stored as pending until the user approves it; merged into an identical active record (×2)', merged: true } });
    const mergedIntoPending = result({ addition: { added: true, recordId: 'r', status: 'pending', reason: '…; merged into an identical pending record (×2)', merged: true } });
    const text = streamSummary([result(), mergedIntoPending, merged]);
    assert.equal(
      text,
      '3 ran · 3 not checked (no gold answer). 1 record(s) pending: approve or reject them in the explorer. 2 merged into an identical record already in memory (its count grew, no new record)',
    );
  });

  it('the proposal notice counts the proposals that stand now and names the policy as the rows do', () => {
    const proposed = [...Array(9)].map((_, i) => `p${i}`);
    const results = [
      result({ deletions: [{ rule: 'periodic-deletion', policy: 'combined', recordIds: [], proposed: proposed.slice(0, 5) }] }),
      result({ deletions: [{ rule: 'periodic-deletion', policy: 'combined', recordIds: [], proposed: proposed.slice(5) }] }),
    ];
    // Two were withdrawn by a later task of the stream: the explorer shows 7.
    const notice = proposalNotice(results, new Set(proposed.slice(2)));
    assert.deepEqual([notice?.count, notice?.withdrawn, notice?.large], [7, 2, false]);
    assert.equal(notice?.text, 'the automatic deletion (combined) proposed 7 record(s) for deletion (2 more were proposed, then withdrawn: a later task retrieved them); nothing was deleted until you confirm.');
    assert.doesNotMatch(notice?.text ?? '', /periodic-deletion/);
  });

  it('a large sweep proposed instead: the count standing now; nothing proposed: no notice', () => {
    const results = [result({ deletions: [{ rule: 'periodic-deletion', policy: 'periodic', recordIds: [], proposed: ['a', 'b', 'c'], large: true }] })];
    const notice = proposalNotice(results, new Set(['a', 'b', 'c', 'other']));
    assert.equal(notice?.text, 'the automatic deletion (periodic) would have removed 3 record(s), more than 25 % of the active memory: nothing was deleted; 3 are proposed for your review instead.');
    assert.equal(proposalNotice([result()], new Set(['a'])), undefined);
  });
});
