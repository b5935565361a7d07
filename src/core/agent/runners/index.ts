import { AgentMemoryError } from '../../errors';
import { nullLogger, type Logger } from '../../logger';
import { JavaScriptRunner } from './js-runner';
import { PythonRunner, DEFAULT_PYTHON } from './python-runner';
import type { RunnerIsolation } from './python-sandbox';
import { RunLanguageSchema, type CodeRunner, type RunLanguage } from './types';

export { toolboxDocs } from '../toolbox/docs';
export { toEhrSqlDialect } from './sql-dialect';
export { JavaScriptRunner } from './js-runner';
export { PythonRunner, DEFAULT_PYTHON } from './python-runner';
export { RUNNER_ISOLATIONS, type RunnerIsolation } from './python-sandbox';
export {
  DEFAULT_NOW,
  DEFAULT_RUN_LIMITS,
  resolveRunRequest,
  RunRequestSchema,
  type CodeRunner,
  type KilledBy,
  type RunError,
  type RunLanguage,
  type RunLimits,
  type RunOutcome,
  type RunRequest,
  type RunResult,
} from './types';

/** Options of createRunner. */
export interface CreateRunnerOptions {
  logger?: Logger;
  /** Python interpreter (default `python3` on PATH). */
  pythonPath?: string;
  /** Python isolation: "sandbox" (default; refuses to run where none can be set up) or "none" (unconfined, opt-in). */
  isolation?: RunnerIsolation;
}

/**
 * Creates the sandboxed runner for `language`. Call `dispose()` when done
 * (the JavaScript runner keeps a read-only SQL helper process per database).
 *
 * @example
 * const runner = createRunner('python');
 * const result = await runner.run({ language: 'python', databasePath: 'data/ehr/mimic3-demo.sqlite',
 *   code: "answer = sql('select count(*) from patients')" }, abortSignal);
 * if (result.outcome === 'success') use(result.answer); // [[100]]
 * runner.dispose();
 */
export function createRunner(language: RunLanguage, options: CreateRunnerOptions = {}): CodeRunner {
  const parsed = RunLanguageSchema.safeParse(language);
  if (!parsed.success) {
    throw new AgentMemoryError('CONFIG', `Unknown runner language ${JSON.stringify(language)}; use "javascript" or "python".`);
  }
  const logger = options.logger ?? nullLogger;
  return parsed.data === 'python' ? new PythonRunner(logger, options.pythonPath ?? DEFAULT_PYTHON, options.isolation ?? 'sandbox') : new JavaScriptRunner(logger);
}
