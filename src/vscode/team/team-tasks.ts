/**
 * The built-in agent's Run Task on the team memory (issue 21): while agentMemory.team.url is
 * set and a session is open, a task retrieves from the space, and its record, retrieval log, Φ
 * and role-memory updates go to the space (core/team/team-tasks.ts, the same pipeline as
 * `agent-memory task --db postgres://…`). Under the space's strict addition the record waits in
 * the Team Memory view for a reviewer. Task streams still run on the personal memory (said once).
 */
import * as vscode from 'vscode';
import type { AgentTaskResult } from '../../core/app/types';
import { AgentMemoryError } from '../../core/errors';
import { runTeamTasks } from '../../core/team/team-tasks';
import type { Container } from '../container';

/** Runs one question on the team space; undefined when team mode is off (the caller uses the personal memory). */
export async function runTaskOnTeam(c: Container, question: string, groundTruth: unknown): Promise<AgentTaskResult | undefined> {
  const session = c.team.session;
  if (c.team.config.kind !== 'on' || !session) return undefined;
  const settings = c.settings.value;
  const store = await session.store();
  const dataPath = await c.host.withApp((app) => app.agentDataPath());
  // agentMemory.retrieval.rerank applies to the team memory too: the space is read once per connection (team-shapes.ts).
  const rerank = settings.retrieval.rerank ? { domainValues: await c.host.withApp((app) => app.rerankValues()) } : undefined;
  const endpoint = settings.model.baseUrl && settings.model.name ? { baseURL: settings.model.baseUrl, model: settings.model.name, apiKey: await c.apiKey.get() } : undefined;
  let result: AgentTaskResult | undefined;
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Agent Memory: running the agent on the team memory (space '${store.space}')…` }, () =>
    runTeamTasks(store, [{ question, ...(groundTruth === undefined ? {} : { answer: groundTruth }) }], {
      language: settings.runner.language,
      dataPath,
      k: settings.retrieval.k,
      endpoint,
      sweep: null,
      rerank,
      logger: c.logger,
      onResult: (r) => (result = r),
    }),
  );
  if (!result) throw new AgentMemoryError('INVALID_STATE', 'The team task finished without a result; see Agent Memory: Show Logs.');
  c.logger.info(`[team] task ${result.taskIndex} on space '${store.space}': ${result.outcome}, ${result.verdict.kind}; record ${result.addition.recordId ?? 'not added'} ${result.addition.status ?? ''}`);
  return result;
}

let streamNoticeShown = false;

/** Tells the user, once, that task streams still run on the personal memory while team mode is on. */
export function personalStreamNotice(c: Container): void {
  if (c.team.config.kind !== 'on' || streamNoticeShown) return;
  streamNoticeShown = true;
  const message = `Task streams use your personal memory: Run Task uses the team memory (space '${c.team.config.space}'), streams do not yet.`;
  c.logger.info(`[team] ${message}`);
  void vscode.window.showInformationMessage(`Agent Memory: ${message}`);
}
