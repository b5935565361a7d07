/** Coalesces bursts of calls (e.g. one change event per task of a stream) into one. */
export interface Debounced {
  (): void;
  /** Runs a pending call now. */
  flush(): void;
  dispose(): void;
}

/**
 * @example
 * const refresh = debounce(() => tree.refresh(), 150);
 * app.onDidChange(() => refresh());
 */
export function debounce(fn: () => void, delayMs: number): Debounced {
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    timer = undefined;
    fn();
  };
  const debounced = (() => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, delayMs);
  }) as Debounced;
  debounced.flush = () => {
    if (!timer) return;
    clearTimeout(timer);
    run();
  };
  debounced.dispose = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return debounced;
}
