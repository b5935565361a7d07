/**
 * Shutdown of the real `agent-memory mcp` child process in the middle of a burst of
 * writes: every memory_record the client saw acknowledged is in the database afterwards,
 * whether the server was stopped (SIGTERM, SIGINT, stdin closed) or killed (SIGKILL); a
 * stopped server exits by itself, leaves no temp file, and leaves the file clean (the next
 * open skips the full integrity check).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLEAN_STATE_SUFFIX } from '../../../src/core/memory/sqlite/database';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';
import { MAIN, ROOT, call, seedMemory } from './mcp-support';

type Stop = 'SIGTERM' | 'SIGINT' | 'SIGKILL' | 'stdin';

/** The server in ONE process (node + tsx's require hook), so that its pid is the server's own. */
async function startServer(db: string): Promise<{ client: Client; transport: StdioClientTransport; exited: Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--require', 'tsx/cjs', MAIN, 'mcp', '--db', db, '--addition', 'all'], cwd: ROOT, stderr: 'pipe' });
  const client = new Client({ name: 'shutdown-test', version: '1.0.0' });
  await client.connect(transport);
  const exited = new Promise<void>((resolve) => {
    client.onclose = () => resolve();
  });
  return { client, transport, exited };
}

function stop(how: Stop, transport: StdioClientTransport): void {
  if (how === 'stdin') {
    // What a client does when it goes away: close the server's stdin (without killing it).
    const child = (transport as unknown as { _process?: { stdin?: NodeJS.WritableStream } })._process;
    assert.ok(child?.stdin, 'the transport exposes the child process');
    child.stdin.end();
    return;
  }
  process.kill(transport.pid!, how);
}

describe('MCP server shutdown in the middle of writes (real child process)', function () {
  this.timeout(90_000);
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mcp-stop-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const how of ['SIGTERM', 'SIGINT', 'stdin', 'SIGKILL'] as const) {
    it(`${how}: every acknowledged record is stored${how === 'SIGKILL' ? '' : '; the server exits by itself, with no temp file left and the file clean'}`, async () => {
      const db = path.join(dir, 'memory.sqlite');
      seedMemory(db);
      const { client, transport, exited } = await startServer(db);
      const acknowledged: string[] = [];
      let stopped = false;
      const writes = Array.from({ length: 40 }, (_, i) => {
        const question = `shutdown probe ${how} #${i}: how many admissions in year ${2100 + i}?`;
        return call(client, 'memory_record', { question, code: `answer = sql('select count(*) from admissions where year = ${2100 + i}')`, language: 'python', outcome: 'success', source: 'tests' }).then(
          (result) => {
            if (result.isError) return;
            acknowledged.push(question);
            // Stop once a few writes are in: the rest are in flight or not yet sent.
            if (acknowledged.length === 8 && !stopped) {
              stopped = true;
              stop(how, transport);
            }
          },
          () => undefined, // not acknowledged: the connection went away first
        );
      });
      await Promise.all(writes);
      await exited;
      assert.ok(acknowledged.length >= 8, `at least the first 8 writes were acknowledged (${acknowledged.length})`);

      if (how !== 'SIGKILL') {
        const left = fs.readdirSync(dir).filter((n) => n.includes('.tmp-'));
        assert.deepEqual(left, [], 'no temp file is left behind');
        assert.ok(fs.existsSync(db + CLEAN_STATE_SUFFIX), 'the server closed the database cleanly (clean-state record written)');
        assert.ok(!fs.existsSync(db + '-wal') || fs.statSync(db + '-wal').size === 0, 'no WAL frames left behind');
      }
      const store = MemoryStore.open(db);
      try {
        const stored = new Set(store.list({ status: 'active', limit: 1000 }).items.map((r) => r.question));
        const missing = acknowledged.filter((q) => !stored.has(q));
        assert.deepEqual(missing, [], `acknowledged records missing after ${how}`);
      } finally {
        store.close();
      }
    });
  }
});
