import type { RedactionTally } from '../../security/redact';
import { AgentMemoryError } from '../../errors';
import { NewRecord, NewRecordInput, NewRecordSchema, type Trigger } from '../types';

/** What the keyword index (or any other derived index) needs to stay in sync. */
export interface IndexedText {
  rid: number;
  id: string;
  question: string;
  code: string;
}


export interface OperationContext {
  trigger: Trigger;
  reason?: string;
  /** Per-record evidence written to the audit log (e.g. the deletion rule's figures). */
  evidence?: Record<string, Record<string, unknown>>;
}

/** A status change's context; `returnRecords: false` skips reading the changed records back (the deletion rules). */
export interface TransitionContext extends OperationContext {
  returnRecords?: boolean;
}

export interface AddOptions extends OperationContext {
  /** One vector per input (same order), all from `embedderId`. */
  embeddings?: Float32Array[];
  embedderId?: string;
  /** Read back and return the stored records (default true); bulk writers pass false and get []. */
  returnRecords?: boolean;
  /** Receives the counts of secrets redacted from the records' text (each record's audit entry has its own). */
  redactions?: RedactionTally;
}

export interface RetrievalLogEntry {
  recordId: string;
  rank: number;
  inputSimilarity: number | null;
}

/** Throws EMBEDDER_MISMATCH when the store's vectors come from another embedder. */
export function mismatchCheck(stored: { id: string; dimension: number }, id: string, dimension: number): void {
  if (stored.id !== id || stored.dimension !== dimension) {
    throw new AgentMemoryError(
      'EMBEDDER_MISMATCH',
      `This memory was embedded with ${stored.id} (${stored.dimension} dimensions) but the configured embedder is ${id} (${dimension}). Run "Agent Memory: Re-embed Memory" (CLI: agent-memory re-embed) to rebuild the vectors, or switch the embedder back.`,
      { stored, configured: { id, dimension } },
    );
  }
}

/** Validates every input (zod); the first invalid one fails the batch, naming its index and field. */
export function parseNewRecords(inputs: NewRecordInput[]): NewRecord[] {
  return inputs.map((input, index) => {
    const result = NewRecordSchema.safeParse(input);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new AgentMemoryError('INVALID_INPUT', `Record ${index + 1}: field '${issue.path.join('.') || '(root)'}': ${issue.message}. Nothing was written.`, { index, path: issue.path });
    }
    return result.data;
  });
}
