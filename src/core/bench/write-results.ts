/** Writes DIR/metrics.json and DIR/report.html for a run. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentMemoryError, errorMessage } from '../errors';
import type { BenchRun } from './harness';
import { BenchMetrics, computeMetrics } from './metrics';
import { renderReport } from './report-html';

/** Short label of a configuration, e.g. `strict+combined`. */
export function configLabel(config: BenchRun['config']): string {
  return `${config.addition}${config.deletion === 'none' ? '' : `+${config.deletion}`}${config.capacity ? `@${config.capacity}` : ''}${config.errorFree ? ' (error-free)' : ''}${config.order === 'shift' ? ' [shift]' : ''}`;
}

/**
 * @example
 * const metrics = writeResults(run, 'out/strict');
 */
export function writeResults(run: BenchRun, dir: string): BenchMetrics {
  const metrics = computeMetrics(run);
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'metrics.json'), JSON.stringify(metrics, null, 2) + '\n');
    fs.writeFileSync(path.join(dir, 'report.html'), renderReport([{ label: configLabel(run.config), metrics }], `Agent Memory benchmark: ${configLabel(run.config)}`));
  } catch (error) {
    throw new AgentMemoryError('INVALID_INPUT', `Cannot write results to ${dir} (${errorMessage(error)}); pass a writable --out directory.`);
  }
  return metrics;
}
