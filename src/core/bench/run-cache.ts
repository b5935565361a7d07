/**
 * Memoised code execution for benchmark grids. Generated code runs read-only
 * against a fixed database with a fixed "now", so a run's answer is a pure
 * function of (code, language, database, now): the grid's configurations
 * execute the same adapted programs again and again, and the cache skips the
 * repeated sandbox spawns. Timeouts and sandbox kills are never cached
 * (they depend on machine load). Cached results report `durationMs: 0`.
 */
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
  private readonly results = new Map<string, RunResult>();
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
    if (result.outcome !== 'timeout' && result.killedBy === undefined) this.results.set(key, result);
    return result;
  }
}
