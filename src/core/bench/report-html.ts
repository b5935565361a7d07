/**
 * report.html: a self-contained page (inline CSS and SVG, no scripts, no
 * external resources) with the paper-style charts: cumulative accuracy and
 * memory size over tasks (Figures 2, 4), cumulative mean input vs output
 * similarity (Figure 3 left) and per-task input vs output similarity (Figure 5).
 * One run, or several runs overlaid (the paper grid).
 */
import type { BenchMetrics } from './metrics';
import { escapeXml, lineChart, PALETTE, scatterChart } from './svg-chart';

export interface LabelledMetrics {
  label: string;
  metrics: BenchMetrics;
}

const CSS = `body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}table{border-collapse:collapse;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}th{background:#f5f5f5}td.l,th.l{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:16px}.note{color:#555;font-size:12px}svg{background:#fff;border:1px solid #eee}`;

function pct(x: number | null): string {
  return x === null ? '–' : (x * 100).toFixed(2);
}

function num(x: number | null, d = 3): string {
  return x === null ? '–' : x.toFixed(d);
}

function configText(m: BenchMetrics): string {
  const c = m.config;
  return `addition=${c.addition} deletion=${c.deletion}${c.capacity ? ` capacity=${c.capacity}` : ''} period=${c.period} order=${c.order}${c.errorFree ? ' error-free' : ''} seed=${c.seed} language=${c.language} k=${c.k}`;
}

function summaryTable(runs: LabelledMetrics[]): string {
  const head = '<tr><th class="l">run</th><th>tasks</th><th>accuracy %</th><th>memory (start → final)</th><th>added</th><th>deleted</th><th>mean input sim</th><th>mean output sim</th><th>prompt tokens</th><th>overhead ms/task (mean / p95)</th></tr>';
  const rows = runs
    .map(
      ({ label, metrics: m }) =>
        `<tr><td class="l">${escapeXml(label)}</td><td>${m.tasks}</td><td>${pct(m.final_accuracy)}</td><td>${m.initial_memory_size} → ${m.memory_size_final}</td><td>${m.records_added}</td><td>${m.records_deleted}</td><td>${num(m.mean_input_similarity)}</td><td>${num(m.mean_output_similarity)}</td><td>${m.prompt_tokens}</td><td>${num(m.agent_overhead_ms.mean, 2)} / ${num(m.agent_overhead_ms.p95, 2)}</td></tr>`,
    )
    .join('');
  return `<table>${head}${rows}</table>`;
}

function taskTable(m: BenchMetrics): string {
  const head = '<tr><th>#</th><th class="l">question</th><th>outcome</th><th>correct</th><th>Φ</th><th>added</th><th>deleted</th><th>memory</th><th>input sim</th><th>output sim</th><th>overhead ms</th></tr>';
  const rows = m.rows
    .map((r) => `<tr><td>${r.position}</td><td class="l">${escapeXml(r.question)}</td><td>${r.outcome}</td><td>${r.correct}</td><td>${r.utility ?? '–'}</td><td>${r.added ? 'yes' : ''}</td><td>${r.deleted || ''}</td><td>${r.memorySize}</td><td>${num(r.inputSimilarity)}</td><td>${num(r.outputSimilarity)}</td><td>${r.overheadMs.toFixed(2)}</td></tr>`)
    .join('');
  return `<details><summary>Per-task rows (${m.rows.length})</summary><table>${head}${rows}</table></details>`;
}

/**
 * Renders the report for one or more runs.
 *
 * @example
 * fs.writeFileSync('out/report.html', renderReport([{ label: 'strict', metrics }], 'EHR stream'));
 */
export function renderReport(runs: LabelledMetrics[], title = 'Agent Memory benchmark'): string {
  const first = runs[0]?.metrics;
  const markers = runs.length === 1 && first ? first.group_starts.slice(1) : [];
  const color = (i: number) => PALETTE[i % PALETTE.length];
  const accuracy = lineChart(
    runs.map((r, i) => ({ name: r.label, values: r.metrics.accuracy_curve, color: color(i) })),
    { title: 'Cumulative accuracy over tasks', xLabel: 'task', yLabel: 'accuracy', yMin: 0, yMax: Math.min(1, Math.max(0.1, ...runs.flatMap((r) => r.metrics.accuracy_curve)) * 1.1), markers },
  );
  const memory = lineChart(
    runs.map((r, i) => ({ name: r.label, values: r.metrics.memory_size_curve, color: color(i) })),
    { title: 'Memory size over tasks', xLabel: 'task', yLabel: 'active records', yMin: 0, markers },
  );
  const similarity =
    runs.length === 1 && first
      ? lineChart(
          [
            { name: 'input similarity (cum. mean)', values: first.input_similarity_curve, color: PALETTE[0] },
            { name: 'output similarity (cum. mean)', values: first.output_similarity_curve, color: PALETTE[1] },
          ],
          { title: 'Cumulative input vs output similarity', xLabel: 'task', yLabel: 'similarity', yMin: 0, yMax: 1, markers },
        )
      : scatterChart(
          runs.map((r, i) => ({
            name: r.label,
            color: color(i),
            points: r.metrics.input_similarity_curve.flatMap((x, t) => {
              const y = r.metrics.output_similarity_curve[t];
              return x !== null && y !== null ? [[x, y] as [number, number]] : [];
            }),
          })),
          { title: 'Cumulative output vs input similarity', xLabel: 'cumulative mean input similarity', yLabel: 'cumulative mean output similarity', xMin: 0, xMax: 1, yMin: 0, yMax: 1 },
        );
  const perTask = runs.map((r, i) => ({
    name: r.label,
    color: color(i),
    points: r.metrics.rows.flatMap((row) => (row.inputSimilarity !== null && row.outputSimilarity !== null ? [[Math.max(0, row.inputSimilarity), row.outputSimilarity] as [number, number]] : [])),
  }));
  const scatter = scatterChart(perTask, { title: 'Per-task output vs input similarity', xLabel: 'input similarity', yLabel: 'output similarity', xMin: 0, xMax: 1, yMin: 0, yMax: 1 });
  const configs = runs.map((r) => `<li><b>${escapeXml(r.label)}</b>: ${escapeXml(configText(r.metrics))}</li>`).join('');
  const model = first ? `Model: ${escapeXml(first.model)}. Embedder: ${escapeXml(first.embedder)}.` : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title><style>${CSS}</style></head>
<body><h1>${escapeXml(title)}</h1>
<p class="note">${model} Accuracy is the ground-truth verdict; memory size counts active records after each task's addition and deletion. Overhead excludes model and code-execution time.</p>
<ul>${configs}</ul>
<h2>Summary</h2>${summaryTable(runs)}
<h2>Charts</h2><div class="charts">${accuracy}${memory}${similarity}${scatter}</div>
${runs.length === 1 && first ? `<h2>Tasks</h2>${taskTable(first)}` : ''}
</body></html>
`;
}
