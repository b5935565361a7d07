#!/usr/bin/env node
// `npm run pack:cli`: the installable `agent-memory` CLI and MCP server as an npm package.
//
// Stages a package of its own (the root package.json is the extension's manifest, and vsce
// refuses a `files` list next to .vscodeignore) and runs `npm pack` on it:
//   bin agent-memory -> dist/cli.js (the esbuild bundle: openai, zod, MiniSearch, the MCP SDK inlined)
//   dist/keyword-worker.js, dist/domain-values-worker.js, the EHR demo data (for `seed` and `run`), README, docs/*.md, CHANGELOG, LICENSE
//   dependencies: only the native / loadable modules the bundle leaves external, at the
//   versions of the root package.json (so an install needs no build step and no other package).
// The result runs with no checkout:  npx -y ./agent-memory-<version>.tgz mcp --db memory.sqlite
//
// Usage: node scripts/pack-cli.mjs [--out DIR] [--no-build]
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const outDir = resolve(outIndex >= 0 ? args[outIndex + 1] : root);
const say = (message) => process.stdout.write(`[pack-cli] ${message}\n`);

/** The modules scripts/bundle.mjs keeps external: the CLI's only runtime dependencies. */
const RUNTIME_DEPENDENCIES = ['better-sqlite3', 'sqlite-vec', 'quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync'];
const FILES = [
  'dist/cli.js',
  'dist/keyword-worker.js',
  'dist/domain-values-worker.js',
  'data/ehr/README.md',
  'data/ehr/EHRSQL-LICENSE-CC-BY-4.0.txt',
  'data/ehr/MIMIC-III-DEMO-LICENSE-ODbL.txt',
  'data/ehr/mimic3-demo.sqlite',
  'data/ehr/ehrsql-mimic3-tasks.jsonl',
  'README.md',
  'CHANGELOG.md',
  'LICENSE',
  // the pages the README links (MCP setup, CLI, security, team memory, …), so its links work in the package
  ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
];

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (!args.includes('--no-build')) {
  say('building (tsc + esbuild)');
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root], { stdio: 'inherit' });
  execFileSync(process.execPath, [join(root, 'scripts', 'bundle.mjs'), '--quiet'], { stdio: 'inherit', cwd: root });
}

const stage = join(root, '.cache', 'cli-package');
rmSync(stage, { recursive: true, force: true });
for (const file of FILES) {
  const from = join(root, file);
  if (!existsSync(from)) throw new Error(`pack-cli: ${file} is missing (run npm run build first)`);
  mkdirSync(dirname(join(stage, file)), { recursive: true });
  copyFileSync(from, join(stage, file));
}
const dependencies = Object.fromEntries(
  RUNTIME_DEPENDENCIES.map((name) => {
    const version = manifest.dependencies?.[name];
    if (!version) throw new Error(`pack-cli: ${name} is not a dependency in package.json`);
    return [name, version];
  }),
);
const cliManifest = {
  name: manifest.name,
  version: manifest.version,
  description: 'Agent Memory: the managed episodic memory of coding agents as a CLI and an MCP server (memory_search, memory_record, memory_feedback).',
  license: manifest.license,
  bin: { 'agent-memory': 'dist/cli.js' },
  files: FILES,
  engines: { node: manifest.engines.node },
  dependencies,
};
writeFileSync(join(stage, 'package.json'), JSON.stringify(cliManifest, null, 2) + '\n');

mkdirSync(outDir, { recursive: true });
const out = execFileSync('npm', ['pack', '--pack-destination', outDir, '--json'], { cwd: stage, encoding: 'utf8' });
const [info] = JSON.parse(out);
const tarball = join(outDir, info.filename);
say(`${tarball} (${(info.size / 1024 / 1024).toFixed(1)} MB, ${info.entryCount} files; bin agent-memory; dependencies: ${RUNTIME_DEPENDENCIES.join(', ')})`);
process.stdout.write(`${tarball}\n`);
