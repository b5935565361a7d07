#!/usr/bin/env node
// Bundles the extension and the CLI with esbuild (the type-check is `tsc -p .`, run before).
//   src/extension.ts -> dist/extension.js   (loaded by VS Code)
//   src/cli/main.ts  -> dist/cli.js         (the `agent-memory` bin, with a shebang)
//   src/core/memory/keyword/keyword-worker.ts -> dist/keyword-worker.js (keyword index worker thread)
//   src/core/data/domain-values-worker.ts -> dist/domain-values-worker.js (agent database values, re-ranking)
// Native / loadable modules stay external and ship beside the bundle (see .vscodeignore):
// better-sqlite3 (Node-API prebuilds for every platform) in node_modules, the sqlite-vec
// loadables in native/ (loaded by explicit path, src/core/memory/sqlite/native-sqlite.ts), QuickJS
// (loaded by the JavaScript sandbox's own process). Everything else (openai, zod, minisearch, @lezer/*, acorn) is inlined.
//
// Usage: node scripts/bundle.mjs [--minify] [--quiet]
import { build } from 'esbuild';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const minify = process.argv.includes('--minify');
const quiet = process.argv.includes('--quiet');
const EXTERNAL = ['vscode', 'better-sqlite3', 'quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync'];

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  external: EXTERNAL,
  sourcemap: true,
  minify,
  keepNames: true,
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: root,
};

const targets = [
  { entry: 'src/extension.ts', out: 'dist/extension.js', required: true },
  { entry: 'src/cli/main.ts', out: 'dist/cli.js', required: false, cli: true },
  // The keyword index's worker thread (found beside the bundle by keyword-service.ts).
  { entry: 'src/core/memory/keyword/keyword-worker.ts', out: 'dist/keyword-worker.js', required: true },
  // The worker thread that reads the agent database's values for the re-ranking (found beside the bundle by domain-values-reader.ts).
  { entry: 'src/core/data/domain-values-worker.ts', out: 'dist/domain-values-worker.js', required: true },
];

const t0 = Date.now();
for (const t of targets) {
  const entry = join(root, t.entry);
  if (!existsSync(entry)) {
    if (t.required) throw new Error(`bundle: ${t.entry} is missing`);
    continue;
  }
  const hasShebang = readFileSync(entry, 'utf8').startsWith('#!');
  const result = await build({
    ...common,
    entryPoints: [entry],
    outfile: join(root, t.out),
    // esbuild keeps an entry point's own hashbang; add one only when the source lacks it.
    banner: t.cli && !hasShebang ? { js: '#!/usr/bin/env node' } : undefined,
  });
  if (t.cli) chmodSync(join(root, t.out), 0o755);
  if (!quiet) {
    const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + (o.bytes ?? 0), 0);
    const js = result.metafile.outputs[relative(root, join(root, t.out))]?.bytes ?? bytes;
    process.stdout.write(`[bundle] ${t.entry} -> ${t.out} (${(js / 1024).toFixed(0)} KiB)\n`);
  }
}
// The dashboard webview script with Chart.js inlined (no CDN; loaded under a nonce CSP).
{
  const out = 'dist/dashboard.js';
  await build({ bundle: true, platform: 'browser', format: 'iife', target: 'es2022', minify, sourcemap: false, logLevel: 'warning', absWorkingDir: root, entryPoints: [join(root, 'src/vscode/dashboard/webview/dashboard-view.js')], outfile: join(root, out) });
  if (!quiet) process.stdout.write(`[bundle] dashboard webview -> ${out}\n`);
}
if (!quiet) process.stdout.write(`[bundle] done in ${Date.now() - t0} ms${minify ? ' (minified)' : ''}\n`);
