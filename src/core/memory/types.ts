import { z } from 'zod';
import { redact } from '../security/redact';

/** Outcome of executing the generated code. */
export const OutcomeSchema = z.enum(['success', 'error', 'timeout', 'no-answer']);
export type Outcome = z.infer<typeof OutcomeSchema>;
/** The one outcome of a record whose code worked; every other outcome (error, timeout, no-answer) is a failure. */
export const WORKED_OUTCOME: Outcome = 'success';
/** Whether a record's code worked (its outcome is WORKED_OUTCOME). */
export function outcomeWorked(outcome: Outcome): boolean {
  return outcome === WORKED_OUTCOME;
}

/** Languages the built-in agent writes and runs. */
export const AgentLanguageSchema = z.enum(['python', 'javascript']);
export type AgentLanguage = z.infer<typeof AgentLanguageSchema>;

/** Longest language name a record may carry. */
export const MAX_LANGUAGE_LENGTH = 40;

/**
 * A record's code language: any language (records from other agents, e.g. over MCP),
 * as a lower-case name such as `python`, `typescript`, `go`, `c++`, `c#`.
 */
export const LanguageSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'language must not be empty')
  .max(MAX_LANGUAGE_LENGTH, `language must be at most ${MAX_LANGUAGE_LENGTH} characters`)
  .regex(/^[A-Za-z0-9][A-Za-z0-9+#._-]*$/, 'language must be a name such as python, typescript, go, c++ or c#');
export type Language = z.infer<typeof LanguageSchema>;

/** Only `active` records are retrievable; `pending` await a human verdict; `deleted` are soft-deleted. */
export const RECORD_STATUSES = ['pending', 'active', 'deleted'] as const;
export const StatusSchema = z.enum(RECORD_STATUSES);
export type RecordStatus = z.infer<typeof StatusSchema>;

export const ProvenanceSchema = z.enum(['seed', 'agent', 'import', 'user']);
export type Provenance = z.infer<typeof ProvenanceSchema>;

/** What triggered a memory operation: `user`, `agent`, `import`, or `rule:<id>`. */
export const TriggerSchema = z.union([
  z.enum(['user', 'agent', 'import']),
  z.string().regex(/^rule:[a-z0-9][a-z0-9._-]*$/i, 'a rule trigger looks like rule:<id>'),
]);
export type Trigger = z.infer<typeof TriggerSchema>;

/** The execution part `e` of a record `(q, e)`. */
export const ExecutionSchema = z.object({
  code: z.string(),
  language: LanguageSchema,
  /** The answer the code set (any JSON value; null when none). */
  answer: z.unknown().default(null),
  outcome: OutcomeSchema,
  /** Short stdout/stderr excerpt. */
  outputExcerpt: z.string().max(4000).default(''),
  /** Ids of the demonstrations (records) the agent was shown. */
  demonstrationIds: z.array(z.string()).default([]),
  inputSimilarity: z.number().min(-1).max(1).nullable().default(null),
  outputSimilarity: z.number().min(0).max(1).nullable().default(null),
});
export type Execution = z.infer<typeof ExecutionSchema>;

/** Utility statistics, maintained from the retrieval log. */
export interface UtilityStats {
  retrievalCount: number;
  /** Number of retrievals whose task has been evaluated. */
  evaluatedCount: number;
  /** Mean Φ over evaluated retrievals; null when never evaluated. */
  meanUtility: number | null;
  lastRetrievedTask: number | null;
  meanInputSimilarity: number | null;
  meanOutputSimilarity: number | null;
}

/** A memory record as held by the store. */
export interface MemoryRecord {
  id: string;
  question: string;
  execution: Execution;
  status: RecordStatus;
  provenance: Provenance;
  /** Task index at which the record was created (0 for seeds). */
  createdTask: number;
  createdAt: string;
  updatedAt: string;
  embedderId: string | null;
  embeddingDim: number | null;
  /** Free-form metadata (e.g. template, source id). */
  metadata: Record<string, unknown>;
  /** How many identical additions (same normalised question and code) this record stands for (1 = none merged). */
  mergedCount?: number;
  stats: UtilityStats;
}

/** Longest record id any path accepts. */
export const RECORD_ID_MAX_CHARS = 200;

/** A record id as every write path accepts it (add, import, the team store). */
export const RecordIdSchema = z
  .string()
  .min(1)
  .max(RECORD_ID_MAX_CHARS, `id must be at most ${RECORD_ID_MAX_CHARS} characters`)
  .refine((id) => !/[\u0000-\u001f\u007f-\u009f]/.test(id), 'id must not contain control characters')
  .refine((id) => !/[\\/]/.test(id), 'id must not contain path separators (/ or \\)')
  // An id is stored, logged and exported as it is: it cannot be redacted without losing the record's identity.
  .refine((id) => redact(id).count === 0, 'id must not hold a secret (it looks like an API key or token): give the record another id');

/** Input for adding a record: validated with zod before anything is written. */
export const NewRecordSchema = z.object({
  id: RecordIdSchema.optional(),
  question: z.string().trim().min(1, 'question must not be empty').max(20000),
  execution: ExecutionSchema,
  status: StatusSchema.default('active'),
  provenance: ProvenanceSchema.default('user'),
  createdTask: z.number().int().min(0).default(0),
  createdAt: z.string().datetime({ offset: true }).optional(),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type NewRecordInput = z.input<typeof NewRecordSchema>;
export type NewRecord = z.infer<typeof NewRecordSchema>;

/**
 * Which program wrote an audit entry of a local (SQLite) memory: the editor, the `agent-memory` CLI
 * or the MCP server. Kept in the entry's evidence as `channel` (inside the hashed fields: the audit
 * chain covers it, the schema is unchanged), so a reviewer sees an approval made from a shell.
 */
export const AuditChannelSchema = z.enum(['editor', 'cli', 'mcp']);
export type AuditChannel = z.infer<typeof AuditChannelSchema>;

/** An audit-log entry. */
export interface AuditEntry {
  id: number;
  at: string;
  operation: AuditOperation;
  recordId: string | null;
  trigger: Trigger;
  reason: string;
  evidence: Record<string, unknown>;
}

export const AuditOperationSchema = z.enum([
  'add',
  'approve',
  'unapprove',
  'reject',
  'delete',
  'restore',
  'purge',
  'import',
  're-embed',
  'policy',
  'propose',
  'keep',
  'withdraw',
  'revalidate',
]);
export type AuditOperation = z.infer<typeof AuditOperationSchema>;

/** Events the store emits after a committed change (never before). */
export interface MemoryChangeEvent {
  kind: 'added' | 'status' | 'purged' | 'retrieval' | 'task' | 'reembedded' | 'reset' | 'review';
  ids: string[];
}
