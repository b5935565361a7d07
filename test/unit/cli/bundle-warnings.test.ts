/**
 * Issue 38: `npm run demo` and `npm run pack:cli` printed esbuild's "tsx/cjs should be marked as
 * external for use with require.resolve" three times: a literal require.resolve of tsx (a dev tool
 * the bundle does not ship) in src/core/worker-script.ts. Each Node target of scripts/bundle.mjs,
 * bundled with its entry points and externals, builds without a warning.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCRIPT = fs.readFileSync(path.join(ROOT, 'scripts', 'bundle.mjs'), 'utf8');

describe('the esbuild bundle builds without warnings', function () {
  this.timeout(120_000);
  const external = JSON.parse((/const EXTERNAL = (\[[^\]]*\]);/.exec(SCRIPT)?.[1] ?? '[]').replace(/'/g, '"')) as string[];
  const entries = [...SCRIPT.matchAll(/\{ entry: '([^']+)'/g)].map((m) => m[1]);

  it('reads the targets of scripts/bundle.mjs', () => {
    assert.ok(external.includes('better-sqlite3'), `externals: ${external.join(', ')}`);
    assert.ok(entries.includes('src/extension.ts') && entries.includes('src/cli/main.ts') && entries.length >= 4, `entries: ${entries.join(', ')}`);
  });

  it('no Node target warns (nothing is written)', async () => {
    for (const entry of entries) {
      const result = await build({ bundle: true, platform: 'node', format: 'cjs', target: 'node22', external, logLevel: 'silent', absWorkingDir: ROOT, entryPoints: [path.join(ROOT, entry)], outfile: path.join(ROOT, 'dist', 'check.js'), write: false });
      assert.deepEqual(result.warnings.map((w) => `${w.text} (${w.location?.file ?? '?'}:${w.location?.line ?? '?'})`), [], entry);
    }
  });
});
