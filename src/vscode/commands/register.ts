/** Registers every `agentMemory.*` command (each file groups one area). */
import type * as vscode from 'vscode';
import type { Container } from '../container';
import { registerAgentCommands } from './agent-commands';
import { registerDataCommands } from './data-commands';
import { registerEmbeddingCommands } from './embedding-commands';
import { registerPolicyCommands } from './policy-commands';
import { registerRecordCommands } from './record-commands';
import { registerReviewCommands } from './review-commands';
import { registerViewCommands } from './view-commands';

export function registerCommands(c: Container): vscode.Disposable[] {
  return [...registerViewCommands(c), ...registerRecordCommands(c), ...registerAgentCommands(c), ...registerPolicyCommands(c), ...registerDataCommands(c), ...registerEmbeddingCommands(c), ...registerReviewCommands(c)];
}
