import assert from 'node:assert/strict';
import { ModelClient } from '../../../src/core/agent/model';
import { isAgentMemoryError } from '../../../src/core/errors';
import { judgeTask, parseJudgeReply } from '../../../src/core/policy/llm-judge';
import { startFakeOpenAI, type FakeOpenAI } from '../../support/fake-openai-server';

const TASK = {
  question: 'How many patients were admitted in 2104?',
  code: 'answer = sql("select count(distinct subject_id) from admissions where strftime(\'%Y\', admittime) = \'2104\'")[0][0]',
  outcome: 'success',
  answer: 17,
  outputExcerpt: 'ok',
};

describe('LLM judge (coarse utility)', () => {
  let fake: FakeOpenAI;
  afterEach(async () => {
    await fake?.close();
  });

  for (const [reply, verdict] of [
    ['Yes\nThe count query matches the question.', true],
    ['**Yes**\nlooks right', true],
    ['no.', false],
    ['  \nNO!\nThe year filter is wrong.', false],
    ['"Yes"', true],
    ['# No', false],
    ['Answer: yes', true],
    ['**Verdict:** No', false],
    ['<think>hmm, maybe not</think>\nYes', true],
  ] as const) {
    it(`reads ${JSON.stringify(reply)} as ${verdict ? 'yes' : 'no'}`, () => {
      assert.equal(parseJudgeReply(reply)?.verdict, verdict);
    });
  }

  for (const reply of ['Yes, the code is right.', 'Maybe', 'The answer is yes', '', 'Yesterday', 'No problem here']) {
    it(`refuses ${JSON.stringify(reply)}`, () => {
      assert.equal(parseJudgeReply(reply), undefined);
    });
  }

  it('returns verdict, utility, reason and raw, and shows the task in the prompt', async () => {
    fake = await startFakeOpenAI([{ reply: '**Yes**\nThe query counts distinct admitted patients in 2104.' }]);
    const model = new ModelClient({ baseURL: fake.baseURL, model: 'judge' });
    const result = await judgeTask(model, TASK);
    assert.equal(result.verdict, true);
    assert.equal(result.utility, 1);
    assert.equal(result.reason, 'The query counts distinct admitted patients in 2104.');
    assert.equal(result.raw, '**Yes**\nThe query counts distinct admitted patients in 2104.');
    assert.equal(result.calls, 1);
    const body = fake.requests[0].body;
    assert.equal(body.temperature, 0);
    assert.equal(body.messages[0].role, 'system');
    const prompt: string = body.messages[1].content;
    assert.ok(prompt.includes(TASK.question));
    assert.ok(prompt.includes(TASK.code));
    assert.ok(prompt.includes('Execution outcome: success'));
    assert.ok(prompt.includes('Answer set by the code: 17'));
  });

  it('maps No to utility 0', async () => {
    fake = await startFakeOpenAI([{ reply: 'No\nIt counts admissions, not patients.' }]);
    const result = await judgeTask(new ModelClient({ baseURL: fake.baseURL, model: 'judge' }), { ...TASK, outcome: 'error', answer: null });
    assert.equal(result.verdict, false);
    assert.equal(result.utility, 0);
  });

  it('re-asks once when the first line is not yes/no', async () => {
    fake = await startFakeOpenAI([{ reply: 'The code looks mostly fine to me.' }, { reply: 'Yes\nfine' }]);
    const result = await judgeTask(new ModelClient({ baseURL: fake.baseURL, model: 'judge' }), TASK);
    assert.equal(result.verdict, true);
    assert.equal(result.calls, 2);
    assert.equal(fake.requests.length, 2);
    const second = fake.requests[1].body.messages;
    assert.equal(second.length, 4);
    assert.deepEqual(second[2], { role: 'assistant', content: 'The code looks mostly fine to me.' });
    assert.match(second[3].content, /FIRST LINE must be exactly "Yes" or "No"/);
  });

  it('throws a typed error after a second unreadable reply', async () => {
    fake = await startFakeOpenAI([{ reply: 'Probably.' }, { reply: 'I think so' }, { reply: 'Yes' }]);
    await assert.rejects(
      judgeTask(new ModelClient({ baseURL: fake.baseURL, model: 'judge' }), TASK),
      (e: unknown) => isAgentMemoryError(e, 'MODEL') && e.details?.kind === 'invalid-verdict' && /I think so/.test(e.message),
    );
    assert.equal(fake.requests.length, 2);
  });

  it('passes model errors through (unreachable judge is not a silent verdict)', async () => {
    fake = await startFakeOpenAI([{ status: 401 }]);
    await assert.rejects(judgeTask(new ModelClient({ baseURL: fake.baseURL, model: 'judge' }), TASK), (e: unknown) => isAgentMemoryError(e, 'MODEL') && e.details?.kind === 'auth');
  });

  it('clips a huge output excerpt', async () => {
    fake = await startFakeOpenAI([{ reply: 'No' }]);
    await judgeTask(new ModelClient({ baseURL: fake.baseURL, model: 'judge' }), { ...TASK, outputExcerpt: 'x'.repeat(50_000) });
    const prompt: string = fake.requests[0].body.messages[1].content;
    assert.ok(prompt.length < 5_000, `prompt has ${prompt.length} chars`);
    assert.match(prompt, /48000 more characters/);
  });
});
