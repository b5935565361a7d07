#!/usr/bin/env node
/**
 * `npm run bench:utility -- [--agent simulated|reuse|both] [--seeds N] [--seed-base B] [--cell a/d/v/attr] [--json]`
 *
 * Why history-based deletion keeps or empties a memory: runs one grid cell
 * (default strict/none/standard/shown: no deletion, so nothing is hidden) per
 * seed with a kept store, then reads the retrieval log the history rule reads —
 * how many records reach n evaluated retrievals, how many of those have a mean
 * Φ ≤ β, and the accuracy of the tasks whose top demonstration shares their
 * EHRSQL template vs the rest. Retrieval quality in the stream, per agent:
 * `same_template_at_4` (share of stream tasks whose retrieved demonstrations
 * include a record of their template) and `same_template_achievable` (share
 * for which the active memory held one when the task started). Both agents by
 * default. Prints one line per seed on stderr and a JSON summary as the only
 * stdout line (`--json` is accepted for symmetry with the other benches).
 * The simulated agent is a SIMULATION.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { runBench } from '../core/bench/harness';
import { cellConfig, PaperCellSchema } from '../core/bench/paper-cells';
import { agentDeps } from '../core/bench/paper-seed';
import { SIMULATION_PARAMETERS } from '../core/bench/sim/parameters';
import { createBenchSession } from '../core/bench/session';
import { meanCi, round } from '../core/bench/stats';
import { planPaperStream } from '../core/bench/stream-setup';
import { readTaskFile } from '../core/bench/task-file';
import { DEFAULT_BETA_STRICT, DEFAULT_MIN_RETRIEVALS } from '../core/policy/deletion';
import { runMain } from './run-main';
import { HELP_SHOWN, parseBenchArgs } from './args';

const ROOT = path.resolve(__dirname, '..', '..');
const USAGE = `Usage: npm run bench:utility -- [--agent simulated|reuse|both] [--seeds N] [--seed-base B] [--cell addition/deletion/variant/attribution] [--fit-embedder] [--rerank] [--json]

Runs one grid cell per seed and reads the retrieval log the history rule reads: how many records
reach n evaluated retrievals, how many have a mean utility at or below beta, and retrieval quality
in the stream (same-template demonstrations). The JSON summary is the only stdout line.`;
const AGENTS = ['simulated', 'reuse'] as const;

const OptionsSchema = z.object({
  agent: z.enum([...AGENTS, 'both']).default('both'),
  json: z.boolean().default(false),
  seeds: z.coerce.number().int().min(1).max(50).default(3),
  'seed-base': z.coerce.number().int().min(0).default(1),
  cell: z.string().default('strict/none/standard/shown'),
  /** Fit the built-in embedder on the initial memory (as seeding does in the product) instead of the unfitted one. */
  'fit-embedder': z.boolean().default(false),
  /** Re-rank the stream's retrieval (hybrid-search's opt-in stage). */
  rerank: z.boolean().default(false),
});

export interface UtilitySummary {
  seed: number;
  accuracy: number;
  records: number;
  /** Records with at least n evaluated retrievals. */
  reachedN: number;
  /** …of which mean Φ ≤ β (the history rule would delete them). */
  belowBeta: number;
  /** Mean Φ over every evaluated retrieval. */
  meanUtility: number;
  /** Accuracy of the tasks whose top demonstration has the task's template, and of the rest. */
  sameTemplateTop: { tasks: number; accuracy: number };
  otherTop: { tasks: number; accuracy: number };
  /** Share of stream tasks whose retrieved demonstrations include a record of their template. */
  same_template_at_4: number;
  /** Share of stream tasks for which the active memory held a record of their template. */
  same_template_achievable: number;
}

interface AgentSummary {
  seeds: UtilitySummary[];
  same_template_at_4: number;
  same_template_achievable: number;
  /** same_template_at_4 / same_template_achievable (pooled over seeds). */
  same_template_ratio: number;
  ci95_at_4: [number, number];
}

/** Demonstrations retrieved per task in the bench cells (BenchConfig k). */
const DEMONSTRATIONS = 4;

/** Share of true among the non-null flags (0 when none). */
function share(flags: (boolean | null)[]): number {
  const known = flags.filter((f): f is boolean => f !== null);
  return known.length ? round(known.filter(Boolean).length / known.length, 4) : 0;
}

async function main(argv: string[]): Promise<number> {
  const o = parseBenchArgs(argv, { usage: USAGE, flags: ['json', 'fit-embedder', 'rerank'], valued: ['agent', 'seeds', 'seed-base', 'cell'] }, OptionsSchema);
  if (o === HELP_SHOWN) return 0;
  const [addition, deletion, variant, attribution] = o.cell.split('/');
  const cell = PaperCellSchema.parse({ addition, deletion, variant, attribution });
  const tasks = readTaskFile(path.join(ROOT, 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl'));
  const session = createBenchSession({ databasePath: path.join(ROOT, 'data', 'ehr', 'mimic3-demo.sqlite'), language: 'python' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-utility-'));
  const agents: AgentSummary[] = [];
  const agentNames = o.agent === 'both' ? AGENTS : [o.agent];
  try {
    for (const agent of agentNames) {
    const out: UtilitySummary[] = [];
    for (let seed = o['seed-base']; seed < o['seed-base'] + o.seeds; seed++) {
      const plan = planPaperStream(tasks, { initialMemory: 100, seed });
      const storePath = path.join(dir, `${agent}-seed-${seed}.sqlite`);
      const maxDebugRounds = agent === 'simulated' ? SIMULATION_PARAMETERS.maxDebugRounds : undefined;
      const run = await runBench(plan, { ...cellConfig(cell, { seed, language: 'python', maxDebugRounds, rerank: o.rerank }), fitEmbedder: o['fit-embedder'] }, { ...agentDeps({ agent, seed }, session, tasks), storePath });
      const db = new BetterSqlite3(storePath, { readonly: true });
      try {
        const recs = db.prepare('SELECT utility_count AS n, utility_sum AS s FROM records').all() as { n: number; s: number }[];
        const reached = recs.filter((r) => r.n >= DEFAULT_MIN_RETRIEVALS);
        const evaluated = recs.reduce((a, r) => ({ n: a.n + r.n, s: a.s + r.s }), { n: 0, s: 0 });
        const same = run.rows.filter((r) => r.followedTemplate !== null && r.followedTemplate === r.template);
        const other = run.rows.filter((r) => !(r.followedTemplate !== null && r.followedTemplate === r.template));
        const acc = (rows: typeof run.rows) => (rows.length ? round((100 * rows.reduce((s, r) => s + r.correct, 0)) / rows.length) : 0);
        const summary: UtilitySummary = {
          seed,
          accuracy: acc(run.rows),
          records: recs.length,
          reachedN: reached.length,
          belowBeta: reached.filter((r) => r.s / r.n <= DEFAULT_BETA_STRICT + 1e-9).length,
          meanUtility: evaluated.n ? round(evaluated.s / evaluated.n, 3) : 0,
          sameTemplateTop: { tasks: same.length, accuracy: acc(same) },
          otherTop: { tasks: other.length, accuracy: acc(other) },
          same_template_at_4: share(run.rows.map((r) => r.retrievedSameTemplate)),
          same_template_achievable: share(run.rows.map((r) => r.sameTemplateAvailable)),
        };
        out.push(summary);
        process.stderr.write(
          `[bench:utility] ${agent} seed ${seed} ${o.cell}: same template in the top ${DEMONSTRATIONS} ${summary.same_template_at_4}, achievable ${summary.same_template_achievable}; accuracy ${summary.accuracy} %; ${summary.reachedN}/${summary.records} records reach n = ${DEFAULT_MIN_RETRIEVALS} evaluated retrievals, ${summary.belowBeta} of them with mean Φ ≤ β = ${DEFAULT_BETA_STRICT}; mean Φ per retrieval ${summary.meanUtility}; top demonstration of the same template: ${summary.sameTemplateTop.tasks} tasks at ${summary.sameTemplateTop.accuracy} %, other: ${summary.otherTop.tasks} tasks at ${summary.otherTop.accuracy} %\n`,
        );
      } finally {
        db.close();
      }
    }
    const at4 = out.reduce((a, s) => a + s.same_template_at_4, 0) / out.length;
    const achievable = out.reduce((a, s) => a + s.same_template_achievable, 0) / out.length;
    const ci = meanCi(out.map((s) => s.same_template_at_4)).ci95;
    agents.push({ seeds: out, same_template_at_4: round(at4, 4), same_template_achievable: round(achievable, 4), same_template_ratio: achievable ? round(at4 / achievable, 4) : 0, ci95_at_4: [round(ci[0], 4), round(ci[1], 4)] });
    const deleteShare = meanCi(out.map((s) => (s.reachedN ? (100 * s.belowBeta) / s.reachedN : 0)));
    process.stderr.write(`[bench:utility] ${agent === 'simulated' ? 'SIMULATION — ' : ''}${agent}: records the history rule would delete, of those reaching n: ${round(deleteShare.mean)} % [${round(deleteShare.ci95[0])}, ${round(deleteShare.ci95[1])}] over ${out.length} seed(s); same template in the top ${DEMONSTRATIONS} ${round(at4, 4)} of ${round(achievable, 4)} achievable\n`);
    }
  } finally {
    session.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify({ cell: o.cell, simulation: agentNames.includes('simulated') ? 'the simulated agent is a SIMULATION' : undefined, agents: Object.fromEntries(agentNames.map((a, i) => [a, agents[i]])) }) + '\n');
  return 0;
}

if (require.main === module) runMain('bench:utility', () => main(process.argv.slice(2)));
