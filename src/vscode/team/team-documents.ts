/**
 * Read-only documents of team records: `agent-memory-team:/record/<id>/<first words>.<ext>`
 * (the extension picks the language, so the code is highlighted). The content is read from
 * the team memory when the document opens: a record another client changed since shows as it
 * is now. A click on a record of the Team Memory view opens it.
 */
import * as vscode from 'vscode';
import { AgentMemoryError } from '../../core/errors';
import type { MemoryRecord } from '../../core/memory/types';
import { languageInfo } from '../../core/similarity/code/languages';
import { tabName } from '../documents';
import type { TeamMode } from './team-mode';

export const TEAM_SCHEME = 'agent-memory-team';

export function teamRecordUri(record: Pick<MemoryRecord, 'id' | 'question' | 'execution'>): vscode.Uri {
  return vscode.Uri.from({ scheme: TEAM_SCHEME, path: `/record/${encodeURIComponent(record.id)}/${tabName(record.question)}.${languageInfo(record.execution.language).extension}` });
}

/** The record id of a team record document (undefined for any other path). */
export function teamRecordId(uri: vscode.Uri): string | undefined {
  const m = /^\/record\/([^/]+)\//.exec(uri.path);
  return m ? decodeURIComponent(m[1]) : undefined;
}

/** The document's text: the question, status and provenance as comment lines, then the code. */
export function teamRecordText(record: MemoryRecord): string {
  const comment = languageInfo(record.execution.language).lineComment;
  const by = typeof record.metadata?.client === 'string' ? ` · from ${record.metadata.client}` : '';
  const header = [
    `${comment} ${record.question.replace(/\s*\n\s*/g, ' ')}`,
    `${comment} team record ${record.id} · ${record.status} · ${record.provenance}${by} · added ${record.createdAt}`,
    `${comment} answer: ${(JSON.stringify(record.execution.answer) ?? 'null').slice(0, 200)}`,
  ];
  return `${header.join('\n')}\n\n${record.execution.code}\n`;
}

export class TeamDocumentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly team: TeamMode) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = teamRecordId(uri);
    const session = this.team.session;
    if (!id || !session) throw new AgentMemoryError('NOT_FOUND', `No team record at ${uri.toString()}: the team memory is not configured or the link is not a record's.`);
    const record = await session.run((store) => store.get(id));
    if (!record) throw new AgentMemoryError('NOT_FOUND', `Team record ${id} no longer exists in space '${session.space}' (purged).`);
    return teamRecordText(record);
  }
}
