#!/usr/bin/env node
// The same integration suite (out/test/integration/index.js) in desktop VS Code through
// @vscode/test-electron. For machines WITH internet (it downloads VS Code into
// .vscode-test/); on the offline build machines use scripts/run-vscode-tests.mjs
// (code-server + Chromium) instead: this one fails at once with ENOTFOUND there.
//
// Usage: npm run build && node scripts/run-vscode-tests-electron.mjs [--vscode-version stable|1.101.0] [--grep PATTERN]
//
// Native modules: none to rebuild. better-sqlite3 13 is Node-API, so its prebuild for this
// platform (node_modules/better-sqlite3/prebuilds/) loads in Electron as it does in Node; the
// sqlite-vec loadable is a plain SQLite extension. Used by .github/workflows/ci.yml on Linux,
// macOS and Windows (xvfb-run on Linux).
import { runTests } from '@vscode/test-electron';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

async function main() {
  const testsIndex = join(root, 'out', 'test', 'integration', 'index.js');
  if (!existsSync(testsIndex)) throw new Error(`${testsIndex} missing: run 'npm run build' first`);
  const tmp = mkdtempSync(join(tmpdir(), 'agent-memory-ite-'));
  const workspace = join(tmp, 'workspace');
  const resultFile = join(tmp, 'result.json');
  const grep = opt('--grep');
  // Same settings channel as the code-server runner (a file in the workspace folder) ...
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, '.agent-memory-test.json'), JSON.stringify({ resultFile, grep, repoRoot: root }, null, 2));
  let code = 1;
  try {
    code = await runTests({
      version: opt('--vscode-version') ?? 'stable',
      extensionDevelopmentPath: root,
      extensionTestsPath: testsIndex,
      // ... and, since desktop VS Code honours it, the environment too.
      extensionTestsEnv: { AGENT_MEMORY_TEST_RESULT: resultFile, ...(grep ? { AGENT_MEMORY_TEST_GREP: grep } : {}) },
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', '--skip-welcome', '--skip-release-notes'],
    });
  } catch (error) {
    process.stderr.write(`[integration/electron] ${error instanceof Error ? error.message : error}\n`);
  }
  const result = existsSync(resultFile) ? JSON.parse(readFileSync(resultFile, 'utf8')) : { passes: 0, failures: 1 };
  rmSync(tmp, { recursive: true, force: true });
  const failed = code !== 0 && result.failures === 0 ? 1 : result.failures;
  process.stdout.write(`integration (electron): ${result.passes} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error) => {
  process.stderr.write(`[integration/electron] FAILED TO RUN: ${error instanceof Error ? error.stack : error}\n`);
  process.stdout.write('integration (electron): 0 passed, 1 failed\n');
  process.exitCode = 1;
});
