/**
 * What a revalidation pass did, every transition counted: clean again (stale before, runs now),
 * now failing (newly stale / already stale), and the answers of the programs that ran
 * (unchanged / changed). No vscode import.
 */
import type { RevalidationReport } from '../../core/app/types';

/** `checked 98: 19 clean again (were stale), 0 now failing; answers 98 unchanged, 0 changed; 4.2 s`. */
export function revalidationText(report: RevalidationReport): string {
  const already = report.failing - report.newly_failing;
  const failing = report.failing === 0 ? '0 now failing' : `${report.failing} now failing, marked stale (${report.newly_failing} newly, ${already} already stale)`;
  const cancelled = report.cancelled ? ' (cancelled)' : '';
  return `checked ${report.checked}${cancelled}: ${report.recovered} clean again (were stale), ${failing}; answers ${report.unchanged} unchanged, ${report.changed} changed; ${(report.ms / 1000).toFixed(1)} s`;
}
