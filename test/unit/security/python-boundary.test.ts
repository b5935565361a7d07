import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bwrapArgs, findBwrap, resolvePython } from '../../../src/core/agent/runners/python-sandbox';
import { listen, processesWith, ROOT, sleep, unique } from './attack-support';

/**
 * The OS boundary alone, without the bootstrap's audit hook and rlimits: plain
 * Python inside exactly the bubblewrap wrapper the runner uses. The audit hook
 * is not a security boundary, so the namespaces must hold by themselves.
 */
describe('python OS boundary without the audit hook', function () {
  this.timeout(30_000);

  it('blocks the network, host files and environment, and kills every process when the sandbox ends', async () => {
    const bwrap = findBwrap();
    assert.ok(bwrap, 'bubblewrap is installed (scripts/bootstrap.sh installs it)');
    const python = await resolvePython('python3');
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-boundary-'));
    const secretFile = path.join(os.tmpdir(), unique('boundary-secret'));
    const fileSecret = unique('file-secret');
    fs.writeFileSync(secretFile, fileSecret);
    const marker = unique('boundary-proc');
    const l = await listen();
    try {
      const code = `
import os, socket, sys
out = []
def attempt(name, f):
    try: out.append(name + ':' + repr(f())[:200])
    except BaseException as e: out.append(name + ':' + type(e).__name__)
attempt('tcp', lambda: socket.create_connection(('127.0.0.1', ${l.tcpPort}), timeout=1))
attempt('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('127.0.0.1', ${l.udpPort})))
for p in ['/etc/shadow', ${JSON.stringify(secretFile)}, ${JSON.stringify(path.join(ROOT, 'package.json'))}, '/proc/%d/environ' % os.getppid()]:
    attempt(p, lambda p=p: open(p, 'rb').read())
attempt('environ', lambda: dict(os.environ))
if os.fork() == 0:
    os.execv('/bin/sleep', ['/bin/sleep', '30', '${marker}']) if os.path.exists('/bin/sleep') else os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(30)', '${marker}'])
print('\\n'.join(out))
`;
      const child = spawn(bwrap, [...bwrapArgs(python, work, {}), python.executable, '-I', '-c', code], {
        // As the runner does: bwrap gets an empty environment (its init process is the sandbox's pid 1, whose environ the code can read).
        env: {},
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
      await sleep(500);
      assert.equal(exitCode, 0, output);
      assert.match(output, /tcp:/, output);
      assert.equal(l.received(), 0, `the loopback listeners were reached: ${output}`);
      assert.ok(!output.includes(fileSecret), `a host file leaked: ${output}`);
      assert.match(output, /\/proc\/1\/environ:b''/, 'the sandbox init process has an empty environment');
      assert.ok(!output.includes('"displayName"'), 'the repository was readable');
      assert.deepEqual(processesWith(marker), [], 'a forked process outlived the sandbox');
    } finally {
      await l.close();
      fs.rmSync(work, { recursive: true, force: true });
      fs.rmSync(secretFile, { force: true });
    }
  });
});
