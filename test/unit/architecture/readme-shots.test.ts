/**
 * Issue 38: `npm test` rewrote the tracked README screenshots (media/screenshots/*.png) on every
 * run, leaving the work tree dirty. The e2e suite now writes them there only when asked.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { README_SHOTS_DIR, readmeShotsDir } from '../../support/readme-shots';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('README screenshots are retaken only when asked', () => {
  it('an ordinary run writes them to a git-ignored folder, not to the tracked media/screenshots', () => {
    const dir = readmeShotsDir({}, ['node', 'mocha']);
    assert.notEqual(dir, README_SHOTS_DIR);
    // git ignores where they go (a path that does not exist yet is checked as it would be).
    const ignored = execFileSync('git', ['check-ignore', '--no-index', path.join(dir, 'dashboard.png')], { cwd: ROOT, encoding: 'utf8' }).trim();
    assert.equal(path.resolve(ROOT, ignored), path.join(dir, 'dashboard.png'));
  });

  it('AGENT_MEMORY_SCREENSHOTS=1 or --screenshots writes them where the README reads them', () => {
    assert.equal(readmeShotsDir({ AGENT_MEMORY_SCREENSHOTS: '1' }, ['node', 'mocha']), README_SHOTS_DIR);
    assert.equal(readmeShotsDir({}, ['node', 'mocha', '--screenshots']), README_SHOTS_DIR);
    assert.notEqual(readmeShotsDir({ AGENT_MEMORY_SCREENSHOTS: '0' }, ['node', 'mocha']), README_SHOTS_DIR);
    // The README reads its pictures from that folder.
    assert.ok(fs.readdirSync(README_SHOTS_DIR).includes('dashboard.png'));
    assert.equal(README_SHOTS_DIR, path.join(ROOT, 'media', 'screenshots'));
  });

  it('the e2e suite copies its README shots through this rule (no other writer of media/screenshots)', () => {
    const e2e = fs.readdirSync(path.join(ROOT, 'test', 'e2e')).filter((f) => f.endsWith('.ts'));
    for (const f of e2e) {
      const text = fs.readFileSync(path.join(ROOT, 'test', 'e2e', f), 'utf8');
      assert.doesNotMatch(text, /'media',\s*'screenshots'|media\/screenshots'/, `${f} names media/screenshots itself`);
      if (text.includes('copyReadmeShot')) assert.match(text, /readmeShotsDir\(\)/, `${f} copies README shots through readmeShotsDir()`);
    }
  });
});
