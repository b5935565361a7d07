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
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new AgentMemoryError('NOT_FOUND', `No such file: ${file}. Give ${what} with ${how}.`, { file });
    if (code === 'EISDIR') throw new AgentMemoryError('IS_DIRECTORY', `${file} is a folder. Give ${what} with ${how}.`, { file });
    throw new AgentMemoryError('INVALID_INPUT', `Cannot read ${file} (${code ?? 'error'}). Give ${what} with ${how}.`, { file }, { cause: error });
  }
}
