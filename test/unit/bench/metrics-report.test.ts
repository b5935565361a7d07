import { strict as assert } from 'node:assert';
import type { BenchRun, BenchTaskRow } from '../../../src/core/bench/harness';
import { BenchConfigSchema } from '../../../src/core/bench/config';
import { computeMetrics } from '../../../src/core/bench/metrics';
import { renderReport } from '../../../src/core/bench/report-html';

function row(position: number, correct: 0 | 1, memorySize: number, inSim: number | null, outSim: number | null, overheadMs: number): BenchTaskRow {
  return {
    position, id: `t${position}`, line: position, template: null, group: null, question: `question <${position}> & more`, outcome: correct ? 'success' : 'error', correct,
    utility: correct, evaluator: 'strict:ground-truth', attempts: 1, added: correct === 1, additionReason: '', deleted: 0, memorySize,
    inputSimilarity: inSim, outputSimilarity: outSim, followedRecordId: null, followedCorrect: null, followedTemplate: null, retrievedSameTemplate: null, sameTemplateAvailable: null,
    promptTokens: 100 * position, completionTokens: 10, overheadMs, loopOverheadMs: overheadMs, bookkeepingMs: 0, retrieveMs: 0, generateMs: 0, runMs: 0, gaveUp: null,
  };
}

function handBuiltRun(): BenchRun {
  return {
    config: { ...BenchConfigSchema.parse({ addition: 'strict' }), period: 29 },
    model: 'test-model',
    embedderId: 'hash-v1-384',
    streamLength: 4,
    initialMemory: 10,
    rows: [row(1, 1, 11, 0.5, 0.25, 2), row(2, 0, 11, null, null, 4), row(3, 1, 12, 0.9, 0.75, 6), row(4, 0, 12, 0.7, 1, 100)],
    groupStarts: [],
    runCache: { hits: 1, misses: 3 },
    durationMs: 1234.5,
  };
}

describe('bench: metrics and report', () => {
  it('computes accuracy, curves, means and tokens from the rows', () => {
    const m = computeMetrics(handBuiltRun());
    assert.equal(m.tasks, 4);
    assert.equal(m.correct, 2);
    assert.equal(m.final_accuracy, 0.5);
    assert.deepEqual(m.accuracy_curve, [1, 0.5, 0.666667, 0.5]);
    assert.deepEqual(m.memory_size_curve, [11, 11, 12, 12]);
    assert.equal(m.initial_memory_size, 10);
    assert.equal(m.memory_size_final, 12);
    // Nulls are skipped: input mean over 0.5, 0.9, 0.7; output over 0.25, 0.75, 1.
    assert.equal(m.mean_input_similarity, 0.7);
    assert.equal(m.mean_output_similarity, 0.666667);
    assert.deepEqual(m.input_similarity_curve, [0.5, 0.5, 0.7, 0.7]);
    assert.deepEqual(m.output_similarity_curve, [0.25, 0.25, 0.5, 0.666667]);
    assert.equal(m.prompt_tokens, 1000);
    assert.equal(m.completion_tokens, 40);
    assert.equal(m.agent_overhead_ms_per_task, 28);
    assert.deepEqual(m.agent_overhead_ms, { mean: 28, p50: 4, p95: 100, max: 100 });
    assert.equal(m.records_added, 2);
    assert.equal(m.rows.length, 4);
  });

  it('renders a self-contained report with the charts', () => {
    const m = computeMetrics(handBuiltRun());
    const html = renderReport([{ label: 'strict', metrics: m }], 'Test <report>');
    assert.ok(html.startsWith('<!DOCTYPE html>'));
    assert.doesNotMatch(html, /<script/i, 'no scripts at all');
    assert.doesNotMatch(html, /\b(src|href)\s*=\s*["']?(https?:)?\/\//i, 'no external resources');
    assert.doesNotMatch(html, /<link\b|@import|url\(/i, 'no linked styles or fonts');
    assert.equal((html.match(/<svg\b/g) ?? []).length, 4, 'accuracy, memory size, similarity over tasks, scatter');
    for (const title of ['Cumulative accuracy over tasks', 'Memory size over tasks', 'Cumulative input vs output similarity', 'Per-task output vs input similarity']) {
      assert.ok(html.includes(title), title);
    }
    // The accuracy series has one point per task; the scatter one circle per task with both similarities.
    const accuracyPath = /aria-label="Cumulative accuracy over tasks"[\s\S]*?<path class="series"[^>]*d="([^"]+)"/.exec(html);
    assert.ok(accuracyPath);
    assert.equal((accuracyPath[1].match(/[ML]/g) ?? []).length, 4);
    const scatter = html.slice(html.indexOf('Per-task output vs input similarity'));
    assert.equal((scatter.match(/<circle/g) ?? []).length, 3);
    // Text is escaped.
    assert.ok(html.includes('Test &lt;report&gt;'));
    assert.ok(html.includes('question &lt;1&gt; &amp; more'));
  });

  it('overlays several runs in one report', () => {
    const a = computeMetrics(handBuiltRun());
    const html = renderReport([{ label: 'strict', metrics: a }, { label: 'all', metrics: a }]);
    const accuracySvg = html.slice(html.indexOf('aria-label="Cumulative accuracy'), html.indexOf('</svg>', html.indexOf('aria-label="Cumulative accuracy')));
    assert.equal((accuracySvg.match(/<path class="series"/g) ?? []).length, 2);
    assert.doesNotMatch(html, /<script/i);
  });
});
