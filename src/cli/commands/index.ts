/**
 * Registry of CLI subcommands. Add one line per command; each module exports
 * `summary` and `run(argv)`. Loaded lazily so `--help` stays fast.
 */
export interface CliCommand {
  summary: string;
  run(argv: string[]): Promise<number>;
}

function lazy(summary: string, load: () => { run(argv: string[]): Promise<number> }): CliCommand {
  return { summary, run: (argv) => load().run(argv) };
}

export const COMMANDS: Record<string, CliCommand> = {
  version: lazy('print the Agent Memory version', () => require('./version')),
  import: lazy('import records from a JSONL file into a SQLite file or a team space (all or nothing)', () => require('./import')),
  export: lazy('export records (SQLite file or team space) as JSONL to stdout', () => require('./export')),
  backup: lazy('copy a memory consistently, even while in use, to a checked SQLite file (SQLite file or team space)', () => require('./backup')),
  restore: lazy('restore a checked backup into a SQLite file (the old one kept as .bak) or a team space (--replace)', () => require('./restore')),
  similarity: lazy('code similarity of a candidate file relative to a reference file', () => require('./similarity')),
  'eval-retrieval': lazy('measure retrieval quality (hit@1, precision@k) of a memory file against a query file', () => require('./eval-retrieval')),
  seed: lazy('seed a memory (SQLite file or team space) with the EHR demo records (gold programs)', () => require('./seed')),
  task: lazy('run the agent on questions with a memory (SQLite file or team memory): retrieve, generate, run, evaluate, add', () => require('./task')),
  're-embed': lazy('re-embed every record: the built-in embedder (re-fitted), or an OpenAI-compatible embedding endpoint (--model, --base-url)', () => require('./re-embed')),
  run: lazy('run one program in the agent\'s sandbox (outcome, answer, stdout, error)', () => require('./run')),
  revalidate: lazy("re-run every record's program against the data: unchanged, answer changed, or now failing (marked stale)", () => require('./revalidate')),
  mcp: lazy('serve the memory to MCP clients on stdio (memory_search, memory_record, memory_feedback)', () => require('./mcp')),
  migrate: lazy('copy a whole memory between backends (SQLite file ↔ PostgreSQL team memory)', () => require('./migrate')),
  review: lazy('list pending records and approve, reject or restore them (SQLite file or postgres:// team memory)', () => require('./review')),
  'team-setup': lazy('create or upgrade the team memory schema on PostgreSQL (as the owner role)', () => require('./team-setup')),
  'team-grant': lazy('give a role a level (agent or reviewer) in a team space, or take it back (as the owner role)', () => require('./team-grant')),
  audit: lazy("verify a memory's audit hash chain (SQLite file or team space): audit --db FILE|URL --verify", () => require('./audit')),
  bench: lazy('run the agent over a task stream with an addition x deletion policy (metrics.json + report.html)', () => require('./bench')),
};
