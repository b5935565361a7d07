/**
 * SEAM (issue 21, item 6): the built-in agent's tasks (Run Task, Run Task Stream) on the team
 * memory. Not wired yet: it awaits the async team adapter of the task pipeline,
 * `createTeamTaskMemory` in src/core/memory/postgres/team-task-memory.ts (branch h/teamcli).
 * Until then Run Task keeps using the personal SQLite memory, and says so once per session
 * while agentMemory.team.url is set (`personalTasksNotice`).
 *
 * Wiring, once the adapter lands: in agent-commands' runAgent/runTaskStream, when
 * `c.team.session` exists, build the task memory with
 * `createTeamTaskMemory(await c.team.session.store(), …)` and hand it to the app's task run
 * instead of the personal store's memory manager.
 */
import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { TeamMode } from './team-mode';

/** Whether the task pipeline can run on the team memory in this build (false until createTeamTaskMemory is wired). */
export const TEAM_TASK_MEMORY_WIRED = false;

let noticeShown = false;

/** Tells the user, once, that Run Task still works on the personal memory while team mode is on. */
export function personalTasksNotice(team: TeamMode, logger: Logger): void {
  if (TEAM_TASK_MEMORY_WIRED || team.config.kind !== 'on' || noticeShown) return;
  noticeShown = true;
  const message = `Run Task uses your personal memory: running the built-in agent on the team memory (space '${team.config.space}') is not available yet. The chat tools and the MCP server use the team memory.`;
  logger.info(`[team] ${message}`);
  void vscode.window.showInformationMessage(`Agent Memory: ${message}`);
}
