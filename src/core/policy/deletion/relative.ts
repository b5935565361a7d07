/**
 * The relative threshold of the history rule (a labelled mode beyond the paper,
 * setting agentMemory.deletion.historyThreshold = `relative`; issue 19).
 *
 * Why: the paper's absolute β = 0.7 assumes an agent that succeeds ≥ 70 % of the
 * time with a good demonstration. With Φ given to every shown record, a record's
 * mean Φ is close to the agent's own accuracy, so an agent below β loses records
 * that are no worse than average, and each freed slot is filled by another record
 * that collects the same zeros (the deletion cascades).
 *
 * Rule: delete a record (with at least n evaluated retrievals, as the paper) when
 * the upper end of the Wilson score interval of its mean Φ lies below the agent's
 * running accuracy a (mean Φ over every evaluated task up to t): the record is,
 * with confidence, worse than the agent's average demonstration.
 *
 * z is fixed in advance at 1.96 (the conventional two-sided 95 % interval), chosen
 * before any run and not tuned: with n = 5 and all Φ = 0 the upper end is
 * z²/(n + z²) ≈ 0.43, so a record needs about 9 failures in a row to go against an
 * agent right 31 % of the time.
 *
 * The Wilson interval is the set of p with (p̂ − p)² ≤ z²·p(1 − p)/c. Its upper end
 * is below a exactly when p̂ < a and (p̂ − a)² > z²·a(1 − a)/c, i.e. with s = Σ Φ and
 * c = count: s < a·c and (s − a·c)² > z²·a(1 − a)·c. The SQL of the deletion
 * queries evaluates that polynomial form (no square root), and so does
 * `belowRunningAccuracy`; `wilsonUpper` gives the bound itself for evidence and tests.
 */

/** z of the Wilson interval, fixed in advance (two-sided 95 %). */
export const RELATIVE_Z = 1.96;

/**
 * Upper end of the Wilson score interval of a mean of `count` values in [0, 1] summing to `sum`.
 *
 * @example
 * wilsonUpper(0, 5); // ≈ 0.4345 (= 1.96² / (5 + 1.96²))
 */
export function wilsonUpper(sum: number, count: number, z = RELATIVE_Z): number {
  if (count <= 0) return 1;
  const p = sum / count;
  const z2 = z * z;
  const centre = p + z2 / (2 * count);
  const spread = z * Math.sqrt((p * (1 - p)) / count + z2 / (4 * count * count));
  return Math.min(1, (centre + spread) / (1 + z2 / count));
}

/**
 * Whether the Wilson upper bound of mean Φ (sum over count) lies below the running
 * accuracy `accuracy`, in the polynomial form the SQL uses (see the module notes).
 *
 * @example
 * belowRunningAccuracy(0, 10, 0.31); // true: upper end ≈ 0.278 < 0.31
 * belowRunningAccuracy(0, 5, 0.31);  // false: upper end ≈ 0.434
 */
export function belowRunningAccuracy(sum: number, count: number, accuracy: number, z = RELATIVE_Z): boolean {
  if (count <= 0) return false;
  const gap = sum - accuracy * count;
  return gap < 0 && gap * gap > z * z * accuracy * (1 - accuracy) * count;
}
