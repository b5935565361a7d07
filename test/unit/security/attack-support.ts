import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as dgram from 'node:dgram';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../../..');
export const DEMO_DB = path.join(ROOT, 'data/ehr/mimic3-demo.sqlite');

export const sha256 = (file: string): string => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
export const unique = (label: string): string => `${label}-${process.pid}-${randomBytes(6).toString('hex')}`;

/** A private copy of the demo database (the target of write attacks) in a fresh temp dir. */
export function scratch(): { dir: string; db: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-attack-'));
  const db = path.join(dir, 'target.sqlite');
  fs.copyFileSync(DEMO_DB, db);
  return { dir, db, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Loopback TCP + UDP listeners that count what reaches them. */
export interface Listeners {
  tcpPort: number;
  udpPort: number;
  /** TCP connections accepted + UDP datagrams received. */
  received: () => number;
  close: () => Promise<void>;
}

export async function listen(): Promise<Listeners> {
  let count = 0;
  const tcp = net.createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const udp = dgram.createSocket('udp4');
  udp.on('message', () => count++);
  await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
  return {
    tcpPort: (tcp.address() as net.AddressInfo).port,
    udpPort: udp.address().port,
    received: () => count,
    close: async () => {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
}

/** Pids of live processes whose command line contains `marker` (Linux /proc scan). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** Runs `agent-memory run` as a child with `env` added to its environment; resolves with its stdout + stderr. */
export function cliRun(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'run', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
