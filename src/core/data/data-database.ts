/**
 * The database the agent's programs query (agentMemory.agent.dataPath, CLI --data): checked to
 * be a readable SQLite database with tables before a task runs, so a wrong file (a CSV, a text
 * file, an empty one) is a clear error instead of a task whose every program fails.
 */
import * as fs from 'node:fs';
import { AgentMemoryError, errorMessage } from '../errors';
import { openConnection } from '../memory/sqlite/native-sqlite';

const checked = new Map<string, string>();

/** Throws CONFIG naming the file and the setting when `file` is not a SQLite database with at least one table. */
export function assertDataDatabase(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw dataError(file, 'it does not exist');
  }
  if (stat.isDirectory()) throw dataError(file, 'it is a folder');
  const key = `${stat.size}:${stat.mtimeMs}`;
  if (checked.get(file) === key) return;
  let tables: number;
  try {
    const db = openConnection(file, { readonly: true, fileMustExist: true });
    try {
      tables = (db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch (error) {
    throw dataError(file, `SQLite cannot read it: ${errorMessage(error)}`);
  }
  if (tables === 0) throw dataError(file, 'it holds no tables');
  checked.set(file, key);
}

function dataError(file: string, why: string): AgentMemoryError {
  return new AgentMemoryError('CONFIG', `The database the agent queries, ${file}, cannot be used: ${why}. Set agentMemory.agent.dataPath (CLI: --data) to the SQLite file the questions are about.`, { file });
}
