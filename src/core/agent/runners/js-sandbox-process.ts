import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import { JS_CHILD_SOURCE } from './js-child-source';
import { JS_GUEST_PRELUDE, wrapUserCode } from './js-guest-source';
import type { Supervised } from './supervisor';
import { ChildResultSchema, type KilledBy, type RunLimits } from './types';

/** QuickJS stack cap: larger stacks let deep recursion overflow V8's own stack and corrupt the runtime. */
export const QUICKJS_STACK_BYTES = 128 * 1024;
/** Wasm memory above the guest's limit (QuickJS runtime + context). */
const WASM_HEADROOM_MB = 32;
/** Node's own footprint above the wasm memory, for the RSS watchdog. */
const RSS_HEADROOM_MB = 160;
/** How long past its deadline a run may take before the process is killed (the guest may be blocked in sql()). */
const KILL_GRACE_MS = 250;
const RSS_POLL_MS = 50;
const STARTUP_TIMEOUT_MS = 30_000;

/** The installed directory of package `name` (its package.json is not exported, so cut the main file's path). */
function packageDir(name: string, from?: string): string {
  const main = require.resolve(name, from === undefined ? undefined : { paths: [from] });
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`;
  const at = main.lastIndexOf(marker);
  return at >= 0 ? main.slice(0, at + marker.length - 1) : path.dirname(main);
}

export interface JsJob {
  code: string;
  now: string;
  limits: RunLimits;
  signal?: AbortSignal;
  /** Answers the guest's toolbox requests (SQL). */
  onMessage: (message: unknown, reply: (value: unknown) => void) => void;
}

/**
 * One sandbox host process for JavaScript: a `node` child under the permission
 * model that runs QuickJS (see js-child-source.ts) and serves runs one at a
 * time. It stays warm between runs; any run that was killed, crashed or ran out
 * of memory makes it unhealthy, and the runner replaces it.
 */
export class QuickJsProcess {
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private readonly channel: NodeJS.ReadableStream & Writable;
  private onLine: ((line: string) => void) | undefined;
  private onExit: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;
  private pending = '';
  private stderr = '';
  private exited = false;
  private busy = false;
  healthy = true;

  constructor(readonly memoryMb: number) {
    const core = packageDir('quickjs-emscripten-core');
    const dirs = [core, packageDir('@jitl/quickjs-wasmfile-release-sync'), packageDir('@jitl/quickjs-ffi-types', core)];
    const args = [
      '--permission', // Node ≥ 22.13 (Node 24 dropped --experimental-permission)
      ...dirs.map((dir) => `--allow-fs-read=${dir}`),
      `--max-old-space-size=${Math.max(64, memoryMb)}`,
      '--disable-warning=ExperimentalWarning',
      '-e',
      JS_CHILD_SOURCE,
      String(memoryMb),
      String(QUICKJS_STACK_BYTES),
      JS_GUEST_PRELUDE,
      require.resolve('quickjs-emscripten-core'),
      require.resolve('@jitl/quickjs-wasmfile-release-sync'),
    ];
    this.child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { LANG: 'C.UTF-8', TZ: 'UTC' },
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.channel = this.child.stdio[3] as NodeJS.ReadableStream & Writable;
    this.child.unref();
    for (const s of [this.child.stderr, this.channel] as unknown as Array<{ unref?: () => void }>) s.unref?.();
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      if (this.stderr.length < 4000) this.stderr += chunk;
    });
    const decoder = new StringDecoder('utf8');
    this.channel.on('error', () => undefined);
    this.channel.on('data', (chunk: Buffer) => {
      this.pending += decoder.write(chunk);
      let nl = this.pending.indexOf('\n');
      while (nl >= 0) {
        const line = this.pending.slice(0, nl);
        this.pending = this.pending.slice(nl + 1);
        this.onLine?.(line);
        nl = this.pending.indexOf('\n');
      }
    });
    this.ready = new Promise<void>((resolve, reject) => {
      // A ref'd timer keeps the host's event loop alive while the process starts (everything else is unref'd).
      const startup = setTimeout(() => {
        this.kill();
        reject(new Error(`the JavaScript sandbox did not start within ${STARTUP_TIMEOUT_MS} ms`));
      }, STARTUP_TIMEOUT_MS);
      const fail = (error: Error): void => {
        clearTimeout(startup);
        reject(error);
      };
      this.onLine = (line) => {
        if (line !== '{"t":"ready"}') return;
        clearTimeout(startup);
        this.onLine = undefined;
        this.onExit = undefined;
        resolve();
      };
      this.onExit = (code, signal) => fail(new Error(`the JavaScript sandbox exited before it was ready (code ${code}, signal ${signal}) ${this.stderr.trim()}`.trim()));
      this.child.on('error', fail);
    });
    this.ready.catch(() => undefined);
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.healthy = false;
      this.onExit?.(code, signal);
    });
  }

  get idle(): boolean {
    return this.healthy && !this.busy && !this.exited;
  }

  /** Runs one program; resolves with what happened (never rejects once ready). */
  run(job: JsJob): Promise<Supervised> {
    this.busy = true;
    return new Promise<Supervised>((resolve) => {
      const started = performance.now();
      const out: string[] = [];
      const err: string[] = [];
      let used = 0;
      let truncated = false;
      let killedBy: KilledBy | undefined;
      let protocolError: string | undefined;
      const timers: NodeJS.Timeout[] = [];
      const finish = (extra: Partial<Supervised>): void => {
        for (const t of timers) clearTimeout(t);
        job.signal?.removeEventListener('abort', onAbort);
        this.onLine = undefined;
        this.onExit = undefined;
        this.busy = false;
        resolve({ stdout: out.join(''), stderr: err.join(''), truncated, killedBy, protocolError, exitCode: null, exitSignal: null, durationMs: performance.now() - started, ...extra });
      };
      const kill = (reason: KilledBy): void => {
        killedBy ??= reason;
        this.kill();
      };
      const reply = (value: unknown): void => {
        if (!this.exited && this.onLine === handle) this.channel.write(JSON.stringify(value) + '\n');
      };
      const handle = (line: string): void => {
        let message: { t?: unknown; fd?: unknown; text?: unknown; fatal?: unknown; error?: { kind?: unknown } };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          protocolError = 'the sandbox sent a line that is not JSON';
          kill('signal');
          return;
        }
        if (message.t === 'out' && typeof message.text === 'string') {
          const room = job.limits.outputBytes - used;
          let text = message.text;
          if (Buffer.byteLength(text) > room) {
            text = Buffer.from(text).subarray(0, Math.max(0, room)).toString('utf8');
            truncated = true;
          }
          used += Buffer.byteLength(text);
          (message.fd === 2 ? err : out).push(text);
          return;
        }
        if (message.t !== 'result') {
          job.onMessage(message, reply);
          return;
        }
        const parsed = ChildResultSchema.safeParse(message);
        if (!parsed.success) {
          protocolError = 'invalid result message';
          kill('signal');
          return;
        }
        const kind = parsed.data.error?.kind;
        if (message.fatal === true || kind === 'MemoryError') this.healthy = false;
        if (parsed.data.status === 'error' && kind === 'Timeout') {
          killedBy = 'timeout';
          finish({});
        } else if (parsed.data.status === 'error' && kind === 'OutputLimit') {
          killedBy = 'output';
          truncated = true;
          finish({});
        } else finish({ result: parsed.data });
      };
      const onAbort = (): void => kill('cancel');
      this.onLine = handle;
      this.onExit = (code, signal) => finish({ exitCode: code, exitSignal: signal, stderr: err.join('') + this.stderr });
      if (this.exited) {
        finish({ exitCode: this.child.exitCode, exitSignal: this.child.signalCode });
        return;
      }
      if (job.signal?.aborted) {
        kill('cancel');
        return;
      }
      job.signal?.addEventListener('abort', onAbort, { once: true });
      timers.push(setTimeout(() => kill('timeout'), job.limits.timeoutMs + KILL_GRACE_MS));
      if (process.platform === 'linux' && this.child.pid !== undefined) {
        const statm = `/proc/${this.child.pid}/statm`;
        const limitPages = ((this.memoryMb + WASM_HEADROOM_MB + RSS_HEADROOM_MB) * 1024 * 1024) / 4096;
        timers.push(
          setInterval(() => {
            try {
              if (Number(fs.readFileSync(statm, 'utf8').split(' ')[1]) > limitPages) kill('memory');
            } catch {
              // the process is gone; its exit handler finishes the run
            }
          }, RSS_POLL_MS),
        );
      }
      this.channel.write(JSON.stringify({ t: 'run', code: wrapUserCode(job.code), now: job.now, timeoutMs: job.limits.timeoutMs, outputBytes: job.limits.outputBytes }) + '\n');
    });
  }

  /** Kills the process (and anything in its process group). Idempotent. */
  kill(): void {
    this.healthy = false;
    if (this.exited || this.child.pid === undefined) return;
    try {
      if (process.platform !== 'win32') process.kill(-this.child.pid, 'SIGKILL');
      else this.child.kill('SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }
}
