import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MEMORY_BUDGET_ENV } from '../../../src/core/memory/memory-budget';
import { call, connectServer, MAIN, ROOT, seedMemory, text, TSX } from './mcp-support';

/** `agent-memory mcp ARGS` expected to stop before serving (stdin closed at once). */
function mcpExit(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [TSX, MAIN, 'mcp', ...args], { cwd: ROOT, env, timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
    });
    child.stdin?.end();
  });
}

describe('the MCP server within a memory budget (--memory-budget-mb, AGENT_MEMORY_BUDGET_MB)', () => {
  let dir: string;
  let db: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-mcp-budget-'));
    db = path.join(dir, 'memory.sqlite');
    seedMemory(db);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('serves memory_search with the smallest budget', async () => {
    const client = await connectServer(db, 'strict', 'budget-client', ['--memory-budget-mb', '16']);
    try {
      const result = await call(client, 'memory_search', { query: 'how many patients were admitted in 2104?' });
      assert.notEqual(result.isError, true, text(result));
      assert.match(text(result), /admissions where year = 2104/);
    } finally {
      await client.close();
    }
  });

  it('refuses a budget out of bounds, from the flag or the environment, before opening the memory', async () => {
    const flag = await mcpExit(['--db', db, '--memory-budget-mb', '4']);
    assert.notEqual(flag.code, 0);
    assert.match(flag.stderr, /--memory-budget-mb 4 is not a memory budget: give a whole number of MB from 16 to 65536/);
    const env = await mcpExit(['--db', path.join(dir, 'never.sqlite')], { ...process.env, [MEMORY_BUDGET_ENV]: 'lots' });
    assert.notEqual(env.code, 0);
    assert.match(env.stderr, new RegExp(`${MEMORY_BUDGET_ENV}=lots is not a memory budget`));
    assert.equal(fs.existsSync(path.join(dir, 'never.sqlite')), false, 'nothing was created');
  });
});
