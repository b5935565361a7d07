/** Shared by the MCP tests: a seeded memory file and the real server as a child process. */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { refitAndReembed } from '../../../src/core/app/embedding';
import { MemoryStore } from '../../../src/core/memory/sqlite/store';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
export const MAIN = path.join(ROOT, 'src', 'cli', 'main.ts');

export const SEED = [
  { question: 'how many patients were admitted in 2104?', code: "answer = sql('select count(*) from admissions where year = 2104')", language: 'python' },
  { question: 'read a csv file and sum the second column in go', code: 'func sum(r *csv.Reader) int {\n  total := 0\n  for { rec, err := r.Read(); if err != nil { break }; total += atoi(rec[1]) }\n  return total\n}', language: 'go' },
  { question: 'what is the average length of stay of patients?', code: "answer = sql('select avg(los) from icustays')", language: 'python' },
  { question: 'list the ten most common diagnoses', code: "answer = sql('select icd9_code, count(*) c from diagnoses group by 1 order by c desc limit 10')", language: 'python' },
];

/** A memory file with the SEED records, active and embedded with the store's fitted embedder. */
export function seedMemory(file: string): void {
  const store = MemoryStore.open(file);
  try {
    store.add(
      SEED.map((s) => ({ question: s.question, execution: { code: s.code, language: s.language, outcome: 'success' as const }, provenance: 'seed' as const })),
      { trigger: 'user', reason: 'test seed' },
    );
    refitAndReembed(store, 'user');
  } finally {
    store.close();
  }
}

/** The real `agent-memory mcp` as a child process, driven by the SDK's own Client over stdio. */
export async function connectServer(db: string, addition: string, clientName = 'test-client', extraArgs: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [TSX, MAIN, 'mcp', '--db', db, '--addition', addition, ...extraArgs], cwd: ROOT, stderr: 'pipe' });
  const client = new Client({ name: clientName, version: '1.2.3' });
  await client.connect(transport);
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
