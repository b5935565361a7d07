import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { refitAndReembed } from '../../../src/core/app/embedding';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { CHART_HEART_RATE, LAB_POTASSIUM } from '../../support/records';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const MAIN = path.join(ROOT, 'src', 'cli', 'main.ts');

// No stored program compares "calculated total co2": only the agent's database (the bundled demo) says it is a lab test.
const QUESTION = 'What was the last calculated total co2 value of patient 12?';

describe('agent-memory task --rerank (agentMemory.retrieval.rerank through the app, with the agent database\'s values)', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-task-rerank-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function seeded(name: string): { file: string; ids: { chart: string; lab: string } } {
    const file = path.join(dir, name);
    const store = MemoryStore.open(file);
    try {
      const [chart, lab] = store.add(
        [CHART_HEART_RATE, LAB_POTASSIUM].map((r) => ({ question: r.question, execution: { code: r.code, language: 'python' as const, outcome: 'success' as const }, provenance: 'seed' as const })),
        { trigger: 'user', reason: 'test seed' },
      );
      refitAndReembed(store, 'user');
      return { file, ids: { chart: chart.id, lab: lab.id } };
    } finally {
      store.close();
    }
  }

  function topDemonstration(file: string, extra: string[]): string {
    const r = spawnSync(process.execPath, [TSX, MAIN, 'task', '--db', file, '--question', QUESTION, '--json', ...extra], { cwd: ROOT, encoding: 'utf8', timeout: 100_000 });
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout.trim().split('\n')[0]) as { demonstrations: { recordId: string }[] };
    return result.demonstrations[0].recordId;
  }

  it('fused, the chart record that shares more words comes first; re-ranked, the lab one the database\'s values point to', () => {
    const fused = seeded('fused.sqlite');
    assert.equal(topDemonstration(fused.file, []), fused.ids.chart);
    const reranked = seeded('reranked.sqlite');
    assert.equal(topDemonstration(reranked.file, ['--rerank']), reranked.ids.lab);
  });
});
