/**
 * Mocha entry for the extension-host integration suite. VS Code calls `run()` after
 * loading the development extension; the same file serves both runners:
 *   - code-server + Chromium (scripts/run-vscode-tests.mjs): settings come from
 *     `.agent-memory-test.json` in the test workspace folder (the browser workbench
 *     ignores extensionEnvironment);
 *   - @vscode/test-electron (scripts/run-vscode-tests-electron.mjs): settings come
 *     from the AGENT_MEMORY_TEST_RESULT / AGENT_MEMORY_TEST_GREP environment variables.
 * Every `*.test.js` under this folder (compiled to out/test/integration) is loaded.
 * When settings name a result file, `{ passes, failures, pending, tests, failed[] }`
 * is written there as JSON so the runner can print counts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';

/** Console markers: the code-server runner streams only what is logged between them. */
export const OUTPUT_BEGIN = 'agent-memory-tests:begin';
export const OUTPUT_END = 'agent-memory-tests:end';

/** Name of the settings file the runner drops into the test workspace folder. */
export const TEST_SETTINGS_FILE = '.agent-memory-test.json';

interface TestSettings {
  resultFile?: string;
  grep?: string;
  timeoutMs?: number;
}

/** Shape of the JSON result file (read by scripts/run-vscode-tests*.mjs). */
export interface IntegrationResult {
  passes: number;
  failures: number;
  pending: number;
  tests: number;
  durationMs: number;
  failed: { title: string; error: string }[];
}

function readSettings(): TestSettings {
  const settings: TestSettings = {};
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const file = path.join(folder.uri.fsPath, TEST_SETTINGS_FILE);
    if (!fs.existsSync(file)) continue;
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) throw new Error(`${file}: expected a JSON object`);
    const o = parsed as Record<string, unknown>;
    if (typeof o.resultFile === 'string') settings.resultFile = o.resultFile;
    if (typeof o.grep === 'string' && o.grep) settings.grep = o.grep;
    if (typeof o.timeoutMs === 'number') settings.timeoutMs = o.timeoutMs;
    break;
  }
  if (process.env.AGENT_MEMORY_TEST_RESULT) settings.resultFile = process.env.AGENT_MEMORY_TEST_RESULT;
  if (process.env.AGENT_MEMORY_TEST_GREP) settings.grep = process.env.AGENT_MEMORY_TEST_GREP;
  return settings;
}

/**
 * Compiled tests under `dir` (out/test/integration). When the TypeScript sources sit at
 * the usual place (test/integration), a stale .js whose .ts was deleted or renamed is skipped.
 */
function findTests(dir: string): string[] {
  const sourceDir = path.resolve(dir, '..', '..', '..', 'test', 'integration');
  const checkSources = fs.existsSync(path.join(sourceDir, 'index.ts'));
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.js'))
    .filter((f) => !checkSources || fs.existsSync(path.join(sourceDir, f.replace(/\.js$/, '.ts'))))
    .map((f) => path.join(dir, f))
    .sort();
}

/** Called by VS Code's extension host; resolves when all tests passed. */
export function run(): Promise<void> {
  const settings = readSettings();
  const mocha = new Mocha({ ui: 'bdd', color: false, reporter: 'spec', timeout: settings.timeoutMs ?? 30_000 });
  if (settings.grep) mocha.grep(settings.grep);
  for (const file of findTests(__dirname)) mocha.addFile(file);

  return new Promise<void>((resolve, reject) => {
    const started = Date.now();
    const failed: IntegrationResult['failed'] = [];
    let runner: Mocha.Runner;
    console.log(OUTPUT_BEGIN);
    try {
      runner = mocha.run((failures) => {
        console.log(OUTPUT_END);
        const stats = runner.stats;
        const result: IntegrationResult = {
          passes: stats?.passes ?? 0,
          failures,
          pending: stats?.pending ?? 0,
          tests: stats?.tests ?? 0,
          durationMs: Date.now() - started,
          failed,
        };
        if (settings.resultFile) fs.writeFileSync(settings.resultFile, JSON.stringify(result, null, 2));
        if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
        else resolve();
      });
      runner.on('fail', (test, err: Error) => failed.push({ title: test.fullTitle(), error: err?.message ?? String(err) }));
    } catch (error) {
      console.log(OUTPUT_END);
      if (settings.resultFile) {
        const message = error instanceof Error ? error.stack ?? error.message : String(error);
        const result: IntegrationResult = { passes: 0, failures: 1, pending: 0, tests: 0, durationMs: 0, failed: [{ title: 'loading the suite', error: message }] };
        fs.writeFileSync(settings.resultFile, JSON.stringify(result, null, 2));
      }
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
