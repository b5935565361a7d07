import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { AgentMemoryError, errorMessage } from '../../errors';

/** How generated Python is isolated: `sandbox` (an OS boundary, required) or `none` (unconfined, opt-in only). */
export const RUNNER_ISOLATIONS = ['sandbox', 'none'] as const;
export type RunnerIsolation = (typeof RUNNER_ISOLATIONS)[number];

/** Where the run's working directory appears inside the sandbox. */
export const SANDBOX_WORK_DIR = '/sandbox';

/** The real interpreter behind `python3` (a pyenv shim or a symlink resolved). */
export interface PythonInterpreter {
  executable: string;
  /** Directories holding the interpreter, its stdlib and its shared libraries. */
  prefixes: string[];
}

const ProbeSchema = z.tuple([z.string().min(1), z.string().min(1), z.string().min(1)]);

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 15_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) {
        const failure: Error & { stderr?: string } = error;
        failure.stderr = String(stderr);
        reject(failure);
      }
      else resolve(String(stdout));
    });
  });
}

/** Asks `python` (looked up on PATH with the host's environment: this is our own probe) where it really lives. */
export async function resolvePython(python: string): Promise<PythonInterpreter> {
  const out = await run(python, ['-I', '-c', 'import sys, json; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix]))'], process.env);
  const [executable, prefix, basePrefix] = ProbeSchema.parse(JSON.parse(out.trim()));
  const real = fs.realpathSync(executable);
  const prefixes = [...new Set([prefix, basePrefix].map((p) => fs.realpathSync(p)))];
  return { executable: real, prefixes };
}

const BWRAP_CANDIDATES = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];

/** The bubblewrap binary, or undefined when none is installed. */
export function findBwrap(): string | undefined {
  const onPath = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, 'bwrap'));
  return [...BWRAP_CANDIDATES, ...onPath].find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Top-level directories that may be symlinks into /usr on merged-/usr systems. */
const LINKED_ROOTS = ['/bin', '/lib', '/lib64', '/sbin'];

/**
 * bubblewrap arguments that confine one Python run: new user, mount, pid, net,
 * ipc, uts and cgroup namespaces; no capabilities; an empty environment; a
 * read-only view of only the shared libraries (/usr/lib*), the interpreter and
 * its prefix; the run's working directory (read-write) at /sandbox; a private
 * /proc (only the sandbox's own processes) and a minimal /dev; a tmpfs /tmp.
 * `--die-with-parent` plus the pid namespace mean killing bwrap kills every
 * process the code started. Spawn bwrap itself with an EMPTY environment: its
 * init process is the sandbox's pid 1, whose /proc/1/environ the code can read.
 */
export function bwrapArgs(python: PythonInterpreter, workDir: string, env: Record<string, string>): string[] {
  const args = ['--unshare-all', '--unshare-user', '--die-with-parent', '--new-session', '--clearenv', '--cap-drop', 'ALL'];
  args.push('--uid', '65534', '--gid', '65534', '--hostname', 'sandbox');
  for (const dir of ['/usr/lib', '/usr/lib64']) if (fs.existsSync(dir)) args.push('--ro-bind', dir, dir);
  for (const root of LINKED_ROOTS) {
    let target: string | undefined;
    try {
      target = fs.readlinkSync(root);
    } catch {
      target = undefined;
    }
    if (target !== undefined) args.push('--symlink', target, root);
    else if (fs.existsSync(root) && root !== '/bin' && root !== '/sbin') args.push('--ro-bind', root, root);
  }
  args.push('--ro-bind', python.executable, python.executable);
  for (const prefix of python.prefixes) {
    if (prefix !== '/usr' && prefix !== '/') args.push('--ro-bind', prefix, prefix);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--bind', workDir, SANDBOX_WORK_DIR, '--chdir', SANDBOX_WORK_DIR);
  for (const [key, value] of Object.entries(env)) args.push('--setenv', key, value);
  return args;
}

/**
 * Checks once that bubblewrap can set up the boundary here (namespaces allowed)
 * by running the interpreter inside it. Throws AgentMemoryError('RUNNER') naming
 * the cause and the ways forward when it cannot.
 */
export async function checkSandbox(python: PythonInterpreter, workDir: string): Promise<string> {
  const refuse = (cause: string): never => {
    throw new AgentMemoryError(
      'RUNNER',
      `Python code is not run: ${cause}. Generated code only runs behind an OS sandbox (bubblewrap with user namespaces, Linux). ` +
        'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) on a Linux with unprivileged user namespaces, or set agentMemory.runner.language to "javascript" (sandboxed everywhere). ' +
        'Only if you accept running untrusted code unconfined, set agentMemory.runner.isolation to "none".',
      { platform: process.platform },
    );
  };
  if (process.platform !== 'linux') refuse(`there is no sandbox this product can set up on ${process.platform}`);
  const bwrap = findBwrap();
  if (bwrap === undefined) refuse('bubblewrap (bwrap) is not installed');
  try {
    await run(bwrap as string, [...bwrapArgs(python, workDir, {}), python.executable, '-I', '-c', 'pass'], {});
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    refuse(`bubblewrap could not set up the sandbox (${stderr || errorMessage(error)}); user namespaces may be disabled`);
  }
  return bwrap as string;
}
