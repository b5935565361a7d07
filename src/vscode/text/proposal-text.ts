/**
 * The notice after tasks whose automatic deletion proposed records instead of deleting them:
 * the count that stands now (a proposal a later task withdrew is counted apart, as the explorer
 * no longer shows it) and the policy named as the explorer's rows name it (`combined`, never the
 * rule id `periodic-deletion`). No vscode import.
 */
import type { AgentTaskResult } from '../../core/app/types';

export interface ProposalNotice {
  /** A rule would have removed more than 25 % of the active memory (a warning). */
  large: boolean;
  /** Proposals that stand now (what the Proposed deletions group shows). */
  count: number;
  /** Proposed during these tasks and withdrawn since (a later task retrieved them). */
  withdrawn: number;
  text: string;
}

/** The policy a deletion applied, as the explorer's rows and the deletion preview name it. */
export function deletionPolicyName(deletion: AgentTaskResult['deletions'][number]): string {
  return deletion.policy ?? deletion.rule;
}

/** `standing`: the ids of the proposals that stand now. Undefined when nothing was proposed. */
export function proposalNotice(results: readonly AgentTaskResult[], standing: ReadonlySet<string>): ProposalNotice | undefined {
  const largeRuns = results.flatMap((r) => r.deletions.filter((d) => d.large === true));
  const large = largeRuns.length > 0;
  const proposing = large ? largeRuns : results.flatMap((r) => r.deletions.filter((d) => (d.proposed?.length ?? 0) > 0));
  const proposed = new Set(proposing.flatMap((d) => d.proposed ?? []));
  if (proposed.size === 0) return undefined;
  const count = [...proposed].filter((id) => standing.has(id)).length;
  const withdrawn = proposed.size - count;
  const policies = [...new Set(proposing.map(deletionPolicyName))].join(', ');
  const since = withdrawn > 0 ? ` (${withdrawn} more were proposed, then withdrawn: a later task retrieved them)` : '';
  const text =
    count === 0
      ? `the automatic deletion (${policies}) proposed ${proposed.size} record(s), all withdrawn since: a later task retrieved them. Nothing was deleted.`
      : large
        ? `the automatic deletion (${policies}) would have removed ${proposed.size} record(s), more than 25 % of the active memory: nothing was deleted; ${count} are proposed for your review instead${since}.`
        : `the automatic deletion (${policies}) proposed ${count} record(s) for deletion${since}; nothing was deleted until you confirm.`;
  return { large, count, withdrawn, text };
}
