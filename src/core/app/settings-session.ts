/**
 * The settings a running app works with, and WHEN they change: between tasks,
 * never in the middle of one. `configure` during a task keeps the newest
 * settings pending and applies them as soon as no task runs any more; services
 * rebuild what depends on them in `onDidApply`.
 */
import { Emitter } from '../events';
import { Disposable } from '../lifecycle';
import type { Settings } from '../settings';

export interface AppliedSettings {
  settings: Settings;
  apiKey: string | undefined;
  /** The settings before this change. */
  previous: Settings;
}

/**
 * @example
 * const session = new SettingsSession(settings, apiKey);
 * session.onDidApply(({ settings }) => rebuild(settings));
 * await session.runTask(async (settings) => run(settings)); // settings fixed for the task
 */
export class SettingsSession extends Disposable {
  private current: { settings: Settings; apiKey: string | undefined };
  private pending: { settings: Settings; apiKey: string | undefined } | null = null;
  private running = 0;
  private readonly applied = this._register(new Emitter<AppliedSettings>());
  /** Fires after new settings took effect (always between tasks). */
  readonly onDidApply = this.applied.event;

  constructor(settings: Settings, apiKey: string | undefined) {
    super();
    this.current = { settings, apiKey };
  }

  get settings(): Settings {
    return this.current.settings;
  }

  get apiKey(): string | undefined {
    return this.current.apiKey;
  }

  /** True while settings wait for the running task(s) to finish. */
  get hasPending(): boolean {
    return this.pending !== null;
  }

  /** New settings: applied now when no task runs, else when the last running task ends (the newest wins). */
  configure(settings: Settings, apiKey: string | undefined): 'applied' | 'deferred' {
    this.pending = { settings, apiKey };
    if (this.running > 0) return 'deferred';
    this.applyPending();
    return 'applied';
  }

  /** Runs one task with the settings fixed for its whole duration. */
  async runTask<T>(task: (settings: Settings) => Promise<T>): Promise<T> {
    this.running++;
    try {
      return await task(this.current.settings);
    } finally {
      this.running--;
      if (this.running === 0) this.applyPending();
    }
  }

  private applyPending(): void {
    const next = this.pending;
    if (!next || this.isDisposed) return;
    this.pending = null;
    const previous = this.current.settings;
    this.current = next;
    this.applied.fire({ ...next, previous });
  }
}
