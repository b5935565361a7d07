/**
 * Which templates the active memory holds, kept up to date from the store's
 * change events instead of a table scan per task (the harness asks before
 * every task whether a record of the task's template is active: a scan over
 * `records` with a JSON extract cost ~10 % of a long-stream grid cell).
 * Same answer as `store.queries.activeWithTemplate(t) > 0`: a record counts
 * when its status is `active` and its `metadata.template` is the string `t`
 * (test/unit/bench/grid-speed.test.ts checks the two agree through adds, deletes, restores, purges).
 */
import type { Disposable } from '../events';
import type { MemoryStore } from '../memory/sqlite/store';

/**
 * @example
 * const templates = new ActiveTemplates(store);
 * templates.has('count the number of current patients.'); // after any add / delete / restore
 * templates.dispose();
 */
export class ActiveTemplates implements Disposable {
  /** Template of each active record that has one. */
  private readonly templateOf = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  private readonly subscription: Disposable;

  constructor(private readonly store: MemoryStore) {
    for (const { id } of store.activeTexts()) this.refresh(id);
    // Events fire synchronously once a change has committed (src/core/memory/sqlite/commit-queue.ts).
    this.subscription = store.onDidChange((e) => {
      if (e.kind === 'added' || e.kind === 'status' || e.kind === 'purged') for (const id of e.ids) this.refresh(id);
    });
  }

  /** Whether an active record of `template` exists. */
  has(template: string): boolean {
    return (this.counts.get(template) ?? 0) > 0;
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private refresh(id: string): void {
    const before = this.templateOf.get(id);
    if (before !== undefined) {
      this.templateOf.delete(id);
      this.counts.set(before, (this.counts.get(before) ?? 1) - 1);
    }
    const rec = this.store.get(id);
    const template = rec?.status === 'active' ? rec.metadata.template : undefined;
    if (typeof template === 'string') {
      this.templateOf.set(id, template);
      this.counts.set(template, (this.counts.get(template) ?? 0) + 1);
    }
  }
}
