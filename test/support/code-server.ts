/**
 * Start and stop a real code-server (VS Code 1.139 workbench + Node 24 extension host)
 * installed by scripts/bootstrap.sh into `.cache/code-server/`. Every run gets its own
 * temp dirs (user data, extensions, XDG config/data) so nothing touches $HOME.
 *
 * @example
 *   const server = await startCodeServer({ workspaceFolder: '/tmp/ws' });
 *   const url = workbenchUrl(server, { folder: '/tmp/ws', extensionDevelopmentPath: REPO_ROOT });
 *   // ... drive `url` with Chromium (see workbench.ts)
 *   await server.stop();
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** Repository root (this file is test/support/code-server.ts, or out/test/support/code-server.js). */
export const REPO_ROOT = findRepoRoot(__dirname);
export const CODE_SERVER_VERSION = '4.139.1';
const HEALTH_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'scripts', 'bootstrap.sh'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the repository root above ${start}`);
    dir = parent;
  }
}

/** Path of the code-server launcher installed by bootstrap (it names its Node 24 runtime); throws a clear error when absent. */
export function codeServerBinary(): string {
  const cache = process.env.AGENT_MEMORY_CACHE ?? path.join(REPO_ROOT, '.cache');
  const bin = path.join(cache, 'code-server', CODE_SERVER_VERSION, 'bin', 'code-server');
  if (!fs.existsSync(bin)) throw new Error(`code-server ${CODE_SERVER_VERSION} is not installed (${bin} missing): run 'bash scripts/bootstrap.sh'`);
  return bin;
}

/** A free TCP port on 127.0.0.1 (asks the OS, then releases it). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

export interface CodeServerDirs {
  /** --user-data-dir */
  userDataDir: string;
  /** --extensions-dir */
  extensionsDir: string;
  /** XDG_CONFIG_HOME and XDG_DATA_HOME point below this */
  xdgDir: string;
}

/** Creates (or reuses) the per-run directories below `base`. */
export function makeDirs(base: string): CodeServerDirs {
  const dirs = { userDataDir: path.join(base, 'user-data'), extensionsDir: path.join(base, 'extensions'), xdgDir: path.join(base, 'xdg') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  // Keep the workbench quiet and deterministic in tests.
  const settingsDir = path.join(dirs.userDataDir, 'User');
  fs.mkdirSync(settingsDir, { recursive: true });
  const settingsFile = path.join(settingsDir, 'settings.json');
  if (!fs.existsSync(settingsFile)) {
    const settings = {
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'extensions.autoUpdate': false,
      'extensions.autoCheckUpdates': false,
      'extensions.ignoreRecommendations': true,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'security.workspace.trust.enabled': false,
      'chat.disableAIFeatures': true,
      // VS Code ≥ 1.10x opens an (empty, with AI features off) secondary side bar by default.
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
    };
    fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  }
  return dirs;
}

function envFor(dirs: CodeServerDirs, extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    XDG_CONFIG_HOME: path.join(dirs.xdgDir, 'config'),
    XDG_DATA_HOME: path.join(dirs.xdgDir, 'data'),
    XDG_CACHE_HOME: path.join(dirs.xdgDir, 'cache'),
    ...extra,
  };
}

/** Installs a VSIX into `dirs.extensionsDir` (about 1 s). */
export function installVsix(vsix: string, dirs: CodeServerDirs): void {
  if (!fs.existsSync(vsix)) throw new Error(`VSIX not found: ${vsix} (run 'npm run package')`);
  const r = spawnSync(
    codeServerBinary(),
    ['--install-extension', vsix, '--force', '--extensions-dir', dirs.extensionsDir, '--user-data-dir', dirs.userDataDir],
    { env: envFor(dirs), encoding: 'utf8', timeout: 60_000 },
  );
  if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
}

export interface StartOptions {
  /** Folder opened by default (also passed on the command line). */
  workspaceFolder: string;
  /** Where to keep user data / extensions / XDG dirs; a new temp dir when omitted. */
  baseDir?: string;
  /** VSIX to install before starting. */
  vsix?: string;
  host?: string;
  port?: number;
  env?: NodeJS.ProcessEnv;
  /** Also copy code-server's output to this stream (e.g. process.stderr for the demo). */
  echo?: NodeJS.WritableStream;
  /**
   * Load a development extension (and run extension tests) from the workbench URL payload
   * (see workbenchUrl). A built VS Code ≥ 1.10x web workbench reads `extensionDevelopmentPath`
   * and `extensionTestsPath` from the payload only when its smoke-test driver is enabled
   * (`!isBuilt || enableSmokeTestDriver`); without it the payload is ignored silently and
   * no development extension and no test runner ever start. This passes VS Code's
   * `--enable-smoke-test-driver` through code-server's `--vscode-option`.
   */
  extensionDevelopment?: boolean;
}

export interface CodeServer {
  host: string;
  port: number;
  /** http://host:port */
  url: string;
  dirs: CodeServerDirs;
  baseDir: string;
  process: ChildProcess;
  /** Everything code-server printed so far. */
  output(): string;
  /** SIGTERM the process group, SIGKILL after a grace period; removes a temp baseDir. */
  stop(): Promise<void>;
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/healthz`, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(1000, () => req.destroy());
  });
}

/** Starts code-server and resolves once /healthz answers. */
export async function startCodeServer(options: StartOptions): Promise<CodeServer> {
  const bin = codeServerBinary();
  const ownBase = !options.baseDir;
  const baseDir = options.baseDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-cs-'));
  const dirs = makeDirs(baseDir);
  if (options.vsix) installVsix(options.vsix, dirs);
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const args = [
    '--auth', 'none',
    '--bind-addr', `${host}:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--user-data-dir', dirs.userDataDir,
    '--extensions-dir', dirs.extensionsDir,
    // The extension host gets exactly this process's environment: VS Code would otherwise run
    // the login shell (`$SHELL -ilc`) first, which on a loaded machine hits its 10 s timeout
    // before every extension-host start ("Unable to resolve your shell environment").
    '--vscode-option', 'force-disable-user-env',
    ...(options.extensionDevelopment ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    options.workspaceFolder,
  ];
  const child = spawn(bin, args, { env: envFor(dirs, options.env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const collect = (chunk: Buffer): void => {
    out += chunk.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
    options.echo?.write(chunk);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));

  const url = `http://${host}:${port}`;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (exited === undefined && child.pid) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, STOP_GRACE_MS);
      await gone;
      clearTimeout(timer);
    }
    if (ownBase) fs.rmSync(baseDir, { recursive: true, force: true });
  };
  const server: CodeServer = { host, port, url, dirs, baseDir, process: child, output: () => out, stop };

  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (!(await healthy(url))) {
    if (exited !== undefined) {
      await stop();
      throw new Error(`code-server ${exited} before answering /healthz:\n${out.slice(-4000)}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`code-server did not answer ${url}/healthz within ${HEALTH_TIMEOUT_MS} ms:\n${out.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return server;
}

export interface WorkbenchUrlOptions {
  folder: string;
  /** Absolute path of an extension folder to load as the development extension. */
  extensionDevelopmentPath?: string;
  /** Absolute path of a compiled mocha index exporting run() (extension-host tests). */
  extensionTestsPath?: string;
}

/**
 * Workbench URL. code-server has no --extensionDevelopmentPath flag, but the browser
 * workbench reads the same options from the `payload` query parameter, provided the
 * server was started with `extensionDevelopment: true` (see StartOptions).
 */
export function workbenchUrl(server: Pick<CodeServer, 'url' | 'host' | 'port'>, options: WorkbenchUrlOptions): string {
  const remote = (p: string): string => `vscode-remote://${server.host}:${server.port}${p}`;
  const payload: [string, string][] = [];
  if (options.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(options.extensionDevelopmentPath)]);
  if (options.extensionTestsPath) payload.push(['extensionTestsPath', remote(options.extensionTestsPath)]);
  let url = `${server.url}/?folder=${encodeURIComponent(options.folder)}`;
  if (payload.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}
