/**
 * Reading a file the user named on the command line: a missing file, a folder or an unreadable
 * file is a typed error naming the file, what it should be and the option that gives it.
 */
import * as fs from 'node:fs';
import { AgentMemoryError } from '../core/errors';

/** The bytes of `file`; `what` says what it should be ("the JSONL file to import"), `how` how it is given ("FILE", "--code-file"). */
export function readInputFile(file: string, what: string, how: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    throw inputFileError(error, file, what, how);
  }
}

/** Checks that `file` can be read (for a file read later in blocks), with readInputFile's errors. */
export function assertInputFile(file: string, what: string, how: string): void {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      if (fs.fstatSync(fd).isDirectory()) throw Object.assign(new Error(`EISDIR: ${file}`), { code: 'EISDIR' });
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    throw inputFileError(error, file, what, how);
  }
}

function inputFileError(error: unknown, file: string, what: string, how: string): AgentMemoryError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new AgentMemoryError('NOT_FOUND', `No such file: ${file}. Give ${what} with ${how}.`, { file });
  if (code === 'EISDIR') return new AgentMemoryError('IS_DIRECTORY', `${file} is a folder. Give ${what} with ${how}.`, { file });
  return new AgentMemoryError('INVALID_INPUT', `Cannot read ${file} (${code ?? 'error'}). Give ${what} with ${how}.`, { file }, { cause: error });
}
