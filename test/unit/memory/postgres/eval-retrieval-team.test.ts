import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { CHART_HEART_RATE, LAB_POTASSIUM } from '../../../support/records';

const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..', '..', '..');
const EHR_DATABASE = path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite');
const cli = (args: string[]) => run(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'src/cli/main.ts', 'eval-retrieval', ...args], { cwd: ROOT });

const SODIUM = { question: 'Sodium in the lab for patient 9?', code: `answer = sql("select valuenum from labevents where itemid in (select itemid from d_labitems where d_labitems.label = 'sodium') and subject_id = 9")` };

describe('eval-retrieval --backend team (a space of a throwaway PostgreSQL + pgvector cluster, real child process)', function () {
  this.timeout(180_000);
  let dir: string;
  let memory: string;
  let queries: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-eval-team-'));
    memory = path.join(dir, 'memory.jsonl');
    queries = path.join(dir, 'queries.jsonl');
    const line = (r: { question: string; code: string }, template: string) => JSON.stringify({ question: r.question, code: r.code, template });
    fs.writeFileSync(memory, [line(CHART_HEART_RATE, 'chart'), line(LAB_POTASSIUM, 'lab'), line(SODIUM, 'lab')].join('\n') + '\n');
    // Lab values asked in the chart record's words: the fused order puts the chart record first, the value columns a lab one.
    const asked = ['What was the last sodium value of patient 12?', 'What was the last potassium value of patient 12?', 'What was the last calculated total co2 value of patient 12?'];
    fs.writeFileSync(queries, asked.map((question) => JSON.stringify({ question, code: 'x', template: 'lab' })).join('\n') + '\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('searches the space as a team task does: fused, the chart record leads every query; re-ranked with the database\'s values, a lab record does', async () => {
    // No relevance floor: this compares the team search's order with the file store's (the floor is tested in eval-retrieval.test.ts).
    const fused = JSON.parse((await cli(['--memory', memory, '--queries', queries, '--backend', 'team', '--min-score', '0', '--json'])).stdout) as { n: number; backend: string; fitted: boolean; hit_at_1: number; distinct_at_k: number };
    assert.deepEqual([fused.n, fused.backend, fused.fitted], [3, 'team', false]);
    assert.equal(fused.hit_at_1, 0);
    assert.equal(fused.distinct_at_k, 3, 'the three programs');
    const reranked = JSON.parse((await cli(['--memory', memory, '--queries', queries, '--backend', 'team', '--min-score', '0', '--rerank', '--values-from', EHR_DATABASE, '--json'])).stdout) as { hit_at_1: number; domain_values: number };
    assert.equal(reranked.hit_at_1, 1);
    assert.ok(reranked.domain_values > 1000);
  });

  it('refuses what the team search cannot do (vector-only mode, the mask ablation) before starting a cluster', async () => {
    for (const [extra, message] of [[['--mode', 'vector'], /--backend team searches in hybrid or keyword mode/], [['--mask'], /--mask is an ablation of the file store/], [['--no-agreement'], /--no-agreement is an ablation of the file store/]] as const) {
      await assert.rejects(cli(['--memory', memory, '--queries', queries, '--backend', 'team', ...extra]), (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 1);
        assert.match(err.stderr, message);
        return true;
      });
    }
  });
});
