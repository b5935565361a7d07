/**
 * Real child processes against the team memory: the `agent-memory` CLI and the MCP
 * server (driven by the SDK's own client over stdio), with the password handed over in
 * AGENT_MEMORY_PG_PASSWORD only. Everything they print is kept, so a test can check
 * that no password ever appears in it. Also a TCP proxy in front of the server that a
 * test can cut and restore (the server unreachable, then back).
 */
import { execFile } from 'node:child_process';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const MAIN = path.join(ROOT, 'src', 'cli', 'main.ts');

/** Everything the child processes of a test printed (stdout and stderr). */
export const transcript: string[] = [];

/** `url` without its password, and the password (to hand over in the environment). */
export function splitPassword(url: string): { bare: string; password: string } {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = '';
  return { bare: u.toString(), password };
}

function childEnv(password: string | undefined): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? os.tmpdir() };
  if (password) env.AGENT_MEMORY_PG_PASSWORD = password;
  return env;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The node arguments that run `agent-memory ARGS` from the sources (for a test that spawns it with its own stdio). */
export function cliArgv(args: string[]): string[] {
  return [TSX, MAIN, ...args];
}

/** `agent-memory ARGS` as a child process (asynchronous: the test's proxy keeps running). */
export function runCli(args: string[], password?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSX, MAIN, ...args], { cwd: ROOT, env: childEnv(password), timeout: 60_000 }, (error, stdout, stderr) => {
      transcript.push(stdout, stderr);
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `agent-memory mcp --db URL …` with the SDK client connected over stdio. */
export async function connectTeamServer(url: string, password: string | undefined, extra: string[] = [], clientName = 'team-test'): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [TSX, MAIN, 'mcp', '--db', url, ...extra], cwd: ROOT, env: childEnv(password), stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => transcript.push(chunk.toString('utf8')));
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A TCP proxy to `port` on 127.0.0.1: `cut()` drops every connection and refuses new ones; `restore()` serves again on the same port. */
export interface CuttableProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<CuttableProxy> {
  const sockets = new Set<net.Socket>();
  const make = (): net.Server =>
    net.createServer((inbound) => {
      const outbound = net.connect(targetPort, '127.0.0.1');
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          sockets.delete(s);
          inbound.destroy();
          outbound.destroy();
        });
      }
      inbound.pipe(outbound).pipe(inbound);
    });
  const listen = (server: net.Server, port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  let server: net.Server | undefined = make();
  const port = await listen(server, 0);
  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    port,
    cut: stop,
    restore: async () => {
      if (server) return;
      server = make();
      await listen(server, port);
    },
    close: stop,
  };
}
