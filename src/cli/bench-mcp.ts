/**
 * MCP load benchmark: `npm run bench:mcp [-- --processes 4] [-- --rounds 500] [-- --json]`.
 *
 * Seeds one memory database with the 100 EHR demo records, then starts P real
 * `agent-memory mcp` server processes on it (addition `all`), each driven by the
 * MCP SDK's own client over stdio. Every client runs R rounds of memory_search
 * followed by memory_record (with the search's retrievalId), all P at once.
 * Baseline, in the same run: one server alone doing the same rounds first.
 * Prints p50/p99 of the client-observed search latency, writes acknowledged vs
 * found in the database afterwards (lost = acknowledged − found), and whether
 * each process finds the records every other process wrote (top-1 for the
 * exact question).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createApp } from '../core/app';
import { nullLogger } from '../core/logger';
import { MemoryStore } from '../core/memory/sqlite/store';
import { SettingsSchema } from '../core/settings';
import { HELP_SHOWN, parseBenchArgs } from './args';
import { runMain } from './run-main';

const USAGE = `Usage: npm run bench:mcp -- [--processes 4] [--rounds 500] [--json]

Seeds one memory with the 100 EHR demo records, starts --processes real MCP server processes on
it and has each run --rounds rounds of memory_search + memory_record at once; prints the search
latency p50/p99, writes acknowledged vs found, and whether each process finds the others' records.`;

const ArgsSchema = z.object({
  processes: z.coerce.number().int().min(1).max(16).default(4),
  rounds: z.coerce.number().int().min(1).max(100_000).default(500),
  json: z.boolean().default(false),
});

const ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const MAIN = path.join(ROOT, 'src', 'cli', 'main.ts');

const PROBE_WORDS = ['aardvark', 'bassoon', 'cobalt', 'dulcimer', 'emerald', 'fjord', 'gazebo', 'hummock', 'ibex', 'jackal', 'kumquat', 'lemur', 'marmot', 'narwhal', 'ocelot', 'puffin'];

interface ProcessResult {
  process: number;
  searchMs: number[];
  acknowledged: string[];
  questions: string[];
  errors: number;
}

async function connect(db: string, name: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [TSX, MAIN, 'mcp', '--db', db, '--addition', 'all'], cwd: ROOT, stderr: 'inherit' });
  const client = new Client({ name, version: '1' });
  // A loaded machine can take long to start a server: wait for the handshake generously.
  await client.connect(transport, { timeout: 600_000 });
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
}

async function rounds(client: Client, p: number, n: number, questions: string[]): Promise<ProcessResult> {
  const out: ProcessResult = { process: p, searchMs: [], acknowledged: [], questions: [], errors: 0 };
  for (let i = 0; i < n; i++) {
    const base = questions[(p * 7919 + i * 104_729) % questions.length];
    const t0 = performance.now();
    const search = await call(client, 'memory_search', { query: base, k: 4 });
    out.searchMs.push(performance.now() - t0);
    if (search.isError) {
      out.errors++;
      continue;
    }
    const { retrievalId } = search.structuredContent as { retrievalId: string };
    const question = `${base} (process ${p} round ${i})`;
    const record = await call(client, 'memory_record', { question, code: `answer = sql("select ${p}, ${i}")`, language: 'python', outcome: 'success', retrievalId });
    const id = (record.structuredContent as { id: string | null } | undefined)?.id;
    if (record.isError || !id) out.errors++;
    else {
      out.acknowledged.push(id);
      out.questions.push(question);
    }
  }
  return out;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function main(argv: string[]): Promise<number> {
  const args = parseBenchArgs(argv, { usage: USAGE, flags: ['json'], valued: ['processes', 'rounds'] }, ArgsSchema);
  if (args === HELP_SHOWN) return 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-bench-mcp-'));
  const db = path.join(dir, 'memory.sqlite');
  try {
    const settings = SettingsSchema.parse({ model: {}, embedder: {}, retrieval: {}, addition: {}, deletion: {}, runner: {}, agent: {}, misaligned: {} });
    const app = await createApp({ databasePath: db, settings, demoDataDir: path.join(ROOT, 'data', 'ehr'), storageDir: dir, logger: nullLogger });
    await app.seedDemoMemory(100);
    const questions = app.list({ status: 'active', limit: 100 }).items.map((r) => r.question);
    app.dispose();

    // Baseline: one process alone.
    const solo = await connect(db, 'bench-solo');
    const baseline = await rounds(solo, 99, args.rounds, questions);
    await solo.close();

    // P processes at once.
    const clients = await Promise.all(Array.from({ length: args.processes }, (_, p) => connect(db, `bench-${p}`)));
    const started = performance.now();
    const results = await Promise.all(clients.map((c, p) => rounds(c, p, args.rounds, questions)));
    const wallS = (performance.now() - started) / 1000;

    // Does each process find what every other process wrote? Each writes one probe with words
    // no other record has; every other process must then return it for those words.
    const probes: { question: string; id: string | null }[] = [];
    for (let p = 0; p < clients.length; p++) {
      const question = `visibility probe ${PROBE_WORDS[p % PROBE_WORDS.length]} ${PROBE_WORDS[(p * 5 + 3) % PROBE_WORDS.length]} ${p}`;
      const r = await call(clients[p], 'memory_record', { question, code: `probe(${p})`, language: 'python', outcome: 'success' });
      const id = (r.structuredContent as { id: string | null } | undefined)?.id ?? null;
      if (id) results[p].acknowledged.push(id);
      probes.push({ question, id });
    }
    const sees: boolean[][] = [];
    for (let p = 0; p < clients.length; p++) {
      sees.push([]);
      for (let q = 0; q < clients.length; q++) {
        const r = await call(clients[p], 'memory_search', { query: probes[q].question, k: 4 });
        const ids = (r.structuredContent as { results: { id: string }[] } | undefined)?.results.map((x) => x.id) ?? [];
        const id = probes[q].id;
        sees[p].push(id !== null && ids.includes(id));
      }
    }
    await Promise.all(clients.map((c) => c.close()));

    const acknowledged = [...results, baseline].flatMap((r) => r.acknowledged);
    const store = MemoryStore.open(db);
    const found = store.getMany(acknowledged).length;
    store.close();

    const all = results.flatMap((r) => r.searchMs);
    const summary = {
      processes: args.processes,
      rounds_per_process: args.rounds,
      baseline_search_p50_ms: percentile(baseline.searchMs, 50),
      baseline_search_p99_ms: percentile(baseline.searchMs, 99),
      search_p50_ms: percentile(all, 50),
      search_p99_ms: percentile(all, 99),
      p50_ratio_vs_baseline: percentile(all, 50) / percentile(baseline.searchMs, 50),
      per_process: results.map((r) => ({ process: r.process, p50_ms: percentile(r.searchMs, 50), p99_ms: percentile(r.searchMs, 99), acknowledged: r.acknowledged.length, errors: r.errors })),
      writes_acknowledged: acknowledged.length,
      writes_found: found,
      writes_lost: acknowledged.length - found,
      errors: [...results, baseline].reduce((s, r) => s + r.errors, 0),
      each_sees_others: sees.every((row) => row.every(Boolean)),
      visibility: sees,
      wall_s: wallS,
      rounds_per_s: (args.processes * args.rounds) / wallS,
      load_avg_1m: os.loadavg()[0],
    };
    if (args.json) process.stdout.write(JSON.stringify(summary) + '\n');
    else {
      const f = (n: number) => n.toFixed(2);
      process.stdout.write(
        `MCP load: ${summary.processes} server processes × ${summary.rounds_per_process} rounds (memory_search + memory_record), one database\n` +
          `  search latency (client-observed): p50 ${f(summary.search_p50_ms)} ms, p99 ${f(summary.search_p99_ms)} ms` +
          ` | one process alone: p50 ${f(summary.baseline_search_p50_ms)} ms, p99 ${f(summary.baseline_search_p99_ms)} ms | p50 ratio ${f(summary.p50_ratio_vs_baseline)}×\n` +
          summary.per_process.map((p) => `  process ${p.process}: p50 ${f(p.p50_ms)} ms, p99 ${f(p.p99_ms)} ms, ${p.acknowledged} writes acknowledged, ${p.errors} errors\n`).join('') +
          `  writes: ${summary.writes_acknowledged} acknowledged, ${summary.writes_found} found afterwards, ${summary.writes_lost} lost; ${summary.errors} tool errors\n` +
          `  each process finds the others' writes: ${summary.each_sees_others ? 'yes' : 'NO'} (${JSON.stringify(summary.visibility)})\n` +
          `  wall ${f(summary.wall_s)} s, ${f(summary.rounds_per_s)} rounds/s, load average ${f(summary.load_avg_1m)}\n`,
      );
    }
    return summary.writes_lost === 0 && summary.each_sees_others ? 0 : 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) runMain('bench:mcp', () => main(process.argv.slice(2)));
