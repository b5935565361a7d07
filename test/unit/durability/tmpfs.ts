import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Mounts a small tmpfs (a real file system that really fills up / really goes
 * read-only). Needs root (CI and the dev machines run as root). When mounting
 * is not permitted this throws, so the test FAILS with the reason: it is never skipped.
 */
export function mountTmpfs(sizeKiB: number): { dir: string; readOnly(): void; unmount(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'am-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`This test needs a real small file system: 'mount -t tmpfs' failed (${stderr || String(error)}). Run the tests as root (CI does) or in a container with CAP_SYS_ADMIN.`);
  }
  return {
    dir,
    readOnly: () => execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' }),
    unmount: () => {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
