/**
 * Team memory commands: set / clear the password (SecretStorage only: never a setting, a log
 * line or an error), approve / reject / restore records of the Team Memory view, refresh and
 * load more. Failures go through registerSafeCommand (logged, shown with "Show Logs").
 */
import * as vscode from 'vscode';
import { AgentMemoryError } from '../../core/errors';
import type { MemoryRecord, RecordStatus } from '../../core/memory/types';
import { StatusSchema } from '../../core/memory/types';
import { truncate } from '../text/result-text';
import { MAX_ROW_QUESTION } from '../tree/tree-items';
import { cancelled, registerSafeCommand } from '../commands/command-support';
import type { Logger } from '../../core/logger';
import type { ApiKeyStore } from '../secrets';
import { TEAM_URL_SETTING } from '../../core/team/team-config';
import type { TeamSession } from '../../core/team/team-session';
import type { TeamSnapshot } from '../../core/team/team-snapshot';
import type { TeamMode, TeamTransition } from './team-mode';
import type { TeamNode, TeamTreeProvider } from './team-tree';
import { teamRecordUri } from './team-documents';

const SOURCE: Record<TeamTransition, RecordStatus> = { approve: 'pending', reject: 'pending', restore: 'deleted' };
const PAST: Record<TeamTransition, string> = { approve: 'approved', reject: 'rejected', restore: 'restored' };
const COMMAND: Record<TeamTransition, string> = { approve: 'agentMemory.approveTeamRecords', reject: 'agentMemory.rejectTeamRecords', restore: 'agentMemory.restoreTeamRecords' };

export interface TeamCommandDeps {
  team: TeamMode;
  tree: TeamTreeProvider;
  password: ApiKeyStore;
  logger: Logger;
}

/** Record ids from a tree node and the multi-selection, an id, or a list of ids. */
function teamIds(arg: unknown, items: unknown): string[] {
  const one = (x: unknown): string[] => {
    if (typeof x === 'string') return [x];
    if (Array.isArray(x)) return x.flatMap(one);
    if (x && typeof x === 'object' && (x as TeamNode).kind === 'teamRecord') return [(x as { record: MemoryRecord }).record.id];
    return [];
  };
  const many = one(items);
  return [...new Set(many.length > 0 ? many : one(arg))];
}

async function pickTeamRecords(team: TeamMode, status: RecordStatus, title: string): Promise<string[]> {
  const records = team.records(status);
  if (records.length === 0) {
    void vscode.window.showInformationMessage(`Agent Memory: no ${status} records in the team memory's view.`);
    return cancelled();
  }
  const chosen = await vscode.window.showQuickPick(
    records.map((r) => ({ label: truncate(r.question, MAX_ROW_QUESTION), description: r.execution.language, detail: r.execution.code.split('\n')[0], id: r.id })),
    { title, canPickMany: true, matchOnDetail: true },
  );
  if (!chosen || chosen.length === 0) return cancelled();
  return chosen.map((c) => c.id);
}

/** The open session and its snapshot; a typed CONFIG error when team mode is off or misconfigured. */
function configured(team: TeamMode): { session: TeamSession; snapshot: TeamSnapshot } {
  const session = team.session;
  const snapshot = team.snapshot;
  if (!session || !snapshot) {
    throw new AgentMemoryError('CONFIG', team.config.kind === 'invalid' ? team.config.message : `No team memory is configured: set ${TEAM_URL_SETTING}.`);
  }
  return { session, snapshot };
}

export function registerTeamCommands(d: TeamCommandDeps): vscode.Disposable[] {
  const transition = (op: TeamTransition) =>
    registerSafeCommand(d.logger, COMMAND[op], async (...args) => {
      let ids = teamIds(args[0], args[1]);
      if (ids.length === 0) ids = await pickTeamRecords(d.team, SOURCE[op], `${op[0].toUpperCase()}${op.slice(1)} which team records?`);
      const changed = await d.team.transition(op, ids);
      d.logger.info(`[team] ${PAST[op]} ${changed.length}: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`);
      vscode.window.setStatusBarMessage(`Agent Memory: ${PAST[op]} ${changed.length} team record(s)`, 3000);
      return changed;
    });

  return [
    transition('approve'),
    transition('reject'),
    transition('restore'),
    registerSafeCommand(d.logger, 'agentMemory.setTeamPassword', async (arg?: unknown) => {
      // A string argument (automation, tests) or an input box that hides what is typed.
      const given = typeof arg === 'string' ? arg : await vscode.window.showInputBox({
        title: 'Team memory password',
        prompt: 'The password of the PostgreSQL role named in agentMemory.team.url. Kept in the editor\'s secret storage, never in settings or logs.',
        password: true,
        ignoreFocusOut: true,
      });
      if (given === undefined) return cancelled();
      if (!given) throw new AgentMemoryError('INVALID_INPUT', "An empty password was not stored: use 'Agent Memory: Clear Team Memory Password' to remove the stored one.");
      await d.password.set(given);
      await d.team.reapply();
      d.logger.info('[team] password stored in SecretStorage');
      return true;
    }),
    registerSafeCommand(d.logger, 'agentMemory.clearTeamPassword', async () => {
      await d.password.set('');
      await d.team.reapply();
      d.logger.info('[team] password removed from SecretStorage');
      return true;
    }),
    registerSafeCommand(d.logger, 'agentMemory.openTeamRecord', async (arg?: unknown) => {
      const [id] = teamIds(arg, undefined);
      if (!id) throw new AgentMemoryError('INVALID_INPUT', 'Open Team Record takes a record of the Team Memory view (or its id).');
      const { session } = configured(d.team);
      const record = await session.run((store) => store.get(id));
      if (!record) throw new AgentMemoryError('NOT_FOUND', `Team record ${id} does not exist in space '${session.space}'.`);
      const doc = await vscode.workspace.openTextDocument(teamRecordUri(record));
      await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: true });
      return doc.uri.toString();
    }),
    registerSafeCommand(d.logger, 'agentMemory.refreshTeam', async () => {
      const { session, snapshot } = configured(d.team);
      await session.store();
      await snapshot.reload();
      d.tree.refresh();
      return true;
    }),
    registerSafeCommand(d.logger, 'agentMemory.loadMoreTeam', async (arg?: unknown) => {
      const status = StatusSchema.parse(arg);
      await configured(d.team).snapshot.loadMore(status);
      return true;
    }),
  ];
}
