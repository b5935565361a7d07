/**
 * A faithful port of the matching part of CPython 3.11 `difflib.SequenceMatcher`
 * with `isjunk=None`: `find_longest_match` (including its junk/popular extension
 * loops) and `get_matching_blocks`, plus the `autojunk` "popular element"
 * heuristic that applies when the second sequence has 200 or more items.
 *
 * Items are compared with `===` after interning, so any string sequence works.
 */

/** difflib's autojunk threshold: the heuristic applies when `len(b) >= 200`. */
export const AUTOJUNK_MIN_LENGTH = 200;

/** Interns strings to small integers shared by both sequences of one comparison. */
function intern(a: readonly string[], b: readonly string[]): { ia: Int32Array; ib: Int32Array; alphabet: number } {
  const ids = new Map<string, number>();
  const map = (s: readonly string[]): Int32Array => {
    const out = new Int32Array(s.length);
    for (let i = 0; i < s.length; i++) {
      let id = ids.get(s[i]);
      if (id === undefined) {
        id = ids.size;
        ids.set(s[i], id);
      }
      out[i] = id;
    }
    return out;
  };
  const ia = map(a);
  const ib = map(b);
  return { ia, ib, alphabet: ids.size };
}

/**
 * Sum of the sizes of `difflib.SequenceMatcher(None, a, b).get_matching_blocks()`.
 *
 * @example
 * sequenceMatcherMatches(['a', 'b', 'c'], ['a', 'x', 'c']); // 2
 */
export function sequenceMatcherMatches(a: readonly string[], b: readonly string[], autojunk = true): number {
  const { ia, ib, alphabet } = intern(a, b);
  return matchInterned(ia, ib, alphabet, autojunk);
}

/** Same as {@link sequenceMatcherMatches} on already interned sequences (ids in [0, alphabet)). */
export function matchInterned(a: Int32Array, b: Int32Array, alphabet: number, autojunk = true): number {
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  // b2j: element -> increasing list of indices in b (CPython __chain_b).
  const b2j: (number[] | undefined)[] = new Array(alphabet);
  for (let j = 0; j < lb; j++) {
    const list = b2j[b[j]];
    if (list) list.push(j);
    else b2j[b[j]] = [j];
  }
  // isjunk is None, so bjunk is empty; only the popularity heuristic removes items.
  if (autojunk && lb >= AUTOJUNK_MIN_LENGTH) {
    const ntest = Math.floor(lb / 100) + 1;
    for (let e = 0; e < alphabet; e++) {
      const list = b2j[e];
      if (list && list.length > ntest) b2j[e] = undefined;
    }
  }
  // j2len rows indexed by j+1 (so that j-1 = -1 maps to slot 0); reset via touched lists.
  let prev = new Int32Array(lb + 1);
  let next = new Int32Array(lb + 1);
  let prevTouched: number[] = [];
  let nextTouched: number[] = [];

  const longest = (alo: number, ahi: number, blo: number, bhi: number): [number, number, number] => {
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    for (let i = alo; i < ahi; i++) {
      const js = b2j[a[i]];
      if (js) {
        for (let x = 0; x < js.length; x++) {
          const j = js[x];
          if (j < blo) continue;
          if (j >= bhi) break;
          const k = prev[j] + 1; // prev[j] == j2len[j-1]
          next[j + 1] = k;
          nextTouched.push(j + 1);
          if (k > bestsize) {
            besti = i - k + 1;
            bestj = j - k + 1;
            bestsize = k;
          }
        }
      }
      for (let t = 0; t < prevTouched.length; t++) prev[prevTouched[t]] = 0;
      const swap = prev;
      prev = next;
      next = swap;
      const swapT = prevTouched;
      prevTouched = nextTouched;
      nextTouched = swapT;
      nextTouched.length = 0;
    }
    for (let t = 0; t < prevTouched.length; t++) prev[prevTouched[t]] = 0;
    prevTouched.length = 0;
    // Extend with non-junk equal elements (bjunk is empty, so every element qualifies,
    // popular ones included, exactly as in CPython).
    while (besti > alo && bestj > blo && a[besti - 1] === b[bestj - 1]) {
      besti--;
      bestj--;
      bestsize++;
    }
    while (besti + bestsize < ahi && bestj + bestsize < bhi && a[besti + bestsize] === b[bestj + bestsize]) bestsize++;
    // The junk extension loops of CPython never fire without junk.
    return [besti, bestj, bestsize];
  };

  let total = 0;
  const queue: number[] = [0, la, 0, lb];
  while (queue.length > 0) {
    const bhi = queue.pop() as number;
    const blo = queue.pop() as number;
    const ahi = queue.pop() as number;
    const alo = queue.pop() as number;
    const [i, j, k] = longest(alo, ahi, blo, bhi);
    if (k > 0) {
      total += k;
      if (alo < i && blo < j) queue.push(alo, i, blo, j);
      if (i + k < ahi && j + k < bhi) queue.push(i + k, ahi, j + k, bhi);
    }
  }
  return total;
}
