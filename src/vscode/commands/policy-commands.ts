/** Addition policy choice and deletion with a dry-run preview (QuickPick of candidates, then a modal). */
import * as vscode from 'vscode';
import { emptyPlanReason } from '../../core/policy/deletion/empty-reason';
import { z } from 'zod';
import type { AdditionPolicyName, DeletionCandidate, DeletionPlan, DeletionPolicyName } from '../../core/app/types';
import { AgentMemoryError } from '../../core/errors';
import type { Container } from '../container';
import { ADDITION_POLICIES } from '../settings-schema';
import { DELETION_POLICIES } from '../../core/policy/names';
import { evidenceText } from '../text/evidence-text';
import { isLargeDeletion } from '../../core/policy/deletion-review';
import { cancelled, confirm, markCurrent, NoPromptOptions, registerSafeCommand } from './command-support';

const ADDITION_HELP: Record<AdditionPolicyName, string> = {
  fixed: 'never add (baseline)',
  all: 'add every finished task',
  coarse: 'add when the automatic judge says the task succeeded',
  strict: 'add as pending; you approve or reject each one',
};

const DELETION_HELP: Record<Exclude<DeletionPolicyName, 'capacity'>, string> = {
  combined: 'periodic, then history-based',
  periodic: 'records not retrieved over the last period',
  history: 'often retrieved but with low mean utility',
  forgetting: 'retention exp(−Δt/(40·λ)) below the threshold (VIMBank forgetting curve)',
};

/** Arguments for the deletion commands (tests use them to skip both prompts). */
export interface DeletionArgs extends NoPromptOptions {
  /** Restrict the deletion to these candidates (default: all of the plan's candidates). */
  recordIds?: string[];
}

const DeletionArgsSchema = z.object({ skipConfirm: z.boolean().optional(), recordIds: z.array(z.string()).optional() });

export interface DeletionOutcome {
  plan: DeletionPlan;
  deleted: number;
}

export function registerPolicyCommands(c: Container): vscode.Disposable[] {
  const deletion = (id: string, fixed?: DeletionPolicyName) =>
    registerSafeCommand(c.logger, id, async (...args) => {
      const policy = fixed ?? (typeof args[0] === 'string' ? parseDeletionPolicy(args[0]) : await pickDeletionPolicy(c.settings.value.deletion.automatic));
      const options = DeletionArgsSchema.parse((fixed ? args[0] : args[1]) ?? {});
      return runDeletion(c, policy, options);
    });

  return [
    registerSafeCommand(c.logger, 'agentMemory.setAdditionPolicy', async (arg) => {
      const current = c.settings.value.addition.policy;
      const policy =
        typeof arg === 'string'
          ? arg
          : (
              await vscode.window.showQuickPick(
                markCurrent(
                  ADDITION_POLICIES.map((p) => ({ key: p, label: p, description: ADDITION_HELP[p] })),
                  current,
                ),
                { title: `Addition policy (now: ${current})` },
              )
            )?.key;
      if (!policy) return cancelled();
      if (!(ADDITION_POLICIES as readonly string[]).includes(policy)) {
        throw new AgentMemoryError('INVALID_INPUT', `Unknown addition policy '${policy}'. Choose one of ${ADDITION_POLICIES.join(', ')}.`);
      }
      await c.settings.update('addition.policy', policy);
      c.logger.info(`[policy] addition policy set to ${policy}`);
      return policy;
    }),
    deletion('agentMemory.applyDeletion'),
    deletion('agentMemory.applyCombinedDeletion', 'combined'),
    deletion('agentMemory.applyPeriodicDeletion', 'periodic'),
    deletion('agentMemory.applyHistoryDeletion', 'history'),
    deletion('agentMemory.applyForgettingDeletion', 'forgetting'),
  ];
}


/** Command arguments are a boundary: an unknown policy name gets a clear error. */
function parseDeletionPolicy(value: string): DeletionPolicyName {
  if (!(DELETION_POLICIES as readonly string[]).includes(value)) {
    throw new AgentMemoryError('INVALID_INPUT', `Unknown deletion policy '${value}'. Choose one of ${DELETION_POLICIES.join(', ')}.`);
  }
  return value as DeletionPolicyName;
}

/** `current` is the automatic deletion policy (marked and listed first). */
async function pickDeletionPolicy(current: string): Promise<DeletionPolicyName> {
  const chosen = await vscode.window.showQuickPick(
    markCurrent(
      (Object.keys(DELETION_HELP) as (keyof typeof DELETION_HELP)[]).map((p) => ({ key: p, label: p, description: DELETION_HELP[p] })),
      current,
    ),
    { title: `Apply which deletion policy? (you will see a preview first; automatic: ${current})` },
  );
  return (chosen?.key as DeletionPolicyName | undefined) ?? cancelled();
}

/** Plans (dry run), previews, confirms, then applies. Returns what was deleted. */
async function runDeletion(c: Container, policy: DeletionPolicyName, options: DeletionArgs): Promise<DeletionOutcome> {
  return c.host.withApp(async (app) => {
    const plan = app.planDeletion(policy);
    // What the memory floor and the periodic guard kept out of the plan, said with the plan.
    const notes = [plan.floor?.sentence, plan.guard?.sentence].filter((x): x is string => !!x).map((x) => ` ${x}`).join('');
    c.logger.info(`[deletion] ${policy} plan at task ${plan.taskIndex}: ${plan.candidates.length} candidate(s).${notes}`);
    if (plan.candidates.length === 0) {
      const why = emptyPlanReason(plan);
      void vscode.window.showInformationMessage(`Agent Memory: the ${policy} policy would delete nothing right now.${why ? ` ${why}` : ''}${notes}`);
      return { plan, deleted: 0 };
    }
    let chosen: DeletionCandidate[];
    if (options.recordIds) {
      const keep = new Set(options.recordIds);
      chosen = plan.candidates.filter((cand) => keep.has(cand.recordId));
    } else if (options.skipConfirm) {
      chosen = plan.candidates;
    } else {
      // A large plan (> 25 % of the active memory) starts with nothing ticked: Enter alone deletes nothing.
      const large = isLargeDeletion(plan.candidates.length, app.counts().active);
      const picks = await vscode.window.showQuickPick(
        plan.candidates.map((cand) => ({ label: cand.question, description: cand.rule, detail: evidenceText(cand.rule, cand.evidence), picked: !large, candidate: cand })),
        {
          title: large
            ? `Preview: ${policy} deletion would remove ${plan.candidates.length} of ${app.counts().active} active record(s); tick the ones to delete.${notes}`
            : `Preview: ${policy} deletion would remove ${plan.candidates.length} record(s); untick any to keep.${notes}`,
          canPickMany: true,
          matchOnDescription: true,
          ignoreFocusOut: true,
        },
      );
      if (!picks || picks.length === 0) return cancelled();
      chosen = picks.map((p) => p.candidate);
    }
    if (chosen.length === 0) return { plan, deleted: 0 };
    // More than 25 % of the active memory asks again, with the count (its Enter-key default keeps them).
    if (!options.skipConfirm && isLargeDeletion(chosen.length, app.counts().active)) {
      if (!(await c.prompts.confirmLargeDeletion(chosen.length, app.counts().active))) return cancelled();
    } else if (!(await confirm(`Delete ${chosen.length} record(s) by the ${policy} policy? They stay restorable until purged.`, 'Delete', options))) {
      return cancelled();
    }
    const deleted = app.applyDeletion({ ...plan, candidates: chosen });
    c.logger.info(`[deletion] ${policy}: deleted ${deleted}`);
    const deletedIds = chosen.map((cand) => cand.recordId).filter((id) => app.get(id)?.status === 'deleted');
    c.undo.record({ op: 'delete', ids: deletedIds });
    void vscode.window.showInformationMessage(`Agent Memory: ${policy} deletion removed ${deleted} record(s).`, 'Undo', 'Show Deleted').then(
      (choice) => (choice === 'Undo' ? vscode.commands.executeCommand('agentMemory.undo') : choice ? vscode.commands.executeCommand('agentMemory.explorer.focus') : undefined),
      () => undefined,
    );
    return { plan: { ...plan, candidates: chosen }, deleted };
  });
}
