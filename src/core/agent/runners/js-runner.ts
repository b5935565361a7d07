import { AgentMemoryError, errorMessage } from '../../errors';
import { nullLogger, type Logger } from '../../logger';
import { QuickJsProcess } from './js-sandbox-process';
import { toRunResult } from './run-result';
import { sqlBridge, SqlServices } from './sql-bridge';
import { SqlService } from './sql-service';
import { resolveRunRequestFor, type CodeRunner, type RunRequest, type RunResult } from './types';

/** Warm sandbox processes kept between runs. */
const MAX_IDLE = 2;

/**
 * Runs JavaScript in QuickJS (WebAssembly), hosted by a separate `node` process
 * under Node's permission model. The guest has only language built-ins and the
 * toolbox (no require, process, fetch, timers or files); memory is capped by the
 * WebAssembly memory's maximum, loops by an interrupt deadline, recursion by a
 * 128 KiB stack cap, output by a byte cap. A guest blocked in `sql()` past its
 * deadline gets its host process killed; `sql()` is answered by a read-only SQL
 * service process (see SqlService), so no program holds a database handle. The
 * host process stays warm between runs (a fresh QuickJS runtime per run) and is
 * replaced after any kill, crash or out-of-memory.
 *
 * @example
 * const runner = new JavaScriptRunner();
 * const r = await runner.run({ language: 'javascript', databasePath: db, code: "answer = sql('select 1')" });
 * runner.dispose();
 */
export class JavaScriptRunner implements CodeRunner {
  readonly language = 'javascript' as const;
  private readonly services: SqlServices;
  private idle: QuickJsProcess[] = [];
  private readonly all = new Set<QuickJsProcess>();
  private nextRun = 1;

  constructor(private readonly logger: Logger = nullLogger) {
    this.services = new SqlServices((db) => new SqlService(db, logger));
  }

  async run(request: RunRequest, signal?: AbortSignal): Promise<RunResult> {
    const req = resolveRunRequestFor(request, 'javascript');
    const service = this.services.for(req.databasePath);
    await service.ready();
    const runId = this.nextRun++;
    const proc = this.acquire(req.limits.memoryMb);
    try {
      await proc.ready;
    } catch (error) {
      this.drop(proc);
      throw new AgentMemoryError('RUNNER', `Could not start the JavaScript sandbox (${errorMessage(error)}). Check that Node ${process.version} at ${process.execPath} is runnable.`, undefined, { cause: error });
    }
    const supervised = await proc.run({
      code: req.code,
      now: req.now,
      limits: req.limits,
      signal,
      onMessage: sqlBridge(service, runId, req.now, Date.now() + req.limits.timeoutMs),
    });
    service.release(runId);
    this.releaseProcess(proc);
    return toRunResult(supervised, req.limits, 'javascript');
  }

  dispose(): void {
    for (const proc of this.all) proc.kill();
    this.all.clear();
    this.idle = [];
    this.services.dispose();
  }

  private acquire(memoryMb: number): QuickJsProcess {
    this.idle = this.idle.filter((p) => p.idle || (this.drop(p), false));
    const index = this.idle.findIndex((p) => p.memoryMb === memoryMb);
    if (index >= 0) return this.idle.splice(index, 1)[0];
    const proc = new QuickJsProcess(memoryMb);
    this.all.add(proc);
    return proc;
  }

  private releaseProcess(proc: QuickJsProcess): void {
    if (!proc.idle) {
      this.logger.debug('replacing the JavaScript sandbox process after a killed or failed run');
      this.drop(proc);
      if (this.idle.length === 0) this.idle.push(this.acquire(proc.memoryMb));
      return;
    }
    this.idle.push(proc);
    while (this.idle.length > MAX_IDLE) {
      const extra = this.idle.shift();
      if (extra) this.drop(extra);
    }
  }

  private drop(proc: QuickJsProcess): void {
    proc.kill();
    this.all.delete(proc);
  }
}
