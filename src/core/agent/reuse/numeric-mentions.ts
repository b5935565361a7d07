/**
 * Numbers mentioned in a question, in order: digits, number words, ordinals,
 * decades ("20s"), and relative periods ("this year" = 0, "last year" = 1,
 * "2 years ago" = 2), and durations ("three-year" = 3, kind `duration`, which the
 * SQL writes as `3 * 365`: never confused with a count such as "top three").
 * The reuse model maps them positionally between questions, kind by kind.
 */
export type MentionKind = 'number' | 'decade' | 'relative' | 'duration';

export interface NumericMention {
  kind: MentionKind;
  value: number;
  /** For relative mentions: the unit (year, month, day). */
  unit?: string;
}

const WORDS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7,
  eighth: 8, ninth: 9, tenth: 10, once: 1, twice: 2, single: 1, a: 1, an: 1,
};

const RELATIVE = /\b(?:(this|current|last|previous|past|prior)\s+(year|month|day)|(\d+|one|two|three|four|five|six|seven|eight|nine|ten|a|an)\s+(year|month|day|week)s?\s+ago)\b/gi;
const NUMBERS = /\b(\d+(?:\.\d+)?)(s)?\b|\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|once|twice)\b/gi;

export function numericMentions(question: string): NumericMention[] {
  const found: { index: number; mention: NumericMention }[] = [];
  const covered: [number, number][] = [];
  for (const m of question.matchAll(RELATIVE)) {
    const index = m.index ?? 0;
    covered.push([index, index + m[0].length]);
    if (m[1]) {
      const word = m[1].toLowerCase();
      found.push({ index, mention: { kind: 'relative', value: word === 'this' || word === 'current' ? 0 : 1, unit: m[2].toLowerCase() } });
    } else {
      const raw = m[3].toLowerCase();
      found.push({ index, mention: { kind: 'relative', value: /^\d+$/.test(raw) ? Number(raw) : WORDS[raw], unit: m[4].toLowerCase() } });
    }
  }
  for (const m of question.matchAll(NUMBERS)) {
    const index = m.index ?? 0;
    if (covered.some(([s, e]) => index >= s && index < e)) continue;
    // Values inside names ("12.5g", "5%") are not counts: skip tokens glued to letters or '%'.
    const after = question.slice(index + m[0].length, index + m[0].length + 2);
    const before = question[index - 1] ?? '';
    if (/^([%a-z/]|[.,]\d)/i.test(after) && !m[2]) continue;
    if (/[a-z/.]/i.test(before)) continue;
    // "three-year" / "5-year": a duration, not a count.
    if (/^-year/i.test(question.slice(index + m[0].length, index + m[0].length + 5))) {
      found.push({ index, mention: { kind: 'duration', value: m[1] ? Number(m[1]) : WORDS[m[3].toLowerCase()], unit: 'year' } });
      continue;
    }
    if (m[1]) {
      found.push({ index, mention: { kind: m[2] ? 'decade' : 'number', value: Number(m[1]) } });
    } else {
      found.push({ index, mention: { kind: 'number', value: WORDS[m[3].toLowerCase()] } });
    }
  }
  return found.sort((x, y) => x.index - y.index).map((f) => f.mention);
}
