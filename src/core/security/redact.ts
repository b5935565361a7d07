/**
 * The one redaction module: every write path (records, import, role memories,
 * task log), every log line and every model error message passes its text
 * through `redact` before it reaches disk, a log, an export or a prompt.
 *
 * A secret is replaced by `[redacted:<kind>]`. Rules run in a fixed order,
 * most specific first, so a GitHub token is reported as `github-token` rather
 * than by the high-entropy fallback. Already-redacted markers are never
 * touched again (redaction is idempotent).
 *
 * Pure and allocation-light: a text without any candidate costs one pass of a
 * few precompiled regular expressions.
 *
 * @example
 * const { text, count, byKind } = redact('key = "sk-proj-abc…"');
 * // text: 'key = "[redacted:openai-key]"', count: 1, byKind: { 'openai-key': 1 }
 */

export const SECRET_KINDS = [
  'private-key',
  'anthropic-key',
  'openai-key',
  'aws-access-key',
  'aws-secret-key',
  'github-token',
  'slack-token',
  'slack-webhook',
  'google-api-key',
  'google-oauth',
  'jwt',
  'url-credentials',
  'assignment',
  'high-entropy',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export type RedactionCounts = Partial<Record<SecretKind, number>>;

export interface RedactionResult {
  text: string;
  /** Number of secrets replaced. */
  count: number;
  byKind: RedactionCounts;
}

/** The marker a secret of `kind` is replaced by. */
export function marker(kind: SecretKind): string {
  return `[redacted:${kind}]`;
}

const MARKER_RE = /\[redacted:[a-z-]+\]/;

/** Names of variables / keys whose literal value is a secret (`db_password`, `GITHUB_TOKEN`, `clientSecret`, `"api_key"`). */
const SECRET_NAME = String.raw`[A-Za-z0-9_\-]*?(?:passw(?:or)?d|pwd|secret|token|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|credentials?)[A-Za-z0-9_\-]*`;
const SECRET_NAME_RE = new RegExp(`^${SECRET_NAME}$`, 'i');
/** Names that hold something about a secret, not the secret (`TokenKind`, `API_KEY_ENV`, `max_tokens`). */
const NOT_SECRET_NAME_RE = /(?:kinds?|types?|counts?|names?|length|len|size|limit|file|path|field|label|url|uri|endpoint|header|env|var|prefix|setting|id)["']?$/i;
/** Quoted values that are names, not secrets: dotted setting keys (`agentMemory.model.apiKey`). */
const NAME_VALUE_RE = /^[A-Za-z_][\w\-]*(?:\.[A-Za-z_][\w\-]*)+$/;

interface Rule {
  kind: SecretKind;
  re: RegExp;
  /** Builds the replacement from the match; return null to keep the match as it is. */
  replace?: (match: string, groups: string[]) => string | null;
}

const RULES: readonly Rule[] = [
  // PEM / OpenSSH / PGP private key blocks (an unterminated block is redacted to the end of the text).
  { kind: 'private-key', re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  { kind: 'anthropic-key', re: /\bsk-ant-[A-Za-z0-9]{2,10}-[A-Za-z0-9_\-]{20,}/g },
  // sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…: the tail must hold a digit (identifiers like sk-learn-estimator-wrapper do not).
  { kind: 'openai-key', re: /\bsk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{20,}/g },
  { kind: 'aws-access-key', re: /\b(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[A-Z0-9]{16}\b/g },
  {
    kind: 'aws-secret-key',
    re: /(\baws[A-Za-z0-9_\-]{0,20}?(?:secret|key)[A-Za-z0-9_\-]*["']?\s*[:=]\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    replace: (_m, g) => g[0] + marker('aws-secret-key'),
  },
  { kind: 'github-token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g },
  { kind: 'slack-webhook', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9_\/]{20,}/g },
  { kind: 'slack-token', re: /\bxox[abposre]-[A-Za-z0-9\-]{10,}/g },
  { kind: 'google-api-key', re: /\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])/g },
  { kind: 'google-oauth', re: /\b(?:ya29\.[0-9A-Za-z_\-]{20,}|GOCSPX-[0-9A-Za-z_\-]{20,}|1\/\/0[0-9A-Za-z_\-]{30,})/g },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}/g },
  {
    // scheme://user:password@host → scheme://[redacted:url-credentials]@host
    kind: 'url-credentials',
    // One slash too (a URL a path join has mangled: /cwd/postgres:/user:pw@host); a password may hold a '/'.
    re: /\b([a-z][a-z0-9+.\-]{1,20}:\/\/?)([^\s:\/@'"`<>]+):([^\s@'"`<>]+)@/gi,
    replace: (m, g) => (MARKER_RE.test(m) ? null : `${g[0]}${marker('url-credentials')}@`),
  },
  {
    // A password in a connection string's query: postgres://host/db?sslmode=require&password=…
    kind: 'url-credentials',
    re: /([a-z][a-z0-9+.\-]{1,20}:\/\/[^\s'"`<>]*?[?&]password=)([^\s&#'"`<>]+)/gi,
    replace: (m, g) => (MARKER_RE.test(m) ? null : `${g[0]}${marker('url-credentials')}`),
  },
  {
    // password=…, passwd=…, secret=… written key=value (a connection string, a command line, a .env line): any value of
    // 3+ characters, not only the literal-looking ones the next rule takes (a call or an attribute access is code).
    kind: 'assignment',
    re: /((?<![A-Za-z0-9])[A-Za-z0-9_]*?(?:password|passwd|pwd|secret)=)([^\s"'`,;&()[\]{}<>]{3,})(?![\w(.])/gi,
    replace: (m, g) => (MARKER_RE.test(m) || /^[$%]/.test(g[1]) ? null : g[0] + marker('assignment')),
  },
  {
    // password = "…", "apiKey": "…", DB_PASSWORD=… (quoted values of 4+ characters; unquoted ones when they
    // look like a literal: 8+ characters with a letter and a digit, not a call or an attribute access).
    kind: 'assignment',
    re: new RegExp(String.raw`(\b${SECRET_NAME}["']?\s*(?:=|:|:=|=>)(?!=)\s*)(?:(["'\x60])((?:(?!\2)[^\\\n]|\\.){4,}?)\2|([^\s"'\x60,;(){}\[\]<>]{8,}))`, 'gi'),
    replace: (_m, g) => {
      const [prefix, quote, quoted, bare] = g;
      if (NOT_SECRET_NAME_RE.test(prefix.replace(/\s*(?:=|:|:=|=>)\s*$/, ''))) return null;
      if (quote !== undefined && quoted !== undefined) {
        if (MARKER_RE.test(quoted) || /^\s*$/.test(quoted) || NAME_VALUE_RE.test(quoted)) return null;
        return `${prefix}${quote}${marker('assignment')}${quote}`;
      }
      if (bare === undefined || MARKER_RE.test(bare) || !looksLikeLiteral(bare)) return null;
      return prefix + marker('assignment');
    },
  },
  {
    kind: 'high-entropy',
    re: /(?<![A-Za-z0-9+\/_\-])[A-Za-z0-9+\/_\-]{32,}={0,2}(?![A-Za-z0-9+\/_\-])/g,
    replace: (m) => (isHighEntropySecret(m) ? marker('high-entropy') : null),
  },
];

function looksLikeLiteral(value: string): boolean {
  if (!/[A-Za-z]/.test(value) || !/\d/.test(value)) return false;
  if (/^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(value)) return false; // config.api_token2
  if (value.startsWith('$') || value.startsWith('%')) return false; // $ENV_VAR, %(token)s
  return true;
}

/** Shannon entropy in bits per character. */
export function shannonEntropy(text: string): number {
  const freq = new Map<string, number>();
  for (const ch of text) freq.set(ch, (freq.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of freq.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Bits per character a random-looking token of 32+ characters must reach. */
export const HIGH_ENTROPY_BITS_PER_CHAR = 4.3;

/**
 * The fallback: a 32+ character token mixing upper case, lower case and digits
 * with high entropy. Pure hex (hashes, git ids), UUIDs, paths and word-like
 * identifiers are not secrets by this rule.
 */
export function isHighEntropySecret(token: string): boolean {
  const t = token.replace(/=+$/, '');
  if (t.length < 32) return false;
  if (/^[0-9a-fA-F\-]+$/.test(t)) return false; // hex digests, UUIDs
  if (!/[a-z]/.test(t) || !/[A-Z]/.test(t) || !/\d/.test(t)) return false;
  if (/^[A-Za-z]+(?:[\/_\-][A-Za-z0-9]+)+$/.test(t) && !/\d{3,}/.test(t)) return false; // paths, snake/kebab identifiers
  // Word-like identifiers (getPatientAdmissionsByIcd9Code2104): camelCase segments average 3+ letters;
  // random tokens switch case every one or two characters.
  const words = t.match(/[A-Z]?[a-z]+|[A-Z]+/g) ?? [];
  if (words.length > 0 && words.join('').length / words.length >= 3) return false;
  const digits = (t.match(/\d/g) ?? []).length;
  if (digits < 2) return false;
  return shannonEntropy(t) >= HIGH_ENTROPY_BITS_PER_CHAR;
}

/** Quick pre-check: texts without any of these cannot hold a secret we detect. */
const CANDIDATE_RE = /[A-Za-z0-9+\/_\-]{20,}|-----BEGIN|:\/\/?[^\s]*@|passw|pwd|secret|token|key|credential/i;

/** Replaces every secret in `text` by `[redacted:<kind>]` and counts them by kind. */
export function redact(text: string): RedactionResult {
  if (text.length === 0 || !CANDIDATE_RE.test(text)) return { text, count: 0, byKind: {} };
  let out = text;
  let count = 0;
  const byKind: RedactionCounts = {};
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, (match: string, ...rest: unknown[]) => {
      const groups = rest.slice(0, -2).filter((g) => typeof g === 'string' || g === undefined) as string[];
      const replacement = rule.replace ? rule.replace(match, groups) : marker(rule.kind);
      if (replacement === null) return match;
      count++;
      byKind[rule.kind] = (byKind[rule.kind] ?? 0) + 1;
      return replacement;
    });
  }
  return { text: out, count, byKind };
}

/** `redact(text).text`, for call sites that need no counts (log lines, error messages). */
export function redactText(text: string): string {
  return redact(text).text;
}

/** Accumulates counts of many redactions (one record's fields, one import). */
export class RedactionTally {
  count = 0;
  readonly byKind: RedactionCounts = {};

  add(result: Pick<RedactionResult, 'count' | 'byKind'>): void {
    this.count += result.count;
    for (const [kind, n] of Object.entries(result.byKind) as [SecretKind, number][]) this.byKind[kind] = (this.byKind[kind] ?? 0) + n;
  }

  /** Redacts one text and counts what it found. */
  text(value: string): string {
    const result = redact(value);
    this.add(result);
    return result.text;
  }

  /**
   * Redacts every string in a JSON-like value (objects, arrays); a string under a
   * secret-named key (`password`, `apiKey`, `token`…) is redacted whole.
   */
  json<T>(value: T): T {
    return this.walk(value, undefined) as T;
  }

  private walk(value: unknown, key: string | undefined): unknown {
    if (typeof value === 'string') {
      if (key !== undefined && SECRET_NAME_RE.test(key) && !NOT_SECRET_NAME_RE.test(key) && value.trim().length >= 4 && !MARKER_RE.test(value)) {
        this.add({ count: 1, byKind: { assignment: 1 } });
        return marker('assignment');
      }
      return this.text(value);
    }
    if (Array.isArray(value)) return value.map((v) => this.walk(v, undefined));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        // A key is text too ({"sk-proj-…": 1}); two keys redacted alike stay apart.
        const redacted = this.text(k);
        let name = redacted;
        for (let n = 2; name !== k && Object.hasOwn(out, name); n++) name = `${redacted}#${n}`;
        out[name] = this.walk(v, k);
      }
      return out;
    }
    return value;
  }
}

/** Redacts every string in a JSON-like value; see RedactionTally.json. */
export function redactJson<T>(value: T): { value: T; count: number; byKind: RedactionCounts } {
  const tally = new RedactionTally();
  const out = tally.json(value);
  return { value: out, count: tally.count, byKind: tally.byKind };
}
