import assert from 'node:assert/strict';
import { extractCode, extractJson, findCodeBlocks, parseJsonReply } from '../../../src/core/agent/model';
import { isAgentMemoryError } from '../../../src/core/errors';
import { z } from 'zod';

const fence = '```';

function modelError(kind: string, pattern?: RegExp) {
  return (e: unknown) => isAgentMemoryError(e, 'MODEL') && e.details?.kind === kind && (!pattern || pattern.test(e.message));
}

describe('extractCode', () => {
  it('takes the python block out of prose', () => {
    const reply = `Let me query the table.\n${fence}python\nrows = sql("select count(*) from admissions")\nanswer = rows[0][0]\n${fence}\nThis sets the answer.`;
    assert.equal(extractCode(reply, 'python'), 'rows = sql("select count(*) from admissions")\nanswer = rows[0][0]');
  });

  it('prefers the largest block of the language over a smaller usage example (either order)', () => {
    const program = 'def count(t):\n    return len(sql(f"select * from {t}"))\n\nanswer = count("patients")';
    const usage = 'print(answer)';
    const a = `${fence}python\n${program}\n${fence}\nThen:\n${fence}python\n${usage}\n${fence}`;
    const b = `${fence}py\n${usage}\n${fence}\nFull code:\n${fence}py\n${program}\n${fence}`;
    assert.equal(extractCode(a, 'python'), program);
    assert.equal(extractCode(b, 'python'), program);
  });

  it('breaks size ties in favour of the later block (the corrected one)', () => {
    const reply = `Wrong:\n${fence}js\nanswer = 1;\n${fence}\nFixed:\n${fence}js\nanswer = 2;\n${fence}`;
    assert.equal(extractCode(reply, 'javascript'), 'answer = 2;');
  });

  it('ignores blocks tagged with another language and uses untagged ones as a fallback', () => {
    const reply = `${fence}sql\nSELECT count(*) FROM patients WHERE gender = 'F' AND dob < '2100-01-01'\n${fence}\n${fence}\nanswer = 3\n${fence}`;
    assert.equal(extractCode(reply, 'python'), 'answer = 3');
    assert.throws(() => extractCode(`${fence}sql\nselect 1\n${fence}`, 'python'), modelError('no-code', /sql.*none in python/));
  });

  it('picks the requested language when several are present', () => {
    const reply = `${fence}python\nanswer = len(x)\n${fence}\n${fence}javascript\nanswer = x.length;\n${fence}`;
    assert.equal(extractCode(reply, 'javascript'), 'answer = x.length;');
    assert.equal(extractCode(reply, 'python'), 'answer = len(x)');
  });

  it('accepts a reply that is bare code, and rejects bare prose', () => {
    assert.equal(extractCode('answer = 7\n', 'python'), 'answer = 7');
    assert.equal(extractCode('const a = [1, 2];\nanswer = a.length;', 'javascript'), 'const a = [1, 2];\nanswer = a.length;');
    assert.throws(() => extractCode('I am sorry, I cannot answer that question.', 'python'), modelError('syntax'));
    assert.throws(() => extractCode('I am sorry, I cannot answer that question.', 'javascript'), modelError('syntax'));
    assert.throws(() => extractCode('   \n ', 'python'), modelError('no-code'));
  });

  it('reads an unclosed fence to the end, and rejects it when the cut leaves broken code', () => {
    assert.equal(extractCode(`${fence}python\nanswer = 1\n`, 'python'), 'answer = 1');
    assert.throws(() => extractCode(`${fence}python\nanswer = compute(\n    "a",`, 'python'), modelError('syntax', /line 2/));
  });

  it('reports the position of a JavaScript syntax error', () => {
    assert.throws(
      () => extractCode(`${fence}js\nconst a = 1;\nconst = 2;\n${fence}`, 'javascript'),
      modelError('syntax', /line 2, column 7/),
    );
  });

  it('handles tildes, indented fences and longer fences holding backticks', () => {
    assert.equal(extractCode('~~~python\nanswer = 1\n~~~', 'python'), 'answer = 1');
    assert.equal(extractCode(`1. Run:\n   ${fence}python\n   answer = 2\n   ${fence}`, 'python'), 'answer = 2');
    const inner = `s = """\n${fence}\n"""\nanswer = s`;
    assert.equal(extractCode(`\`\`\`\`python\n${inner}\n\`\`\`\``, 'python'), inner);
  });

  it('drops <think> sections of reasoning models', () => {
    const reply = `<think>maybe\n${fence}python\nanswer = wrong_but_much_longer_draft_of_the_program()\n${fence}\n</think>\n${fence}python\nanswer = 1\n${fence}`;
    assert.equal(extractCode(reply, 'python'), 'answer = 1');
  });

  it('can skip validation', () => {
    assert.equal(extractCode(`${fence}python\nnot python at all ((\n${fence}`, 'python', { validate: false }), 'not python at all ((');
  });

  it('findCodeBlocks reports tags and closure', () => {
    const blocks = findCodeBlocks(`${fence}Python\na\n${fence}\n${fence}\nb`);
    assert.deepEqual(blocks, [
      { tag: 'python', code: 'a', closed: true },
      { tag: '', code: 'b', closed: false },
    ]);
  });
});

describe('extractJson / parseJsonReply', () => {
  it('reads a json fence, bare JSON, and JSON embedded in prose', () => {
    assert.deepEqual(extractJson(`Here:\n${fence}json\n{"a": [1, 2]}\n${fence}`), { a: [1, 2] });
    assert.deepEqual(extractJson(' {"a": 1} '), { a: 1 });
    assert.deepEqual(extractJson('The update is {"lessons": ["use {braces} \\" carefully"]} as requested.'), { lessons: ['use {braces} " carefully'] });
  });

  it('throws a typed error when there is no JSON', () => {
    assert.throws(() => extractJson('no json {here'), modelError('no-json'));
  });

  it('validates with zod and names the field', () => {
    const schema = z.object({ verdict: z.boolean() });
    assert.deepEqual(parseJsonReply('{"verdict": true}', schema, 'judge'), { verdict: true });
    assert.throws(() => parseJsonReply('{"verdict": "yes"}', schema, 'judge'), modelError('invalid-json', /judge JSON is invalid — verdict/));
  });
});
