/**
 * Runs inside a real VS Code extension host (code-server or test-electron): the
 * development extension is loaded, activates, and contributes its commands.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentMemoryExtensionApi } from '../../src/extension';

const EXTENSION_ID = 'agent-memory.agent-memory';

describe('extension activation', () => {
  it('is installed as the development extension', () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} not found among ${vscode.extensions.all.length} extensions`);
    assert.equal((ext.packageJSON as { name: string }).name, 'agent-memory');
  });

  it('activates without throwing', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const t0 = process.hrtime.bigint();
    await ext.activate();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.equal(ext.isActive, true);
    // A figure for the report, not an assertion (performance is shown by benchmarks).
    console.log(`      activation took ${ms.toFixed(1)} ms (including module load)`);
  });

  it('registers every command declared in package.json', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
    const declared = ((ext.packageJSON as { contributes?: { commands?: { command: string }[] } }).contributes?.commands ?? []).map((c) => c.command);
    assert.ok(declared.includes('agentMemory.showLogs'), 'package.json must declare agentMemory.showLogs');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `declared but not registered: ${missing.join(', ')}`);
  });

  it('agentMemory.showLogs reveals the Agent Memory output channel without taking focus', async () => {
    const ext = vscode.extensions.getExtension<AgentMemoryExtensionApi>(EXTENSION_ID);
    assert.ok(ext);
    const api = await ext.activate();
    const channel = api.container.channel;
    assert.equal(channel.name, 'Agent Memory');
    const calls: unknown[][] = [];
    const original = channel.show.bind(channel);
    // Records the call and still shows the channel (the real one).
    (channel as { show: (...args: unknown[]) => void }).show = (...args: unknown[]) => {
      calls.push(args);
      (original as (...a: unknown[]) => void)(...args);
    };
    try {
      await vscode.commands.executeCommand('agentMemory.showLogs');
    } finally {
      (channel as { show: unknown }).show = original;
    }
    assert.deepEqual(calls, [[true]], 'the command shows the channel once, preserving focus');
  });
});
