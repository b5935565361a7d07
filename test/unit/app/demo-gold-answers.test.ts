/**
 * Issue 38: the demo's accuracy means something. The demo task file holds EHRSQL questions whose
 * gold answer on the 100-patient database is empty, all null or a lone 0 (answer_status ≠
 * nonempty); a program that finds nothing "matches" them. The demo's streams and picker read
 * only questions with an answer (the paper's filter), and a question without one (a user's own
 * task file, a typed question) runs but is marked "no gold answer on this database" and never
 * counted correct, whoever approves it. Real app, real demo database, real JavaScript runner.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTaskStreamFile } from '../../../src/core/app/task-stream-file';
import type { AgentTaskResult } from '../../../src/core/app/types';
import { goldAnswerStatus } from '../../../src/core/agent/gold-answer';
import { answersAgree } from '../../../src/core/policy/answers';
import { streamSummary, verdictText } from '../../../src/vscode/text/result-text';
import { AppHandle, DATA_DIR, openApp, settingsWith } from '../agent/agent-fixture';

const DEMO_FILE = path.join(DATA_DIR, 'ehrsql-mimic3-tasks.jsonl');

/** Each demo question's answer_status and gold answer, as the file says (read independently of the code under test). */
function demoLines(): Map<string, { status: string; answer: unknown }> {
  const lines = fs.readFileSync(DEMO_FILE, 'utf8').split('\n').filter(Boolean);
  return new Map(lines.map((l) => JSON.parse(l) as { question: string; answer_status: string; answer: unknown }).map((l) => [l.question, { status: l.answer_status, answer: l.answer }]));
}

describe('gold answer status of an answer in any shape', () => {
  it('rows, lists and single values: empty, all null and a lone 0 / false are no answer', () => {
    assert.equal(goldAnswerStatus([]), 'empty');
    assert.equal(goldAnswerStatus([[]]), 'empty');
    assert.equal(goldAnswerStatus([[null], [null]]), 'all_null');
    assert.equal(goldAnswerStatus(null), 'all_null');
    assert.equal(goldAnswerStatus([[0]]), 'zero_or_false');
    assert.equal(goldAnswerStatus(0), 'zero_or_false');
    assert.equal(goldAnswerStatus([false]), 'zero_or_false');
    assert.equal(goldAnswerStatus(''), 'empty');
    assert.equal(goldAnswerStatus([[0], [1]]), 'nonempty');
    assert.equal(goldAnswerStatus([['po']]), 'nonempty');
    assert.equal(goldAnswerStatus(42), 'nonempty');
  });

  it('agrees with the answer_status of every line of the demo task file', () => {
    for (const [question, line] of demoLines()) assert.equal(goldAnswerStatus(line.answer), line.status, question);
  });
});

describe('a 20-task demo stream (editor default: strict addition, the user approves)', function () {
  this.timeout(120_000);
  let h: AppHandle;
  let results: AgentTaskResult[];
  const lines = demoLines();

  before(async () => {
    h = await openApp(settingsWith({ addition: { policy: 'strict' } }));
    await h.app.seedDemoMemory(30);
    // As the editor's Run Task Stream reads the demo file (agent-commands.ts: nonEmptyOnly for the demo file).
    const items = readTaskStreamFile(DEMO_FILE, { limit: 20, nonEmptyOnly: true });
    results = await h.app.runStream(items, { humanReview: true });
  });
  after(() => h.dispose());

  it('streams only questions with a non-empty gold answer, so its "correct" count holds none that are empty, null or a lone zero', () => {
    assert.equal(results.length, 20);
    for (const r of results) assert.equal(lines.get(r.question)?.status, 'nonempty', `streamed without an answer on the database: ${r.question}`);
    const correct = results.filter((r) => r.verdict.kind === 'correct');
    for (const r of correct) assert.equal(goldAnswerStatus(lines.get(r.question)?.answer), 'nonempty', r.question);
    const d = h.app.dashboard();
    assert.equal(d.summary.correct, correct.length);
    assert.equal(d.summary.correct + d.summary.wrong, 20, 'every task is checked against its gold answer');
    assert.equal(d.summary.noGoldAnswer, 0);
    assert.match(d.summaryText, / \(20 checked against a non-empty gold answer\) · 0 not checked/);
  });

  it('a question without an answer on the database runs, is marked so and is never counted correct, even once approved', async () => {
    const before = h.app.dashboard().summary;
    const noAnswer = [...lines].filter(([, l]) => l.status !== 'nonempty');
    // One of each status: empty, all null, a lone zero.
    const picked = ['empty', 'all_null', 'zero_or_false'].map((status) => noAnswer.find(([, l]) => l.status === status)!);
    const runs: AgentTaskResult[] = [];
    for (const [question, line] of picked) runs.push(await h.app.runTask(question, { groundTruth: line.answer, humanReview: true }));
    for (const r of runs) assert.deepEqual(r.verdict, { kind: 'unknown', source: 'no-gold' }, r.question);
    // The words the toast, the stream summary and the result document use.
    assert.equal(verdictText(runs[0].verdict), 'not checked: no gold answer on this database');
    assert.match(streamSummary(runs), /· 3 not checked \(3 without a gold answer on this database\)/);
    assert.doesNotMatch(streamSummary(runs), /correct/);
    // Without the mark, an answer that found nothing would have "matched" its empty gold answer.
    const wouldHaveMatched = runs.filter((r, i) => answersAgree(picked[i][1].answer, r.answer));
    const approvedIds = runs.map((r) => r.addition.recordId).filter((id): id is string => id !== null && h.app.get(id)?.status === 'pending');
    h.app.approve(approvedIds);
    const d = h.app.dashboard();
    assert.equal(d.summary.correct, before.correct, `no new correct (would have matched: ${wouldHaveMatched.length})`);
    assert.equal(d.summary.approved, 0, 'an approval does not turn a question without a gold answer into a checked one');
    assert.equal(d.summary.noGoldAnswer, 3);
    assert.equal(d.summary.correct + d.summary.wrong, 20);
    assert.match(d.summaryText, / \(20 checked against a non-empty gold answer\) · 3 not checked \(3 without a gold answer on this database\) · you approved \d+$/);
    for (const r of runs) assert.deepEqual(d.tasks.find((t) => t.taskIndex === r.taskIndex)?.verdict, { kind: 'unknown', source: 'no-gold' });
  });
});
