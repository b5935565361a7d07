import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.join(__dirname, '..', '..', '..');
const PAGE = path.join(ROOT, 'docs', 'settings.md');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { default: unknown }> } };
};

describe('docs/settings.md', () => {
  it('has a row for every setting with its default', () => {
    const page = fs.readFileSync(PAGE, 'utf8');
    const missing = Object.entries(pkg.contributes.configuration.properties)
      .filter(([key, prop]) => !page.includes(`| \`${key}\` | \`${JSON.stringify(prop.default)}\` |`))
      .map(([key]) => key);
    assert.deepEqual(missing, [], 'run: node scripts/gen-settings-doc.mjs');
  });

  it('is what scripts/gen-settings-doc.mjs writes from package.json (run it after changing a setting)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-doc-'));
    try {
      const out = path.join(dir, 'settings.md');
      const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'gen-settings-doc.mjs'), '--out', out], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(fs.readFileSync(PAGE, 'utf8'), fs.readFileSync(out, 'utf8'), 'docs/settings.md is stale: run node scripts/gen-settings-doc.mjs');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
