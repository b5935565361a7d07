import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import { z } from 'zod';
import type { MemoryStore } from '../sqlite/store';

/** The meta key holding the checkpoint of an import in progress (one at a time per memory). */
export const IMPORT_CHECKPOINT_META = 'import_checkpoint';

/** How much of the file's start is hashed into its identity. */
const IDENTITY_HEAD_BYTES = 1024 * 1024;

/** What the file's vectors become: kept, left out (an endpoint-embedded memory), or left out and recomputed by a re-fit at the end. */
export const VectorModeSchema = z.enum(['keep', 'drop', 'refit']);
export type VectorMode = z.infer<typeof VectorModeSchema>;

/**
 * Where an interrupted import of a JSONL file stands: written in the transaction of each batch,
 * so it always names the last committed line, and removed in the transaction that completes it.
 */
export const ImportCheckpointSchema = z.object({
  /** The file as it was named (for messages; resuming goes by `identity`). */
  file: z.string(),
  /** Size, modification time and a hash of the first MB of the file (fileIdentity). */
  identity: z.string(),
  /** Byte offset of the first line not yet imported. */
  offset: z.number().int().min(0),
  /** Lines before `offset`. */
  line: z.number().int().min(0),
  /** Records written so far, secrets redacted so far. */
  imported: z.number().int().min(0),
  redacted: z.number().int().min(0),
  vectors: VectorModeSchema,
});
export type ImportCheckpoint = z.infer<typeof ImportCheckpointSchema>;

/**
 * A file's identity for resuming: size, modification time and the SHA-256 of its first MB. An edited,
 * appended, truncated or replaced file gets another one (so an import of it starts over).
 */
export function fileIdentity(file: string): string {
  const stat = fs.statSync(file);
  const head = Buffer.alloc(Math.min(IDENTITY_HEAD_BYTES, stat.size));
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  const hash = crypto.createHash('sha256').update(head).digest('hex');
  return `${stat.size}:${Math.round(stat.mtimeMs)}:${hash}`;
}

/** The checkpoint recorded in the store, if any (an unreadable one counts as none: the import starts over). */
export function readImportCheckpoint(store: MemoryStore): ImportCheckpoint | undefined {
  const raw = store.getMeta(IMPORT_CHECKPOINT_META);
  if (raw === undefined) return undefined;
  try {
    const parsed = ImportCheckpointSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Records the checkpoint (call it inside the batch's transaction). */
export function writeImportCheckpoint(store: MemoryStore, checkpoint: ImportCheckpoint): void {
  store.setMeta(IMPORT_CHECKPOINT_META, JSON.stringify(ImportCheckpointSchema.parse(checkpoint)));
}

/** Removes the checkpoint (call it inside the transaction that completes the import). */
export function clearImportCheckpoint(store: MemoryStore): void {
  store.deleteMeta(IMPORT_CHECKPOINT_META);
}
