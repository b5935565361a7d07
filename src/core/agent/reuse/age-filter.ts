/**
 * The age group of a question ("in their 20s" = 20–29, "aged 60 or above" = 60+)
 * and its SQL (`admissions.age between 20 and 29`, `admissions.age >= 60`), so the
 * reuse model can reshape one into the other (EHRSQL's age templates mix both).
 */
export type AgeGroup = { kind: 'decade'; from: number } | { kind: 'at-least'; from: number };

/** The age group a question states, if any. */
export function questionAgeGroup(question: string): AgeGroup | null {
  const q = question.toLowerCase();
  const atLeast = /\b(\d{1,3})\s*(?:or|and)\s+(?:above|older|over|more)\b|\b(\d{1,3})\+/.exec(q);
  if (atLeast) return { kind: 'at-least', from: Number(atLeast[1] ?? atLeast[2]) };
  const decade = /\b(\d)0s\b/.exec(q);
  if (decade) return { kind: 'decade', from: Number(decade[1]) * 10 };
  return null;
}

const AGE_SQL = /\b([a-z_][a-z0-9_]*\.age)\s*(?:between\s+\d+\s+and\s+\d+|>=\s*\d+)/gi;

function renderAge(column: string, g: AgeGroup): string {
  return g.kind === 'decade' ? `${column} between ${g.from} and ${g.from + 9}` : `${column} >= ${g.from}`;
}

/**
 * Rewrites every age condition of the code to the new question's age group, when both
 * questions state one; null when either states none or the code has no age condition.
 *
 * @example
 * reshapeAgeFilter('… where admissions.age between 20 and 29 …', 'in their 20s', 'aged 60 or above')?.code;
 * // → '… where admissions.age >= 60 …'
 */
export function reshapeAgeFilter(code: string, oldQuestion: string, newQuestion: string): { code: string; from: string; to: string } | null {
  const from = questionAgeGroup(oldQuestion);
  const to = questionAgeGroup(newQuestion);
  if (!from || !to) return null;
  let first: { from: string; to: string } | null = null;
  const out = code.replace(AGE_SQL, (match: string, column: string) => {
    const next = renderAge(column, to);
    first ??= { from: match, to: next };
    return next;
  });
  return first && out !== code ? { code: out, ...(first as { from: string; to: string }) } : null;
}
