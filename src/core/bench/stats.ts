/**
 * Statistics over seeds: mean and the 95 % confidence interval of the mean
 * (Student's t with n − 1 degrees of freedom; a single seed gives [x, x]).
 */

/** Two-sided 97.5 % quantiles of Student's t for 1–30 degrees of freedom. */
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

/** t_{0.975, df}; the normal 1.96 beyond 30 degrees of freedom. */
export function tQuantile975(df: number): number {
  if (df < 1) return Number.NaN;
  return df <= T975.length ? T975[df - 1] : 1.96;
}

export interface MeanCi {
  mean: number;
  ci95: [number, number];
  sd: number;
  n: number;
}

/**
 * @example
 * meanCi([10, 12, 14]); // { mean: 12, ci95: [7.03, 16.97], sd: 2, n: 3 }
 */
export function meanCi(values: readonly number[]): MeanCi {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, ci95: [Number.NaN, Number.NaN], sd: Number.NaN, n: 0 };
  const mean = values.reduce((s, x) => s + x, 0) / n;
  if (n === 1) return { mean, ci95: [mean, mean], sd: 0, n };
  const sd = Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = (tQuantile975(n - 1) * sd) / Math.sqrt(n);
  return { mean, ci95: [mean - half, mean + half], sd, n };
}

/** Rounds to `digits` decimals. */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
