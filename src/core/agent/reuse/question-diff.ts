/**
 * Word-level alignment of two questions: the spans in which they differ are
 * where their literal values (drug names, counts, years …) usually sit.
 */
export interface Change {
  /** Differing words of the old question (original case). */
  from: string[];
  /** The words that replace them in the new question. */
  to: string[];
}

const TOKEN = /[a-z0-9]+(?:[.,%/'’:-]+[a-z0-9]+)*%?|\(|\)|[^\s\w]/gi;

/** Splits a question into words and punctuation, keeping value-like tokens (12.5g, 5%, 2105-01-01) whole. */
export function tokenize(text: string): string[] {
  return (text.match(TOKEN) ?? []).filter((t) => !/^[?!.,;]$/.test(t));
}

/** Longest-common-subsequence alignment of two token lists (case-insensitive), as a list of changes. */
export function diffQuestions(oldQuestion: string, newQuestion: string): Change[] {
  const a = tokenize(oldQuestion);
  const b = tokenize(newQuestion);
  const la = a.map((t) => t.toLowerCase());
  const lb = b.map((t) => t.toLowerCase());
  const n = a.length;
  const m = b.length;
  const dp: Uint16Array[] = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i][j] = la[i] === lb[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  const changes: Change[] = [];
  let cur: Change | null = null;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && la[i] === lb[j]) {
      if (cur) changes.push(cur);
      cur = null;
      i++;
      j++;
    } else if (j < m && (i === n || dp[i][j + 1] >= dp[i + 1][j])) {
      cur ??= { from: [], to: [] };
      cur.to.push(b[j++]);
    } else {
      cur ??= { from: [], to: [] };
      cur.from.push(a[i++]);
    }
  }
  if (cur) changes.push(cur);
  return changes;
}

/** Joins tokens back into text, without spaces inside parentheses. */
export function joinTokens(tokens: string[]): string {
  return tokens.join(' ').replace(/\( /g, '(').replace(/ \)/g, ')');
}
