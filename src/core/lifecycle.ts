/**
 * Lifecycle of long-lived core objects (the pattern of the GitHub Pull Requests
 * extension's src/common/lifecycle.ts, without vscode): an object registers what
 * it owns with `_register` and disposes all of it, newest first, exactly once.
 *
 * @example
 * class Service extends Disposable {
 *   constructor(store: MemoryStore) {
 *     super();
 *     this._register(store.onDidChange(() => this.refresh()));
 *   }
 * }
 */
import type { Disposable as DisposableLike } from './events';

export type { DisposableLike };

/** Wraps a function as a disposable. */
export function toDisposable(dispose: () => void): DisposableLike {
  return { dispose };
}

/** Disposes every item, newest first; one failing item does not stop the others (the first error is rethrown). */
export function disposeAll(items: DisposableLike[]): void {
  let first: unknown;
  while (items.length > 0) {
    try {
      items.pop()!.dispose();
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== undefined) throw first instanceof Error ? first : new Error(String(first));
}

export abstract class Disposable implements DisposableLike {
  private _isDisposed = false;
  private _disposables: DisposableLike[] = [];

  dispose(): void {
    if (this._isDisposed) return;
    this._isDisposed = true;
    disposeAll(this._disposables);
  }

  /** Takes ownership of `value`: disposed with this object (at once if this is already disposed). */
  protected _register<T extends DisposableLike>(value: T): T {
    if (this._isDisposed) value.dispose();
    else this._disposables.push(value);
    return value;
  }

  protected get isDisposed(): boolean {
    return this._isDisposed;
  }
}
