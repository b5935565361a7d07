/** Test helper: writes the EHRSQL `valid` split as memory and `test` as queries to JSONL files in a temp dir. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const EHR_TASKS = path.join(__dirname, '..', '..', '..', 'data', 'ehr', 'ehrsql-mimic3-tasks.jsonl');

export interface SplitFiles {
  dir: string;
  memory: string;
  queries: string;
}

/** Splits the task file by `split`; `limit` keeps the first N lines of each side. */
export function writeEhrSplit(limit?: number): SplitFiles {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-retrieval-'));
  const lines = fs.readFileSync(EHR_TASKS, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const pick = (split: string): string[] => lines.filter((l) => (JSON.parse(l) as { split: string }).split === split).slice(0, limit);
  const memory = path.join(dir, 'memory.jsonl');
  const queries = path.join(dir, 'queries.jsonl');
  fs.writeFileSync(memory, pick('valid').join('\n') + '\n');
  fs.writeFileSync(queries, pick('test').join('\n') + '\n');
  return { dir, memory, queries };
}
