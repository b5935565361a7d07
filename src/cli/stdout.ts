/**
 * The CLI's standard output: a write that fails (the disk is full, the reader closed the pipe)
 * becomes a typed error instead of an unhandled stream error with a stack trace, and a command
 * reports success only after every byte it wrote was accepted (`flushStdout`).
 */
import { AgentMemoryError } from '../core/errors';

let failure: NodeJS.ErrnoException | undefined;
let watching = false;

/** Catches stdout's write errors from here on (main calls it once, before any command runs). */
export function watchStdout(stream: NodeJS.WriteStream = process.stdout): void {
  if (watching) return;
  watching = true;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    failure ??= error;
  });
}

/**
 * Resolves once everything written to stdout so far was accepted; otherwise throws what went
 * wrong as a typed error saying the output is incomplete and what to do.
 */
export async function flushStdout(stream: NodeJS.WriteStream = process.stdout): Promise<void> {
  if (!failure && !stream.destroyed) {
    await new Promise<void>((resolve) => {
      stream.write('', (error) => {
        if (error) failure ??= error;
        resolve();
      });
    });
  }
  if (failure) throw stdoutError(failure);
}

function stdoutError(error: NodeJS.ErrnoException): AgentMemoryError {
  const details = { errno: error.code };
  if (error.code === 'EPIPE') {
    return new AgentMemoryError('OUTPUT', 'The reader of standard output closed it before the output ended (EPIPE): what it received is incomplete. To keep the whole output, write it to a file (> out.jsonl).', details);
  }
  if (error.code === 'ENOSPC' || error.code === 'EDQUOT') {
    return new AgentMemoryError('DISK_FULL', 'The disk (or quota) is full: standard output could not be written, so what was written is incomplete. Free space, or write to another disk, and run the command again.', details);
  }
  return new AgentMemoryError('OUTPUT', `Standard output could not be written (${error.code ?? error.message}): what was written is incomplete. Check where the output goes and run the command again.`, details);
}
