/**
 * Child process of the idle-checkpoint durability test: opens the database argv[2], commits
 * `argv[3]` records (one transaction each, ids c-1…), prints `ok <ids…> scheduled=<bool>
 * wal=<bytes>` and kills itself with SIGKILL in the same turn, so the checkpoint the commit
 * scheduled for when the process is idle never runs.
 */
import * as fs from 'node:fs';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

const [file, countArg] = process.argv.slice(2);
const store = MemoryStore.open(file);
const ids: string[] = [];
for (let i = 1; i <= Number(countArg); i++) {
  const id = `c-${i}`;
  store.add([{ id, question: `question ${i}: ${'how many patients were admitted? '.repeat(20)}`, execution: { code: `answer = ${i}`, language: 'python', outcome: 'success' } }], { trigger: 'agent' });
  ids.push(id);
}
fs.writeSync(1, `ok ${ids.join(' ')} scheduled=${store.checkpoints.scheduled} wal=${fs.statSync(`${file}-wal`).size}\n`);
process.kill(process.pid, 'SIGKILL');
// Never leaves this turn: the scheduled checkpoint cannot run before the signal lands.
for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
