/**
 * Issue 38: `npm ci` (npm 11.16+) warned "packages have install scripts not yet covered by
 * allowScripts". Every locked package with an install script (preinstall / install / postinstall,
 * or a binding.gyp npm builds with node-gyp) is reviewed in package.json's allowScripts. The
 * entries are name-only: the lockfile carries no `resolved` URLs, and npm matches a pinned entry
 * (name@version) only against a registry resolution.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('package.json allowScripts covers every install script', () => {
  it('each installed, locked package with an install script has an allowScripts entry', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
    const allowed = new Set(Object.keys(manifest.allowScripts ?? {}));
    const uncovered: string[] = [];
    for (const key of Object.keys(lock.packages)) {
      if (!key.startsWith('node_modules/')) continue;
      const dir = path.join(ROOT, key);
      const file = path.join(dir, 'package.json');
      if (!fs.existsSync(file)) continue; // an optional package not installed on this platform
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name: string; scripts?: Record<string, string> };
      const scripts = pkg.scripts ?? {};
      const installs = ['preinstall', 'install', 'postinstall'].some((s) => s in scripts) || fs.existsSync(path.join(dir, 'binding.gyp'));
      if (installs && !allowed.has(pkg.name)) uncovered.push(pkg.name);
    }
    assert.deepEqual(uncovered, [], 'review their install scripts, then add them to allowScripts (npm install-scripts approve <pkg>)');
  });
});
