#!/usr/bin/env node
// Runs the mocha integration suite (out/test/integration/index.js) inside the extension
// host of a real VS Code: code-server 4.139.1 (from scripts/bootstrap.sh) driven by the
// system Chromium. The repo is loaded as the development extension through the
// workbench URL `payload` (extensionDevelopmentPath + extensionTestsPath), which the built
// workbench honours only with VS Code's smoke-test driver enabled (startCodeServer's
// extensionDevelopment); the workbench calls window.codeAutomationExit(code) when run() settles.
//
// Usage: node scripts/run-vscode-tests.mjs [--no-build] [--grep PATTERN]
//                                          [--counts-file FILE] [--keep] [--timeout SECONDS]
//   --no-build     skip bundling + compiling the tests (test-all.sh builds first)
//   --counts-file  write {"passed":N,"failed":N} there (read by scripts/test-all.sh)
//   --keep         keep the temp dir (code-server logs, workspace) for debugging
// Exit code: 0 when every test passed; 1 otherwise, including when the suite cannot start.
// On a machine with internet the same suite runs in desktop VS Code:
//   node scripts/run-vscode-tests-electron.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { require as tsxRequire } from 'tsx/cjs/api';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const flag = (name) => args.includes(name);
const grep = opt('--grep');
const countsFile = opt('--counts-file');
const timeoutMs = Number(opt('--timeout') ?? 600) * 1000;
const keep = flag('--keep');
const log = (m) => process.stderr.write(`[integration] ${m}\n`);

function step(cmd, cmdArgs) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed (${r.status ?? r.signal})`);
}

function finish(passed, failed, extra = '') {
  if (countsFile) writeFileSync(countsFile, JSON.stringify({ passed, failed }));
  process.stdout.write(`integration: ${passed} passed, ${failed} failed${extra}\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

async function main() {
  const t0 = Date.now();
  if (!flag('--no-build')) {
    step(process.execPath, [join(root, 'scripts', 'bundle.mjs'), '--quiet']);
    step(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'scripts', 'tsconfig.integration.json')]);
  }
  const testsIndex = join(root, 'out', 'test', 'integration', 'index.js');
  if (!existsSync(testsIndex)) throw new Error(`${testsIndex} missing: run 'npm run build' first`);
  if (!existsSync(join(root, 'dist', 'extension.js'))) throw new Error("dist/extension.js missing: run 'npm run build' first");

  const { startCodeServer, workbenchUrl } = tsxRequire('../test/support/code-server.ts', import.meta.url);
  const { launchBrowser } = tsxRequire('../test/support/workbench.ts', import.meta.url);

  const tmp = mkdtempSync(join(tmpdir(), 'agent-memory-it-'));
  const workspace = join(tmp, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const resultFile = join(tmp, 'result.json');
  writeFileSync(join(workspace, '.agent-memory-test.json'), JSON.stringify({ resultFile, grep, repoRoot: root }, null, 2));

  let server;
  let browser;
  const workbenchLines = [];
  try {
    // extensionDevelopment: without VS Code's smoke-test driver the built workbench ignores
    // the payload below, so neither the extension nor the tests would ever load.
    server = await startCodeServer({ workspaceFolder: workspace, baseDir: join(tmp, 'code-server'), extensionDevelopment: true });
    log(`code-server up at ${server.url} after ${Date.now() - t0} ms`);
    browser = await launchBrowser();
    const page = await (await browser.newContext()).newPage();
    let settle;
    const exited = new Promise((resolve) => (settle = resolve));
    await page.exposeFunction('codeAutomationExit', (code) => settle(Number(code)));
    // Mocha's reporter runs in the extension host; its console output reaches the page
    // as workbench log lines ['%c INFO', 'color: …', format, ...args]. Stream what the
    // suite logs between its begin/end markers; keep the rest for diagnosis on failure.
    let inSuite = false;
    let queue = Promise.resolve();
    page.on('console', (m) => {
      queue = queue.then(async () => {
        const values = await Promise.all(m.args().map((a) => a.jsonValue().catch(() => '')));
        const styled = typeof values[0] === 'string' && /^%c\s*[A-Z]+$/.test(values[0]);
        const text = styled ? format(...values.slice(2)) : values.length ? format(...values) : m.text();
        if (text === 'agent-memory-tests:begin') inSuite = true;
        else if (text === 'agent-memory-tests:end') inSuite = false;
        else if (inSuite) process.stdout.write(text.replace(/\s+$/, '') + '\n');
        else if (text) workbenchLines.push(`[${m.type()}] ${text}`);
      });
    });
    page.on('pageerror', (e) => log(`page error: ${e.message}`));
    const url = workbenchUrl(server, { folder: workspace, extensionDevelopmentPath: root, extensionTestsPath: testsIndex });
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const code = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    await queue;
    if (code === 'timeout') throw new Error(`no result from the extension host within ${timeoutMs / 1000} s\nworkbench console:\n${workbenchLines.slice(-40).join('\n')}`);

    if (!existsSync(resultFile)) {
      throw new Error(`the extension host exited with ${code} but wrote no result (did run() load?)\nworkbench console:\n${workbenchLines.slice(-40).join('\n')}\ncode-server:\n${server.output().slice(-3000)}`);
    }
    const result = JSON.parse(readFileSync(resultFile, 'utf8'));
    let failed = result.failures;
    if (code !== 0 && failed === 0) failed = 1; // exit code says failure even if mocha counted none
    finish(result.passes, failed, ` (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (!keep) rmSync(tmp, { recursive: true, force: true });
    else log(`kept ${tmp}`);
  }
}

main().catch((error) => {
  process.stderr.write(`[integration] FAILED TO RUN: ${error instanceof Error ? error.stack ?? error.message : error}\n`);
  finish(0, 1);
});
