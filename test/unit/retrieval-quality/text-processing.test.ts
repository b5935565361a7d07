import assert from 'node:assert/strict';
import MiniSearch from 'minisearch';
import { lexTokens, stem, tokenizeForKeywords } from '../../../src/core/memory/text-processing';
import { baselineTokens } from '../../../src/core/bench/tfidf-baseline';

describe('text processing', () => {
  it('replaces numbers, dates and times with shape tokens', () => {
    const tokens = lexTokens("Patient 2238's BP on 2103-09-16 at 14:24:00, in 12/2105, until 2104, top three, 30.5").map((t) => t.text);
    assert.deepEqual(tokens, ['patient', '<num>', 's', 'bp', 'on', '<date>', 'at', '<time>', 'in', '<date>', 'until', '<year>', 'top', '<num>', '<dec>']);
  });

  it('stems inflections of one word to one term', () => {
    assert.equal(stem('prescribed'), stem('prescriptions'));
    assert.equal(stem('patients'), stem('patient'));
    assert.notEqual(stem('cost'), stem('count'));
  });

  it('drives a real MiniSearch index as tokenize + processTerm', () => {
    const index = new MiniSearch<{ id: string; q: string }>({ fields: ['q'], tokenize: tokenizeForKeywords, processTerm: (t) => t });
    index.addAll([
      { id: 'count', q: 'How many prescriptions of aspirin were issued?' },
      { id: 'cost', q: 'What is the cost of a glucose lab test?' },
    ]);
    assert.equal(index.search('number of times aspirin was prescribed', { combineWith: 'OR' })[0]?.id, 'count');
    assert.equal(index.search('how much does a glucose test cost', { combineWith: 'OR' })[0]?.id, 'cost');
    assert.ok(tokenizeForKeywords('How many patients').includes('how_many'));
  });

  it('baseline tokens are plain lower-cased words of two or more characters', () => {
    assert.deepEqual(baselineTokens('What is a BP, 30?'), ['what', 'is', 'bp', '30']);
  });
});
