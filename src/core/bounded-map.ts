/**
 * A map bounded by a total weight that drops its oldest entries first (insertion order, as a Map keeps
 * it): the caches that keep what a search worked out for the next searches (relevance's record
 * features, the agreement's call sets) hold at most `capacity` of it. Each entry weighs 1 unless set
 * with its own weight (a group of records under one key weighs its records). Setting a key already held
 * replaces its value and weight and keeps its place; a read does not move an entry.
 *
 * @example
 * ```ts
 * const cache = new BoundedMap<number, string>(2);
 * cache.set(1, 'a').set(2, 'b').set(3, 'c'); // 1 goes: the oldest
 * cache.get(1); // undefined
 * cache.set(2, 'B', 2); // 2 now weighs 2: 3 goes, the entry just set stays
 * ```
 */
export class BoundedMap<K, V> {
  private readonly values = new Map<K, V>();
  /** Weights other than 1 (most entries weigh 1: nothing is held for them). */
  private readonly weights = new Map<K, number>();
  private total = 0;

  /** `capacity`: the total weight held at most (a positive number). */
  constructor(readonly capacity: number) {
    if (!(capacity > 0)) throw new RangeError(`A BoundedMap's capacity must be a positive number (got ${capacity}).`);
  }

  /** Entries held. */
  get size(): number {
    return this.values.size;
  }

  /** Their total weight (at most `capacity`, unless one entry alone weighs more). */
  get weight(): number {
    return this.total;
  }

  get(key: K): V | undefined {
    return this.values.get(key);
  }

  has(key: K): boolean {
    return this.values.has(key);
  }

  /**
   * Holds `value` under `key` with `weight` (≥ 0), then drops the oldest other entries until the total
   * weight is within the capacity (an entry weighing more than the capacity alone is held alone).
   */
  set(key: K, value: V, weight = 1): this {
    if (!(weight >= 0)) throw new RangeError(`A BoundedMap entry's weight must be 0 or more (got ${weight}).`);
    this.total += weight - this.weightOf(key);
    this.values.set(key, value);
    if (weight === 1) this.weights.delete(key);
    else this.weights.set(key, weight);
    if (this.total > this.capacity) {
      for (const oldest of this.values.keys()) {
        if (this.total <= this.capacity) break;
        if (oldest !== key) this.delete(oldest);
      }
    }
    return this;
  }

  delete(key: K): boolean {
    if (!this.values.has(key)) return false;
    this.total -= this.weightOf(key);
    this.weights.delete(key);
    return this.values.delete(key);
  }

  clear(): void {
    this.values.clear();
    this.weights.clear();
    this.total = 0;
  }

  /** Keys, oldest first. */
  keys(): IterableIterator<K> {
    return this.values.keys();
  }

  /** [key, value] pairs, oldest first. */
  entries(): IterableIterator<[K, V]> {
    return this.values.entries();
  }

  private weightOf(key: K): number {
    return this.weights.get(key) ?? (this.values.has(key) ? 1 : 0);
  }
}
