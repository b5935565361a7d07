import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentMemoryError, errorMessage } from '../../errors';
import { nullLogger, type Logger } from '../../logger';
import { PY_BOOTSTRAP_SOURCE, PY_USER_FILE } from './python-bootstrap-source';
import { toRunResult } from './run-result';
import { supervise } from './supervisor';
import { resolveRunRequestFor, type CodeRunner, type RunRequest, type RunResult } from './types';

/** Default interpreter, looked up on PATH. */
export const DEFAULT_PYTHON = 'python3';

/**
 * Runs Python in a `python3 -I -B -u` subprocess: resource limits (address
 * space, CPU seconds) set by a bootstrap, a wall-clock SIGKILL, an output cap,
 * read-only SQL through the stdlib sqlite3 (`mode=ro` + authorizer), and a
 * best-effort audit hook refusing process spawning and writes outside the
 * run's temp dir. Throws AgentMemoryError('RUNNER') when the interpreter is missing.
 *
 * @example
 * const runner = new PythonRunner();
 * const r = await runner.run({ language: 'python', databasePath: db, code: "answer = sql('select 1')" });
 */
export class PythonRunner implements CodeRunner {
  readonly language = 'python' as const;

  constructor(
    private readonly logger: Logger = nullLogger,
    private readonly pythonPath: string = DEFAULT_PYTHON,
  ) {}

  async run(request: RunRequest, signal?: AbortSignal): Promise<RunResult> {
    const req = resolveRunRequestFor(request, 'python');
    const databasePath = req.databasePath;
    const workDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-py-')));
    try {
      fs.writeFileSync(path.join(workDir, PY_USER_FILE), req.code, 'utf8');
      const cpuSeconds = Math.max(1, Math.ceil(req.limits.timeoutMs / 1000));
      const supervised = await supervise({
        command: this.pythonPath,
        args: ['-I', '-B', '-u', '-c', PY_BOOTSTRAP_SOURCE, workDir, databasePath, req.now, String(req.limits.memoryMb), String(cpuSeconds)],
        cwd: workDir,
        env: { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', TZ: 'UTC', HOME: workDir, TMPDIR: workDir, PATH: process.env.PATH ?? '' },
        limits: req.limits,
        signal,
      });
      return toRunResult(supervised, req.limits, 'python');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        const message =
          this.pythonPath === DEFAULT_PYTHON
            ? 'python3 was not found on PATH; install Python 3 or set agentMemory.runner.language to javascript'
            : `${this.pythonPath} was not found; install Python 3, fix the Python path, or set agentMemory.runner.language to javascript`;
        throw new AgentMemoryError('RUNNER', message, { pythonPath: this.pythonPath }, { cause: error });
      }
      if (error instanceof AgentMemoryError) throw error;
      this.logger.error(`Python sandbox failed: ${errorMessage(error)}`);
      throw new AgentMemoryError('RUNNER', `Could not start the Python sandbox (${errorMessage(error)}). Check the Python installation.`, undefined, { cause: error });
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  }

  dispose(): void {
    // Nothing is kept between Python runs.
  }
}
