/**
 * The misaligned-experience-replay rule (paper §5.3, SPEC §4), defined once: a
 * record whose retrievals show a high mean input similarity but a low mean output
 * similarity (mean input ≥ minInputSimilarity and mean output ≤ maxOutputSimilarity,
 * both means known). The TypeScript predicate and the SQL condition below are the
 * same rule; the explorer, the dashboard, the listing filter and the metrics use them.
 */
export interface MisalignedThresholds {
  minInputSimilarity: number;
  maxOutputSimilarity: number;
}

/** Defaults of agentMemory.misaligned.* (the settings schema uses the same numbers). */
export const DEFAULT_MISALIGNED: MisalignedThresholds = { minInputSimilarity: 0.6, maxOutputSimilarity: 0.5 };

/**
 * The rule on a record's mean similarities (null = no retrieval with that similarity yet).
 *
 * @example
 * isMisaligned({ meanInputSimilarity: 0.9, meanOutputSimilarity: 0.3 }); // true
 */
export function isMisaligned(stats: { meanInputSimilarity: number | null; meanOutputSimilarity: number | null }, thresholds: MisalignedThresholds = DEFAULT_MISALIGNED): boolean {
  const { meanInputSimilarity: input, meanOutputSimilarity: output } = stats;
  return input !== null && output !== null && input >= thresholds.minInputSimilarity && output <= thresholds.maxOutputSimilarity;
}

/** The rule as an SQL condition on `records` (named parameters from misalignedParams). */
export const MISALIGNED_CONDITION = 'in_sim_count > 0 AND out_sim_count > 0 AND in_sim_sum / in_sim_count >= @misalignedMinIn AND out_sim_sum / out_sim_count <= @misalignedMaxOut';

/** The named parameters of MISALIGNED_CONDITION. */
export function misalignedParams(thresholds: MisalignedThresholds = DEFAULT_MISALIGNED): { misalignedMinIn: number; misalignedMaxOut: number } {
  return { misalignedMinIn: thresholds.minInputSimilarity, misalignedMaxOut: thresholds.maxOutputSimilarity };
}
