/** Owns the sandboxed code runner: one per (language, isolation), swapped only between tasks. */
import { createRunner, CodeRunner } from '../agent/runners';
import { Disposable } from '../lifecycle';
import type { Logger } from '../logger';
import type { Settings } from '../settings';

type RunnerSettings = Pick<Settings['runner'], 'language' | 'isolation'>;

export class RunnerHolder extends Disposable {
  private config: RunnerSettings;
  private current: CodeRunner;

  constructor(config: RunnerSettings, private readonly logger: Logger) {
    super();
    this.config = { language: config.language, isolation: config.isolation };
    this.current = createRunner(config.language, { logger, isolation: config.isolation });
    this._register({ dispose: () => this.current.dispose() });
  }

  get runner(): CodeRunner {
    return this.current;
  }

  /** Switches language or isolation (disposing the old runner). Call it between tasks only (SettingsSession.onDidApply). */
  use(config: RunnerSettings): void {
    if ((config.language === this.config.language && config.isolation === this.config.isolation) || this.isDisposed) return;
    const old = this.current;
    this.current = createRunner(config.language, { logger: this.logger, isolation: config.isolation });
    this.config = { language: config.language, isolation: config.isolation };
    old.dispose();
  }
}
