/**
 * Where the e2e suite writes the screenshots the README shows. The tracked files in
 * media/screenshots/ are rewritten only when asked (`AGENT_MEMORY_SCREENSHOTS=1`, or
 * `--screenshots` on the test command line), so `npm test` leaves the work tree clean;
 * otherwise they go beside the suite's other shots in test-results/ (git-ignored).
 *
 * Retake them: `AGENT_MEMORY_SCREENSHOTS=1 npm run test:e2e` (or `npm run test:e2e -- --screenshots`),
 * then review and commit media/screenshots/*.png.
 */
import * as path from 'node:path';
import { REPO_ROOT } from './code-server';

export const README_SHOTS_DIR = path.join(REPO_ROOT, 'media', 'screenshots');
export const SCREENSHOTS_ENV = 'AGENT_MEMORY_SCREENSHOTS';

/** Whether this run retakes the README's screenshots. */
export function retakeReadmeShots(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): boolean {
  return env[SCREENSHOTS_ENV] === '1' || argv.includes('--screenshots');
}

/** The folder the README shots of this run go to: media/screenshots when retaking them, else test-results/screenshots/readme. */
export function readmeShotsDir(env: NodeJS.ProcessEnv = process.env, argv: readonly string[] = process.argv): string {
  return retakeReadmeShots(env, argv) ? README_SHOTS_DIR : path.join(REPO_ROOT, 'test-results', 'screenshots', 'readme');
}
