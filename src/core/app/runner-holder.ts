/** Owns the sandboxed code runner: one per language, swapped only between tasks. */
import { createRunner, CodeRunner } from '../agent/runners';
import { Disposable } from '../lifecycle';
import type { Logger } from '../logger';
import type { Language } from '../memory/types';

export class RunnerHolder extends Disposable {
  private language: Language;
  private current: CodeRunner;

  constructor(language: Language, private readonly logger: Logger) {
    super();
    this.language = language;
    this.current = createRunner(language, { logger });
    this._register({ dispose: () => this.current.dispose() });
  }

  get runner(): CodeRunner {
    return this.current;
  }

  /** Switches the language (disposing the old runner). Call it between tasks only (SettingsSession.onDidApply). */
  use(language: Language): void {
    if (language === this.language || this.isDisposed) return;
    const old = this.current;
    this.current = createRunner(language, { logger: this.logger });
    this.language = language;
    old.dispose();
  }
}
