import * as assert from 'node:assert/strict';
import { buildPrompt, DebugTurn, Demonstration, PromptParts } from '../../../src/core/agent/loop/prompt-builder';
import { isAgentMemoryError } from '../../../src/core/errors';

/** 1 token per character: makes every budget exact and easy to reason about. */
const chars = (text: string): number => text.length;

/** Demonstrations of identical size (so each costs the same), given in shuffled similarity order. */
function demo(id: string, similarity: number | null): Demonstration {
  return { recordId: id, question: `question of ${id}`.padEnd(40, '.'), code: `answer = sql("select ${id}"); //`.padEnd(40, '-'), inputSimilarity: similarity };
}

function turn(i: number): DebugTurn {
  return { code: `answer = broken_${i}();`.padEnd(30, ' '), error: `ReferenceError: broken_${i} is not defined`, analysis: `analysis number ${i}: call sql() instead` };
}

function parts(overrides: Partial<PromptParts> = {}): PromptParts {
  return {
    system: 'You write programs.',
    toolboxDocs: 'TOOLBOX: sql(query) runs read-only SQL; set answer.',
    demonstrations: [],
    question: 'How many patients were admitted in 2104?',
    debugTurns: [],
    language: 'javascript',
    ...overrides,
  };
}

const DEMOS = [demo('low', 0.3), demo('best', 0.9), demo('mid', 0.5), demo('good', 0.7)];
const contentTokens = (messages: { content: string }[]) => messages.reduce((s, m) => s + chars(m.content), 0);

describe('prompt builder: token budget (SPEC §6)', () => {
  it('keeps everything under a generous budget: system, demonstrations by relevance, the question, then debug turns in order', () => {
    const p = buildPrompt(parts({ demonstrations: DEMOS, debugTurns: [turn(1), turn(2)] }), 100_000, chars);
    assert.deepEqual(p.keptDemonstrations, ['best', 'good', 'mid', 'low']);
    assert.deepEqual(p.droppedDemonstrations, []);
    assert.equal(p.droppedDebugTurns, 0);
    const roles = p.messages.map((m) => m.role);
    assert.deepEqual(roles, ['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    assert.match(p.messages[0].content, /You write programs\.[\s\S]*TOOLBOX: sql/);
    const questionAt = p.messages.findIndex((m) => m.content === `Question: ${parts().question}`);
    assert.equal(questionAt, 9, 'the question follows the 4 demonstrations');
    assert.match(p.messages[10].content, /broken_1/);
    assert.match(p.messages[11].content, /ReferenceError: broken_1[\s\S]*analysis number 1/);
    assert.match(p.messages[12].content, /broken_2/);
    assert.match(p.messages[13].content, /analysis number 2/);
    assert.ok(p.tokens >= contentTokens(p.messages), 'the reported count covers every message');
  });

  it('a budget that fits the fixed parts + 2 of 4 demonstrations keeps the 2 most similar, before the question', () => {
    const fixed = buildPrompt(parts(), 100_000, chars).tokens;
    const all = buildPrompt(parts({ demonstrations: DEMOS }), 100_000, chars).tokens;
    const perDemo = (all - fixed) / 4;
    assert.ok(Number.isInteger(perDemo) && perDemo > 0);
    const budget = fixed + 2 * perDemo + perDemo - 1; // not quite room for a third
    const p = buildPrompt(parts({ demonstrations: DEMOS }), budget, chars);
    assert.deepEqual(p.keptDemonstrations, ['best', 'good']);
    assert.deepEqual([...p.droppedDemonstrations].sort(), ['low', 'mid']);
    assert.ok(p.tokens <= budget, `${p.tokens} tokens > budget ${budget}`);
    assert.equal(p.tokens, fixed + 2 * perDemo);
    assert.match(p.messages[1].content, /question of best/);
    assert.match(p.messages[3].content, /question of good/);
    assert.equal(p.messages[p.messages.length - 1].content, `Question: ${parts().question}`);
    assert.ok(!p.messages.some((m) => /question of (mid|low)/.test(m.content)));
  });

  it('with many debug turns, drops every demonstration first, then the oldest debug turns', () => {
    const turns = [1, 2, 3, 4, 5].map(turn);
    const fixed = buildPrompt(parts(), 100_000, chars).tokens;
    const oneTurn = buildPrompt(parts({ debugTurns: [turn(9)] }), 100_000, chars).tokens - fixed;
    const budget = fixed + 2 * oneTurn + 5; // room for two turns only
    const p = buildPrompt(parts({ demonstrations: DEMOS.slice(0, 2), debugTurns: turns }), budget, chars);
    assert.deepEqual(p.keptDemonstrations, []);
    assert.deepEqual([...p.droppedDemonstrations].sort(), ['best', 'low']);
    assert.equal(p.droppedDebugTurns, 3);
    const text = p.messages.map((m) => m.content).join('\n');
    for (const gone of [1, 2, 3]) assert.ok(!text.includes(`broken_${gone}`), `turn ${gone} should be dropped`);
    assert.ok(text.indexOf('broken_4') > text.indexOf(`Question: ${parts().question}`));
    assert.ok(text.indexOf('broken_5') > text.indexOf('broken_4'));
    assert.ok(p.tokens <= budget);
  });

  it('holds the budget at every size: kept demonstrations are the most similar, kept turns the newest, counts monotonic', () => {
    const turns = [1, 2, 3].map(turn);
    const input = parts({ demonstrations: DEMOS, debugTurns: turns });
    const full = buildPrompt(input, 100_000, chars).tokens;
    const minimal = buildPrompt(parts({ debugTurns: [turns[2]] }), 100_000, chars).tokens;
    const ranking = ['best', 'good', 'mid', 'low'];
    let previousKept = -1;
    let previousTurns = -1;
    for (let budget = minimal; budget <= full; budget += 7) {
      const p = buildPrompt(input, budget, chars);
      assert.ok(p.tokens <= budget, `budget ${budget}: ${p.tokens} tokens`);
      assert.ok(p.tokens >= contentTokens(p.messages));
      assert.deepEqual(p.keptDemonstrations, ranking.slice(0, p.keptDemonstrations.length), `budget ${budget}`);
      const keptTurns = turns.filter((t) => p.messages.some((m) => m.content.includes(t.analysis)));
      assert.deepEqual(keptTurns, turns.slice(turns.length - keptTurns.length), 'only the newest turns survive');
      if (p.keptDemonstrations.length > 0) assert.equal(keptTurns.length, 3, 'debug turns go only once no demonstration is left');
      assert.ok(p.keptDemonstrations.length >= previousKept);
      assert.ok(keptTurns.length >= previousTurns);
      previousKept = p.keptDemonstrations.length;
      previousTurns = keptTurns.length;
    }
    assert.equal(previousKept, 4);
  });

  it('treats a null similarity as the least relevant', () => {
    const fixed = buildPrompt(parts(), 100_000, chars).tokens;
    const perDemo = buildPrompt(parts({ demonstrations: [demo('x', 0.1)] }), 100_000, chars).tokens - fixed;
    const p = buildPrompt(parts({ demonstrations: [demo('unknown', null), demo('some', 0.05)] }), fixed + perDemo, chars);
    assert.deepEqual(p.keptDemonstrations, ['some']);
    assert.deepEqual(p.droppedDemonstrations, ['unknown']);
  });

  it('fails with a CONFIG error naming the budget when the fixed parts alone do not fit', () => {
    const fixed = buildPrompt(parts(), 100_000, chars).tokens;
    assert.throws(
      () => buildPrompt(parts({ demonstrations: DEMOS }), fixed - 1, chars),
      (error: unknown) => isAgentMemoryError(error, 'CONFIG') && error.message.includes(`budget is ${fixed - 1}`) && error.details?.budget === fixed - 1,
    );
    const hugeSystem = parts({ system: 'x'.repeat(5000) });
    assert.throws(() => buildPrompt(hugeSystem, 1000), (error: unknown) => isAgentMemoryError(error, 'CONFIG') && /budget is 1000/.test(error.message));
  });

  it('fails with a CONFIG error when even the newest debug turn cannot fit next to the fixed parts', () => {
    const fixed = buildPrompt(parts(), 100_000, chars).tokens;
    assert.throws(() => buildPrompt(parts({ debugTurns: [turn(1), turn(2)] }), fixed + 10, chars), (error: unknown) => isAgentMemoryError(error, 'CONFIG'));
  });

  it('renders a turn whose reply had no program without an empty code block', () => {
    const p = buildPrompt(parts({ debugTurns: [{ code: '', error: 'The model reply contains no javascript code.', analysis: 'Reply with a fenced block.' }] }), 100_000, chars);
    const [assistant, user] = p.messages.slice(-2);
    assert.equal(assistant.role, 'assistant');
    assert.ok(!assistant.content.includes('```'));
    assert.match(user.content, /^Reading that reply failed:\nThe model reply contains no javascript code\.[\s\S]*Reply with a fenced block\./);
  });

  it('counts ≈ 4 characters per token by default and reports the total', () => {
    const p = buildPrompt(parts({ demonstrations: DEMOS }), 100_000);
    const charsTotal = p.messages.reduce((s, m) => s + m.content.length, 0);
    assert.ok(p.tokens >= Math.ceil(charsTotal / 4) && p.tokens < charsTotal, `${p.tokens} tokens for ${charsTotal} characters`);
    const tight = buildPrompt(parts({ demonstrations: DEMOS }), p.tokens - 1);
    assert.ok(tight.tokens <= p.tokens - 1);
    assert.deepEqual(tight.droppedDemonstrations, ['low']);
  });
});
