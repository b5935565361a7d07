/**
 * A value computed from a file and kept while the file stays the same (path, size and mtime): the
 * data fingerprint, the values of the agent's database. One file at a time: another path or a changed
 * file computes again. A `compute` that throws keeps nothing (the next call tries again), nor does one
 * whose promise rejects (once it has).
 *
 * @example
 * ```ts
 * const fingerprintOf = perFileVersion((file) => databaseFingerprint(file).id);
 * fingerprintOf('data.sqlite'); // read once, again only after the file changed
 * ```
 */
import * as fs from 'node:fs';

export function perFileVersion<T>(compute: (file: string, size: number) => T): (file: string) => T {
  let held: { key: string; value: T } | null = null;
  return (file) => {
    const st = fs.statSync(file);
    const key = `${file}\u0000${st.size}\u0000${st.mtimeMs}`;
    if (held?.key !== key) {
      const entry = { key, value: compute(file, st.size) };
      held = entry;
      if (entry.value instanceof Promise) entry.value.catch(() => (held === entry ? (held = null) : undefined));
    }
    return held.value;
  };
}
