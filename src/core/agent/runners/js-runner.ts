import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentMemoryError, errorMessage } from '../../errors';
import { nullLogger, type Logger } from '../../logger';
import { JS_CHILD_SOURCE, JS_USER_FILE } from './js-child-source';
import { toRunResult } from './run-result';
import { toEhrSqlDialect } from './sql-dialect';
import { SqlService } from './sql-service';
import { supervise } from './supervisor';
import { ChildSqlRequestSchema, resolveRunRequestFor, type CodeRunner, type RunRequest, type RunResult } from './types';

/** Extra resident memory allowed above the heap limit (Node's own footprint, buffers). */
const RSS_HEADROOM_MB = 160;

/**
 * Runs JavaScript in a separate `node` process under Node's permission model:
 * reads and writes only inside a fresh temp dir (no child processes, no
 * workers, no native addons), `--max-old-space-size` plus an RSS watchdog for
 * memory, a wall-clock SIGKILL, an output cap. SQL is served read-only by a
 * helper process kept per database (see SqlService).
 *
 * @example
 * const runner = new JavaScriptRunner();
 * const r = await runner.run({ language: 'javascript', databasePath: db, code: "answer = sql('select 1')" });
 * runner.dispose();
 */
export class JavaScriptRunner implements CodeRunner {
  readonly language = 'javascript' as const;
  private readonly services = new Map<string, SqlService>();
  private nextRun = 1;

  constructor(private readonly logger: Logger = nullLogger) {}

  async run(request: RunRequest, signal?: AbortSignal): Promise<RunResult> {
    const req = resolveRunRequestFor(request, 'javascript');
    const databasePath = req.databasePath;
    const service = this.serviceFor(databasePath);
    const runId = this.nextRun++;
    const workDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-js-')));
    try {
      fs.writeFileSync(path.join(workDir, JS_USER_FILE), req.code, 'utf8');
      const args = [
        '--experimental-permission',
        `--allow-fs-read=${workDir}`,
        `--allow-fs-write=${workDir}`,
        `--max-old-space-size=${req.limits.memoryMb}`,
        '--disable-warning=ExperimentalWarning',
        '-e',
        JS_CHILD_SOURCE,
        workDir,
        req.now,
      ];
      const supervised = await supervise({
        command: process.execPath,
        args,
        cwd: workDir,
        env: { LANG: 'C.UTF-8', TZ: 'UTC', HOME: workDir, TMPDIR: workDir },
        limits: req.limits,
        signal,
        rssLimitMb: req.limits.memoryMb + RSS_HEADROOM_MB,
        onMessage: (message, reply) => {
          const parsed = ChildSqlRequestSchema.safeParse(message);
          if (!parsed.success) {
            reply({ ok: false, error: { kind: 'ProtocolError', message: 'malformed toolbox request' } });
            return;
          }
          const sqlRequest = { ...parsed.data, query: toEhrSqlDialect(parsed.data.query, req.now) };
          service.query(runId, sqlRequest).then(reply, (error: unknown) =>
            reply({ ok: false, error: { kind: 'SqlError', message: errorMessage(error) } }),
          );
        },
      });
      service.release(runId);
      return toRunResult(supervised, req.limits, 'javascript');
    } catch (error) {
      service.release(runId);
      if (error instanceof AgentMemoryError) throw error;
      throw new AgentMemoryError('RUNNER', `Could not start the JavaScript sandbox (${errorMessage(error)}). Check that Node ${process.version} at ${process.execPath} is runnable.`, undefined, { cause: error });
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  }

  dispose(): void {
    for (const service of this.services.values()) service.dispose();
    this.services.clear();
  }

  private serviceFor(databasePath: string): SqlService {
    let service = this.services.get(databasePath);
    if (!service) {
      service = new SqlService(databasePath, this.logger);
      this.services.set(databasePath, service);
    }
    return service;
  }
}
