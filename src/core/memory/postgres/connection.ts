/**
 * Team-memory connection settings: a `postgres://` URL (where a database file is
 * otherwise taken), the password from SecretStorage or `AGENT_MEMORY_PG_PASSWORD`, and
 * `sslmode` honoured. The password never appears in what `describe` returns, nor in any
 * error this module throws (docs/team-memory.md, "Security").
 */
import type { PoolConfig } from 'pg';
import { z } from 'zod';
import { AgentMemoryError } from '../../errors';
import { redactText } from '../../security/redact';

/** Environment variable the CLI and the MCP server read the team password from. */
export const PASSWORD_ENV = 'AGENT_MEMORY_PG_PASSWORD';
/** libpq's own variable, read when PASSWORD_ENV is not set. */
export const LIBPQ_PASSWORD_ENV = 'PGPASSWORD';

export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** True for a team-memory URL rather than a database file. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(target.trim());
}

/** `scheme://…` (or a mistyped `scheme:/…`): a URL, never a file path (a Windows drive `C:/` has a one-letter scheme). */
export function looksLikeUrl(target: string): boolean {
  return /^[a-z][a-z0-9+.\-]+:\//i.test(target.trim());
}

/**
 * The URL without its password (user, host, port, database and options kept). A password with an
 * unencoded `@` or `/` makes the URL parse wrongly (or not at all), so whatever stands between the
 * scheme and the last `@` is treated as credentials: only the user name before its first `:` is kept.
 */
export function describeConnection(url: string): string {
  const scheme = /^[a-z][a-z0-9+.\-]*:\/*/i.exec(url)?.[0] ?? '';
  const rest = url.slice(scheme.length);
  const at = rest.lastIndexOf('@');
  const bare = at < 0 ? url : `${scheme}${rest.slice(0, at).split(':')[0]}@${rest.slice(at + 1)}`;
  try {
    const u = new URL(bare);
    u.password = '';
    u.searchParams.delete('password');
    return u.toString();
  } catch {
    return redactText(bare);
  }
}

/**
 * A password holding an unescaped `@` (postgres://user:p@ss@host/db) would make `ss@host` the host name:
 * printed, and sent to the resolver. Refused before anything connects, without the password.
 */
export function refuseUnescapedAt(url: string): void {
  const scheme = /^[a-z][a-z0-9+.\-]*:\/*/i.exec(url)?.[0] ?? '';
  const authority = url.slice(scheme.length).split(/[/?#]/)[0];
  if ((authority.match(/@/g) ?? []).length > 1) {
    throw new AgentMemoryError('CONFIG', `The team memory URL ${describeConnection(url)} holds more than one '@' before the host: a password with '@' must be written %40 in a URL (or leave the password out of the URL and set ${PASSWORD_ENV}). Nothing was connected.`);
  }
}

/** A server's refusal of the credentials (none given, or wrong): the user must set the password. */
export function isPasswordProblem(error: unknown): boolean {
  const e = error as { details?: { pgCode?: unknown; passwordProblem?: unknown }; code?: unknown; message?: unknown };
  if (e?.details?.passwordProblem === true || e?.details?.pgCode === '28P01' || e?.code === '28P01') return true;
  return /client password must be a (non-empty )?string|password authentication failed|no password (was )?supplied|SASL: SCRAM/i.test(typeof e?.message === 'string' ? e.message : String(error));
}

/** A space name (letters, digits, dots, dashes, underscores; e.g. the repository name). */
export const SpaceSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'a space is a name of letters, digits, dots, dashes and underscores (e.g. the repository name)');

export const TeamConnectionSchema = z.object({
  url: z.string().refine(isPostgresUrl, 'a team memory URL starts with postgres://'),
  /** From SecretStorage (editor) or the environment (CLI, MCP); overrides a password in the URL. */
  password: z.string().min(1).optional(),
  space: SpaceSchema.default('default'),
  /** Who is acting (audit): the OS or VS Code account name. */
  user: z.string().min(1).max(200),
  /** Which client acts (audit), e.g. `vscode@laptop`, `mcp@ci`, `cli`. */
  client: z.string().min(1).max(200),
  /** Pool size (editor: small; bench: per process). */
  maxConnections: z.number().int().min(1).max(50).default(4),
  /** How long one operation keeps retrying an unreachable server (backoff 0.25 s doubling to 4 s) before it fails UNREACHABLE. */
  retryMs: z.number().int().min(0).max(600_000).default(15_000),
});
export type TeamConnectionInput = z.input<typeof TeamConnectionSchema>;
export type TeamConnection = z.infer<typeof TeamConnectionSchema>;

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host === '::1' || host === '' || host.startsWith('/');
}

/** The `ssl` option node-postgres needs for `mode`. */
function sslFor(mode: SslMode, host: string): PoolConfig['ssl'] {
  switch (mode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      // Certificate chain checked, host name not.
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, servername: host };
  }
}

/**
 * The node-postgres pool configuration for `input`. sslmode: as given; when absent,
 * `disable` for a loopback host and `verify-full` for any other (secure by default).
 * `prefer`/`allow` are refused: they would silently fall back to plain text.
 */
export function poolConfig(input: TeamConnectionInput, env: NodeJS.ProcessEnv = process.env): { config: PoolConfig; connection: TeamConnection; sslMode: SslMode } {
  const parsed = TeamConnectionSchema.safeParse(input);
  if (!parsed.success) {
    // Named in words (the space, the URL…), never with the input's value: a URL may hold a password.
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'connection'}: ${i.message}`).join('; ');
    throw new AgentMemoryError('INVALID_INPUT', `The team memory connection is not valid (${problems}).`, { fields: parsed.error.issues.map((i) => i.path.join('.')) });
  }
  const connection = parsed.data;
  refuseUnescapedAt(connection.url);
  let u: URL;
  try {
    u = new URL(connection.url);
  } catch {
    throw new AgentMemoryError('CONFIG', `The team memory URL is not a valid URL: ${describeConnection(connection.url)}. Expected postgres://user@host:5432/database?sslmode=verify-full.`);
  }
  const host = decodeURIComponent(u.hostname);
  const requested = u.searchParams.get('sslmode') ?? (isLoopback(host) ? 'disable' : 'verify-full');
  if (!(SSL_MODES as readonly string[]).includes(requested)) {
    throw new AgentMemoryError('CONFIG', `sslmode=${requested} is not supported for the team memory: use one of ${SSL_MODES.join(', ')} (prefer/allow could fall back to an unencrypted connection).`);
  }
  const sslMode = requested as SslMode;
  const password = connection.password ?? (env[PASSWORD_ENV] || undefined) ?? (env[LIBPQ_PASSWORD_ENV] || undefined) ?? (u.password ? decodeURIComponent(u.password) : undefined) ?? u.searchParams.get('password') ?? undefined;
  const config: PoolConfig = {
    host,
    port: u.port ? Number(u.port) : 5432,
    user: decodeURIComponent(u.username) || undefined,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
    password,
    ssl: sslFor(sslMode, host),
    max: connection.maxConnections,
    connectionTimeoutMillis: 3000,
    statement_timeout: 5000,
    idleTimeoutMillis: 30_000,
    application_name: `agent-memory ${connection.client}`.slice(0, 63),
  };
  return { config, connection, sslMode };
}
