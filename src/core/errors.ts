/**
 * Typed errors for the core. Every error carries a stable `code` (for callers
 * and tests) and a message that says what to do about it.
 */
export type ErrorCode =
  | 'INVALID_INPUT'
  | 'NOT_FOUND'
  | 'INVALID_STATE'
  | 'EMBEDDER_MISMATCH'
  | 'DATABASE'
  /** The file exists but is not a SQLite database. */
  | 'NOT_A_DATABASE'
  /** The database fails its integrity check (or SQLite reports corruption); it is never written. */
  | 'DATABASE_DAMAGED'
  /** The database file or its folder cannot be written. */
  | 'READ_ONLY'
  /** Another process held the write lock past the busy wait. */
  | 'LOCKED'
  /** The disk (or quota) is full; the change was rolled back. */
  | 'DISK_FULL'
  /** A directory was given where a database file was expected. */
  | 'IS_DIRECTORY'
  | 'MIGRATION'
  | 'IMPORT'
  | 'MODEL'
  | 'RUNNER'
  | 'CANCELLED'
  /** The team memory server refused the action to this role (its level in the space is too low; the owner grants it with team-grant). */
  | 'FORBIDDEN'
  /** The team memory server cannot be reached (or dropped the connection); nothing was written. */
  | 'UNREACHABLE'
  /** The operation is not available on this backend (e.g. a SQLite-only command given a postgres:// URL). */
  | 'UNSUPPORTED'
  | 'CONFIG'
  /** Standard output (or an output file) could not be written: what was written is incomplete. */
  | 'OUTPUT'
  /** No usable native SQLite binary for this platform (the message names it and what to do). */
  | 'NATIVE_MODULE';

export class AgentMemoryError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentMemoryError';
    this.code = code;
    this.details = details;
  }
}

export function isAgentMemoryError(error: unknown, code?: ErrorCode): error is AgentMemoryError {
  return error instanceof AgentMemoryError && (code === undefined || error.code === code);
}

/** Human-readable message for any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
