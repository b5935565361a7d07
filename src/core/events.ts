/** A tiny typed event emitter for the core (the VS Code adapter bridges it to vscode.EventEmitter). */
export type Listener<T> = (event: T) => void;

export interface Disposable {
  dispose(): void;
}

export class Emitter<T> {
  private listeners = new Set<Listener<T>>();

  /** Subscribe; returns a disposable that unsubscribes. */
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(event: T): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  dispose(): void {
    this.listeners.clear();
  }
}
