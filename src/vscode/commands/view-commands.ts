/** Explorer sort/filter/refresh, dashboard, logs. */
import * as vscode from 'vscode';
import { z } from 'zod';
import { LanguageSchema } from '../../core/memory/types';
import type { Container } from '../container';
import type { SortKey, TreeFilter } from '../tree/memory-tree';
import { cancelled, markCurrent, registerSafeCommand } from './command-support';

export const WALKTHROUGH_ID = 'firstFiveMinutes';

const SORTS: { key: SortKey; label: string }[] = [
  { key: 'utility', label: 'Utility (mean Φ, highest first)' },
  { key: 'retrievals', label: 'Retrievals (most first)' },
  { key: 'recency', label: 'Recency (newest first)' },
];

/** Filter argument accepted by `agentMemory.filter` (tests pass it to skip the prompts). */
export const TreeFilterSchema = z.object({
  text: z.string().max(500).optional(),
  language: LanguageSchema.optional(),
  misalignedOnly: z.boolean().optional(),
});

export function registerViewCommands(c: Container): vscode.Disposable[] {
  return [
    registerSafeCommand(c.logger, 'agentMemory.showLogs', () => c.channel.show(true)),
    registerSafeCommand(c.logger, 'agentMemory.refreshExplorer', () => c.tree.refresh()),
    registerSafeCommand(c.logger, 'agentMemory.openWalkthrough', async () => {
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', `${c.context.extension.id}#${WALKTHROUGH_ID}`, false);
      return true;
    }),
    registerSafeCommand(c.logger, 'agentMemory.openDashboard', async () => {
      await c.dashboard.open();
      return true;
    }),

    registerSafeCommand(c.logger, 'agentMemory.sortBy', async (arg) => {
      const key =
        typeof arg === 'string' && arg
          ? z.enum(['utility', 'retrievals', 'recency']).parse(arg)
          : (await vscode.window.showQuickPick(markCurrent(SORTS, c.tree.sort), { title: `Sort records by (now: ${c.tree.sort})` }))?.key;
      if (!key) return cancelled();
      c.tree.setSort(key);
      return key;
    }),

    registerSafeCommand(c.logger, 'agentMemory.filter', async (arg) => {
      const filter: TreeFilter = isFilterArg(arg) ? TreeFilterSchema.parse(arg) : await askFilter(c.tree.filter);
      c.tree.setFilter(filter);
      return c.tree.describe();
    }),

    registerSafeCommand(c.logger, 'agentMemory.clearFilter', () => {
      c.tree.setFilter({});
      return c.tree.describe();
    }),
  ];
}

/**
 * A filter object passed by a caller. A view/title button passes the explorer's selected row
 * (a tree node, which has `kind`) as its argument: that is not a filter, so the prompt opens.
 */
export function isFilterArg(arg: unknown): arg is Record<string, unknown> {
  return Boolean(arg) && typeof arg === 'object' && !Array.isArray(arg) && !('kind' in (arg as object));
}

/** Asks which filter to change (text, language, misaligned flag) through a QuickPick + InputBox. */
async function askFilter(current: Readonly<TreeFilter>): Promise<TreeFilter> {
  const choice = await vscode.window.showQuickPick(
    [
      { label: '$(search) Text…', description: current.text ? `now "${current.text}"` : 'question or code contains', id: 'text' },
      { label: '$(code) Language…', description: current.language ?? 'any', id: 'language' },
      { label: '$(warning) Misaligned only', description: current.misalignedOnly ? 'on' : 'off', id: 'misaligned' },
      { label: '$(clear-all) Clear filter', id: 'clear' },
    ],
    { title: 'Filter the memory explorer' },
  );
  if (!choice) return cancelled();
  if (choice.id === 'clear') return {};
  if (choice.id === 'misaligned') return { ...current, misalignedOnly: !current.misalignedOnly };
  if (choice.id === 'language') {
    const lang = await vscode.window.showQuickPick(['any', 'python', 'javascript'], { title: 'Language' });
    if (!lang) return cancelled();
    return { ...current, language: lang === 'any' ? undefined : LanguageSchema.parse(lang) };
  }
  const text = await vscode.window.showInputBox({ title: 'Filter by text', prompt: 'Records whose question or code contains this text', value: current.text ?? '' });
  if (text === undefined) return cancelled();
  return { ...current, text };
}
