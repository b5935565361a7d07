import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Writable } from 'node:stream';
import { ChildResultSchema, type ChildResult, type KilledBy, type RunLimits } from './types';

/** How one sandboxed child is started and supervised. */
export interface SuperviseOptions {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  limits: RunLimits;
  signal?: AbortSignal;
  /** Kill when the child's resident memory exceeds this (Linux, polled); undefined = no watchdog. */
  rssLimitMb?: number;
  /** Messages other than the final result, received on fd 3 (NDJSON); `reply` writes one line back. */
  onMessage?: (message: unknown, reply: (value: unknown) => void) => void;
}

/** What happened to the child. */
export interface Supervised {
  stdout: string;
  stderr: string;
  truncated: boolean;
  killedBy?: KilledBy;
  /** The child's validated final message, when it sent one. */
  result?: ChildResult;
  /** A malformed final message (protocol violation), when one arrived. */
  protocolError?: string;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  durationMs: number;
}

/** Upper bound of one fd-3 line (the final result carries the answer). */
const MAX_CHANNEL_LINE = 32 * 1024 * 1024;
/** How long a child that sent its result may take to exit by itself. */
const EXIT_GRACE_MS = 300;
const RSS_POLL_MS = 50;
/** After the child exits, how long its pipes may stay open before they are destroyed (last resort). */
const PIPE_DRAIN_MS = 5_000;

/**
 * Spawns a child with stdio [ignore, stdout, stderr, channel] and enforces the
 * limits: wall-clock timeout (SIGKILL), combined output cap (truncate + kill),
 * optional RSS watchdog, cancellation through `signal`. The whole process group
 * is killed on POSIX. Rejects only when the command cannot be spawned
 * (`error.code === 'ENOENT'` for a missing interpreter).
 */
export function supervise(options: SuperviseOptions): Promise<Supervised> {
  return new Promise<Supervised>((resolve, reject) => {
    const started = performance.now();
    const posix = process.platform !== 'win32';
    let child: ChildProcess;
    try {
      child = spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
        detached: posix,
        windowsHide: true,
      });
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outputUsed = 0;
    let truncated = false;
    let killedBy: KilledBy | undefined;
    let result: ChildResult | undefined;
    let protocolError: string | undefined;
    let spawnFailed = false;
    let finished = false;
    const timers: NodeJS.Timeout[] = [];

    /** SIGKILL to the child's whole process group (POSIX; the child alone elsewhere). */
    const killGroup = (pid: number): void => {
      try {
        if (posix) process.kill(-pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const kill = (reason: KilledBy | undefined): void => {
      if (killedBy === undefined && reason !== undefined && result === undefined) killedBy = reason;
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child.pid);
    };

    const capture = (target: Buffer[]) => (chunk: Buffer) => {
      const room = options.limits.outputBytes - outputUsed;
      if (chunk.length > room) {
        if (room > 0) target.push(chunk.subarray(0, room));
        outputUsed = options.limits.outputBytes;
        truncated = true;
        kill('output');
        return;
      }
      target.push(chunk);
      outputUsed += chunk.length;
    };
    child.stdout?.on('data', capture(out));
    child.stderr?.on('data', capture(err));

    const channel = child.stdio[3] as (NodeJS.ReadableStream & Writable) | null;
    if (channel) {
      const decoder = new StringDecoder('utf8');
      let pending = '';
      const reply = (value: unknown): void => {
        if (!finished && channel.writable) channel.write(JSON.stringify(value) + '\n');
      };
      channel.on('error', () => undefined);
      channel.on('data', (chunk: Buffer) => {
        const text = decoder.write(chunk);
        pending += text;
        if (pending.length > MAX_CHANNEL_LINE) {
          protocolError = 'the result message exceeds 32 MiB';
          pending = '';
          kill('output');
          return;
        }
        if (!text.includes('\n')) return;
        let nl = pending.indexOf('\n');
        while (nl >= 0) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 1);
          handleLine(line, reply);
          nl = pending.indexOf('\n');
        }
      });
    }

    const handleLine = (line: string, reply: (value: unknown) => void): void => {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        protocolError = 'the child sent a line that is not JSON on the result channel';
        return;
      }
      if (typeof message === 'object' && message !== null && (message as { t?: unknown }).t === 'result') {
        const parsed = ChildResultSchema.safeParse(message);
        if (!parsed.success) {
          protocolError = `invalid result message: ${parsed.error.issues.map((i) => i.message).join('; ')}`;
          return;
        }
        if (result === undefined) result = parsed.data;
        timers.push(setTimeout(() => kill(undefined), EXIT_GRACE_MS));
        return;
      }
      options.onMessage?.(message, reply);
    };

    timers.push(setTimeout(() => kill('timeout'), options.limits.timeoutMs));

    if (options.rssLimitMb !== undefined && process.platform === 'linux' && child.pid !== undefined) {
      const statm = `/proc/${child.pid}/statm`;
      const limitPages = (options.rssLimitMb * 1024 * 1024) / 4096;
      const poll = setInterval(() => {
        try {
          const resident = Number(fs.readFileSync(statm, 'utf8').split(' ')[1]);
          if (resident > limitPages) kill('memory');
        } catch {
          clearInterval(poll);
        }
      }, RSS_POLL_MS);
      timers.push(poll);
    }

    const onAbort = (): void => kill('cancel');
    if (options.signal) {
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, { once: true });
    }

    const cleanup = (): void => {
      finished = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener('abort', onAbort);
    };

    child.on('error', (error) => {
      spawnFailed = true;
      cleanup();
      reject(error);
    });
    // A grandchild left in the group may hold the pipes open: kill the group so the pipes reach EOF
    // and everything the child wrote (its result on fd 3 included) is read, however loaded the
    // machine. Destroying the pipes is only the last resort (a grandchild that left the group);
    // doing it early loses a result still in the pipe (seen under load as "exited with code 0
    // without a result").
    child.on('exit', () => {
      if (posix && child.pid !== undefined) killGroup(child.pid);
      const drain = setTimeout(() => {
        for (const stream of child.stdio) stream?.destroy();
      }, PIPE_DRAIN_MS);
      drain.unref();
    });
    child.on('close', (code, signal) => {
      if (spawnFailed) return;
      cleanup();
      resolve({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        truncated,
        killedBy,
        result,
        protocolError,
        exitCode: code,
        exitSignal: signal,
        durationMs: performance.now() - started,
      });
    });
  });
}
