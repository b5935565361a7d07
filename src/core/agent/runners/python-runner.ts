import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentMemoryError, errorMessage } from '../../errors';
import { nullLogger, type Logger } from '../../logger';
import { PY_BOOTSTRAP_SOURCE, PY_USER_FILE } from './python-bootstrap-source';
import { bwrapArgs, checkSandbox, resolvePython, SANDBOX_WORK_DIR, type PythonInterpreter, type RunnerIsolation } from './python-sandbox';
import { toRunResult } from './run-result';
import { sqlBridge, SqlServices } from './sql-bridge';
import { SqlService } from './sql-service';
import { supervise } from './supervisor';
import { resolveRunRequestFor, type CodeRunner, type RunRequest, type RunResult } from './types';

/** Default interpreter, looked up on PATH. */
export const DEFAULT_PYTHON = 'python3';

interface Prepared {
  python: PythonInterpreter;
  /** The bwrap binary; undefined when isolation is "none". */
  bwrap?: string;
}

/**
 * Runs Python behind an OS boundary: `python3 -I -B -u` inside bubblewrap (new
 * user, mount, pid and net namespaces, empty environment, only the interpreter,
 * its libraries and the run's working directory visible), with resource limits,
 * a wall-clock SIGKILL that takes the whole pid namespace down, and an output
 * cap. `sql()` is answered over fd 3 by a read-only SQL service in a separate
 * process; the program never holds a database handle. Where no sandbox can be
 * set up, runs are refused with AgentMemoryError('RUNNER') naming the cause,
 * unless `isolation` is "none" (unconfined, opt-in).
 *
 * @example
 * const runner = new PythonRunner();
 * const r = await runner.run({ language: 'python', databasePath: db, code: "answer = sql('select 1')" });
 * runner.dispose();
 */
export class PythonRunner implements CodeRunner {
  readonly language = 'python' as const;
  private readonly services: SqlServices;
  private prepared: Promise<Prepared> | undefined;
  private nextRun = 1;

  constructor(
    private readonly logger: Logger = nullLogger,
    private readonly pythonPath: string = DEFAULT_PYTHON,
    readonly isolation: RunnerIsolation = 'sandbox',
  ) {
    this.services = new SqlServices((db) => new SqlService(db, logger));
  }

  async run(request: RunRequest, signal?: AbortSignal): Promise<RunResult> {
    const req = resolveRunRequestFor(request, 'python');
    const { python, bwrap } = await this.prepare();
    const service = this.services.for(req.databasePath);
    await service.ready();
    const runId = this.nextRun++;
    const workDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-py-')));
    try {
      fs.writeFileSync(path.join(workDir, PY_USER_FILE), req.code, 'utf8');
      const cpuSeconds = Math.max(1, Math.ceil(req.limits.timeoutMs / 1000));
      const inner = bwrap === undefined ? workDir : SANDBOX_WORK_DIR;
      const env = { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC', HOME: inner, TMPDIR: inner };
      const pyArgs = ['-I', '-B', '-u', '-c', PY_BOOTSTRAP_SOURCE, inner, req.now, String(req.limits.memoryMb), String(cpuSeconds)];
      const supervised = await supervise({
        command: bwrap ?? python.executable,
        args: bwrap === undefined ? pyArgs : [...bwrapArgs(python, workDir, env), python.executable, ...pyArgs],
        cwd: workDir,
        env: bwrap === undefined ? env : {},
        limits: req.limits,
        signal,
        onMessage: sqlBridge(service, runId, req.now, Date.now() + req.limits.timeoutMs),
      });
      service.release(runId);
      return toRunResult(supervised, req.limits, 'python');
    } catch (error) {
      service.release(runId);
      if (error instanceof AgentMemoryError) throw error;
      this.logger.error(`Python sandbox failed: ${errorMessage(error)}`);
      throw new AgentMemoryError('RUNNER', `Could not start the Python sandbox (${errorMessage(error)}). Check the Python and bubblewrap installation.`, undefined, { cause: error });
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  }

  dispose(): void {
    this.services.dispose();
  }

  /** Resolves the interpreter and checks the sandbox once per runner (a failure is retried next run). */
  private prepare(): Promise<Prepared> {
    if (!this.prepared) {
      this.prepared = this.doPrepare();
      this.prepared.catch(() => {
        this.prepared = undefined;
      });
    }
    return this.prepared;
  }

  private async doPrepare(): Promise<Prepared> {
    let python: PythonInterpreter;
    try {
      python = await resolvePython(this.pythonPath);
    } catch (error) {
      const message =
        this.pythonPath === DEFAULT_PYTHON
          ? 'python3 was not found on PATH; install Python 3 or set agentMemory.runner.language to javascript'
          : `${this.pythonPath} was not found or does not run; install Python 3, fix the Python path, or set agentMemory.runner.language to javascript`;
      throw new AgentMemoryError('RUNNER', message, { pythonPath: this.pythonPath }, { cause: error });
    }
    if (this.isolation === 'none') {
      this.logger.warn('Python runs are NOT sandboxed (agentMemory.runner.isolation is "none"): generated code can read files, the network and the environment.');
      return { python };
    }
    const probeDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-py-probe-')));
    try {
      return { python, bwrap: await checkSandbox(python, probeDir) };
    } finally {
      fs.rmSync(probeDir, { recursive: true, force: true });
    }
  }
}
