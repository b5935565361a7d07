/**
 * Memoised code execution for benchmark grids. Generated code runs read-only
 * against a fixed database with a fixed "now", so a run's answer is a pure
 * function of (code, language, database, now): the grid's configurations
 * execute the same adapted programs again and again, and the cache skips the
 * repeated sandbox spawns. Timeouts and sandbox kills are never cached
 * (they depend on machine load). Cached results report `durationMs: 0`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunRequest, RunResult } from '../agent/runners/types';

export interface RunCacheStats {
  hits: number;
  misses: number;
}

/**
 * @example
 * const cached = new RunCache((req, signal) => runner.run(req, signal));
 * await cached.run({ code, language: 'python', databasePath });
 */
export class RunCache {
  protected readonly results = new Map<string, RunResult>();
  readonly stats: RunCacheStats = { hits: 0, misses: 0 };

  constructor(private readonly inner: (request: RunRequest, signal?: AbortSignal) => Promise<RunResult>) {}

  async run(request: RunRequest, signal?: AbortSignal): Promise<RunResult> {
    const key = JSON.stringify([request.language, request.databasePath, request.now ?? '', request.limits ?? null, request.code]);
    const hit = this.results.get(key);
    if (hit) {
      this.stats.hits++;
      return { ...hit, durationMs: 0 };
    }
    this.stats.misses++;
    const result = await this.inner(request, signal);
    if (result.outcome !== 'timeout' && result.killedBy === undefined) this.remember(key, result);
    return result;
  }

  protected remember(key: string, result: RunResult): void {
    this.results.set(key, result);
  }
}

/**
 * A RunCache persisted across processes and runs: each process loads every
 * `*.jsonl` file of `dir` (one `[key, result]` pair a line) and, on `save()`,
 * writes the results it computed to a file of its own. Results are a pure
 * function of the key (see above), and `dir` should be named after the
 * database's identity (see cacheDirFor) so that a changed database starts
 * from an empty cache.
 */
export class PersistentRunCache extends RunCache {
  private readonly fresh: [string, RunResult][] = [];

  constructor(inner: (request: RunRequest, signal?: AbortSignal) => Promise<RunResult>, private readonly dir: string) {
    super(inner);
    if (!fs.existsSync(dir)) return;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
      for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        if (!line) continue;
        try {
          const [key, result] = JSON.parse(line) as [string, RunResult];
          if (typeof key === 'string' && result && typeof result.outcome === 'string') this.results.set(key, result);
        } catch {
          // A torn line (a process killed mid-write) is skipped; the program will simply run again.
        }
      }
    }
  }

  protected override remember(key: string, result: RunResult): void {
    super.remember(key, result);
    this.fresh.push([key, result]);
  }

  /** Writes this process's new results; returns how many. */
  save(): number {
    if (this.fresh.length === 0) return 0;
    fs.mkdirSync(this.dir, { recursive: true });
    const file = path.join(this.dir, `${process.pid}-${Date.now()}.jsonl`);
    fs.writeFileSync(file, this.fresh.map((e) => JSON.stringify(e)).join('\n') + '\n');
    const n = this.fresh.length;
    this.fresh.length = 0;
    return n;
  }
}

/** A cache directory under `root` named after the database file's size and modification time. */
export function cacheDirFor(root: string, databasePath: string, language: string): string {
  const st = fs.statSync(databasePath);
  return path.join(root, `${language}-${path.basename(databasePath).replace(/[^a-z0-9.-]/gi, '_')}-${st.size}-${Math.trunc(st.mtimeMs)}`);
}
