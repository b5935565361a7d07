import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { HashingEmbedder } from '../../../src/core/similarity/hashing-embedder';
import { TextStatistics, fitTextStatistics } from '../../../src/core/similarity/text/text-statistics';
import { isAgentMemoryError } from '../../../src/core/errors';
import { EHR_TASKS } from './ehr-split';

interface Task { split: string; question: string; template: string; gold_sql: string }
const tasks = fs.readFileSync(EHR_TASKS, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Task);
const memory = tasks.filter((t) => t.split === 'valid');
const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cos = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i], 0);

describe('HashingEmbedder', () => {
  const stats = fitTextStatistics(memory.map((t) => ({ question: t.question, code: t.gold_sql })));

  it('has the default dimension and an id naming version and dimension', () => {
    const e = new HashingEmbedder();
    assert.equal(e.dimension, 384);
    assert.equal(e.id, 'hash-v1-384');
    assert.equal(new HashingEmbedder({ dimension: 256 }).id, 'hash-v1-256');
    assert.equal(e.embedSync('how many patients').length, 384);
  });

  it('is deterministic across instances and between embed and embedSync', async () => {
    const text = "What is patient 2238's last measured height?";
    const a = new HashingEmbedder().embedSync(text);
    const [b] = await new HashingEmbedder().embed([text]);
    assert.deepEqual(Array.from(a), Array.from(b));
  });

  it('returns L2-normalised vectors, and a zero vector for text without tokens', () => {
    for (const e of [new HashingEmbedder(), new HashingEmbedder({ statistics: stats })]) {
      for (const t of memory.slice(0, 20)) assert.ok(Math.abs(norm(e.embedSync(t.question)) - 1) < 1e-5);
      assert.equal(norm(e.embedSync('?!')), 0);
    }
  });

  it('gives different texts different vectors', () => {
    const e = new HashingEmbedder();
    const a = e.embedSync('how many patients died after a diagnosis of sepsis?');
    const b = e.embedSync('what is the cost of a potassium lab test?');
    assert.ok(cos(a, b) < 0.5, `cosine ${cos(a, b)}`);
  });

  it('a fitted embedder has a fit-specific id and rejects a too-small dimension', () => {
    const e = new HashingEmbedder({ statistics: stats });
    assert.match(e.id, /^hash-v1-384-fit-[0-9a-f]{8}$/);
    const other = fitTextStatistics(memory.slice(0, 100).map((t) => ({ question: t.question, code: t.gold_sql })));
    assert.notEqual(new HashingEmbedder({ statistics: other }).id, e.id);
    assert.throws(() => new HashingEmbedder({ dimension: 200, statistics: stats }), (err) => isAgentMemoryError(err, 'CONFIG'));
  });

  it('fitted: paraphrases of one template are closer than questions of another template sharing a value word', () => {
    const e = new HashingEmbedder({ statistics: stats });
    const q = e.embedSync('How should naproxen be taken?');
    const sameTemplate = e.embedSync('What is the method of administration for danazol?');
    const sameValue = e.embedSync('How many patients were prescribed naproxen this year?');
    assert.ok(cos(q, sameTemplate) > cos(q, sameValue), `${cos(q, sameTemplate)} vs ${cos(q, sameValue)}`);
  });

  it('statistics survive a JSON round trip with identical vectors', () => {
    const copy = TextStatistics.fromJSON(JSON.parse(JSON.stringify(stats)));
    const text = 'count the number of patients who received a glucose lab test';
    assert.equal(new HashingEmbedder({ statistics: copy }).id, new HashingEmbedder({ statistics: stats }).id);
    assert.deepEqual(Array.from(new HashingEmbedder({ statistics: copy }).embedSync(text)), Array.from(new HashingEmbedder({ statistics: stats }).embedSync(text)));
    assert.throws(() => TextStatistics.fromJSON({ format: 'nope' }), (err) => isAgentMemoryError(err, 'INVALID_INPUT'));
  });

  it('embed() honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(new HashingEmbedder().embed(['a'], controller.signal), (err) => isAgentMemoryError(err, 'CANCELLED'));
  });
});
