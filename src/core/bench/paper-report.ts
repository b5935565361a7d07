/**
 * report.html of the many-seed grid: a self-contained page with Chart.js
 * 4.5 inlined (no CDN, no network): accuracy over tasks with 95 % CI bands,
 * memory size over tasks, the predicted-vs-paper table and the
 * experience-following scatter (input vs output similarity).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentMemoryError } from '../errors';
import type { CellCurves, GridJson, PaperComparisonRow } from './paper-aggregate';
import { cellKey } from './paper-cells';
import type { PaperCheck } from './paper-checks';

function chartJsSource(): string {
  const file = path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js');
  if (!fs.existsSync(file)) throw new AgentMemoryError('NOT_FOUND', `Chart.js not found at ${file}; run npm install.`);
  // A literal "</script" inside the inlined library would end the script element.
  return fs.readFileSync(file, 'utf8').replace(/<\/script/gi, '<\\/script');
}

function esc(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

export interface PaperReportInput {
  title: string;
  json: GridJson;
  curves: CellCurves[];
  comparison: PaperComparisonRow[];
  /** What the grid must show, as measured (met or not). */
  checks?: PaperCheck[];
  footer: string[];
}

const SCRIPT = `
const D = JSON.parse(document.getElementById('data').textContent);
const palette = ['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2','#7f7f7f','#bcbd22','#17becf'];
function lineChart(id, keys, pick, band) {
  const datasets = [];
  keys.forEach((k, i) => {
    const c = D.curves.find((x) => x.key === k); if (!c) return;
    const col = palette[i % palette.length];
    if (band) {
      datasets.push({ label: k + ' (CI lo)', data: c.accuracy.lo, borderWidth: 0, pointRadius: 0, fill: false, backgroundColor: col + '22' });
      datasets.push({ label: k + ' (CI hi)', data: c.accuracy.hi, borderWidth: 0, pointRadius: 0, fill: '-1', backgroundColor: col + '33' });
    }
    datasets.push({ label: k, data: pick(c), borderColor: col, borderWidth: 1.5, pointRadius: 0, fill: false });
  });
  const n = Math.max(...datasets.map((d) => d.data.length));
  new Chart(document.getElementById(id), { type: 'line', data: { labels: Array.from({ length: n }, (_, i) => i + 1), datasets },
    options: { animation: false, plugins: { legend: { labels: { filter: (it) => !/\\(CI (lo|hi)\\)$/.test(it.text) } } }, scales: { x: { title: { display: true, text: 'task' } } } } });
}
const groups = D.groups;
for (const g of groups) {
  lineChart('acc-' + g.id, g.keys, (c) => c.accuracy.mean, true);
  lineChart('mem-' + g.id, g.keys, (c) => c.memory, false);
}
const sc = D.curves.find((c) => c.key === D.scatterKey);
if (sc) new Chart(document.getElementById('scatter'), { type: 'scatter', data: { datasets: [{ label: D.scatterKey + ' (first seed)', data: sc.scatter.map(([x, y]) => ({ x, y })), pointRadius: 2, backgroundColor: '#1f77b488' }] },
  options: { animation: false, scales: { x: { title: { display: true, text: 'input similarity (top demonstration)' }, min: 0, max: 1 }, y: { title: { display: true, text: 'output similarity' }, min: 0, max: 1 } } } });
`;

/**
 * @example
 * fs.writeFileSync('out/bench-paper/report.html', renderPaperReport({ title, json, curves, comparison, footer }));
 */
export function renderPaperReport(input: PaperReportInput): string {
  const keys = input.json.cells.map(cellKey);
  const groups = [
    { id: 'additions', title: 'Addition (no deletion)', keys: keys.filter((k) => k.endsWith('/none/standard/shown')) },
    { id: 'strict', title: 'Strict addition × deletion', keys: keys.filter((k) => k.startsWith('strict/') && k.endsWith('/standard/shown')) },
    { id: 'coarse', title: 'Coarse addition × deletion', keys: keys.filter((k) => k.startsWith('coarse/') && k.endsWith('/standard/shown')) },
    { id: 'variants', title: 'Error-free, shift, capacity; followed / top-output attribution and relative threshold (beyond the paper)', keys: keys.filter((k) => !k.endsWith('/standard/shown') || k === 'strict/combined/standard/shown') },
  ];
  const rows = input.json.cells
    .map((c) => `<tr><td class="l">${esc(c.addition)}</td><td class="l">${esc(c.deletion)}</td><td class="l">${esc(c.variant)}</td><td class="l">${esc(c.attribution)}</td><td class="l">${esc(c.threshold ?? 'paper')}</td><td class="l">${esc(c.guard ?? 'none')}</td><td>${c.accuracy_mean.toFixed(2)}</td><td>[${c.accuracy_ci95[0].toFixed(2)}, ${c.accuracy_ci95[1].toFixed(2)}]</td><td>${c.memory_mean}</td><td>${c.memory_min}</td></tr>`)
    .join('');
  const cmp = input.comparison
    .map((r) => `<tr><td class="l">${esc(r.key)}${r.fitted ? ' <b>(fitted)</b>' : ''}</td><td>${r.paper_accuracy.toFixed(2)}</td><td>${r.predicted_accuracy.toFixed(2)} [${r.predicted_ci95[0].toFixed(2)}, ${r.predicted_ci95[1].toFixed(2)}]</td><td>${r.paper_memory}</td><td>${r.predicted_memory}</td></tr>`)
    .join('');
  const checks = (input.checks ?? []).map((c) => `<tr><td class="l">${c.met ? 'met' : '<b>NOT met</b>'}</td><td class="l">${esc(c.claim)}</td><td class="l">${esc(c.measured)}</td></tr>`).join('');
  const charts = groups.map((g) => `<h2>${esc(g.title)}</h2><div class="charts"><div class="c"><canvas id="acc-${g.id}"></canvas><p class="note">cumulative accuracy % (mean over seeds, band = 95 % CI)</p></div><div class="c"><canvas id="mem-${g.id}"></canvas><p class="note">active memory records (mean over seeds)</p></div></div>`).join('');
  const data = { curves: input.curves, groups: groups.map((g) => ({ id: g.id, keys: g.keys })), scatterKey: 'all/none/standard/shown' };
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(input.title)}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}th{background:#f5f5f5}.l{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:16px}.c{width:640px}.note{color:#555;font-size:12px}.label{background:#fff3cd;padding:6px 10px;border:1px solid #e0c060}</style></head><body>
<h1>${esc(input.title)}</h1>
${input.json.label ? `<p class="label"><b>${esc(input.json.label)}</b>: these numbers come from a simulated agent calibrated on two paper numbers, not from a language model.</p>` : ''}
<p>agent <b>${esc(input.json.agent)}</b>, ${input.json.seeds} seeds from seed base ${input.json.seed_base}, ${input.json.tasks} tasks per stream.</p>
<h2>Grid (accuracy %, mean and 95 % CI over seeds; memory = mean final active records; memory_min = smallest active memory at any point of any seed)</h2>
<table><tr><th class="l">addition</th><th class="l">deletion</th><th class="l">variant</th><th class="l">attribution</th><th class="l">threshold</th><th class="l">periodic guard</th><th>accuracy %</th><th>95 % CI</th><th>memory</th><th>memory min</th></tr>${rows}</table>
<h2>Predicted vs paper (EHRAgent, Tables 1–2)</h2>
<table><tr><th class="l">cell</th><th>paper acc %</th><th>ours acc % [95 % CI]</th><th>paper memory</th><th>ours memory</th></tr>${cmp}</table>
${checks ? `<h2>What it must show (issue 9), as measured: differences paired by seed, 95 % CI</h2><table><tr><th class="l">verdict</th><th class="l">claim</th><th class="l">measured</th></tr>${checks}</table>` : ''}
${charts}
<h2>Experience following: input vs output similarity per task (add-all, first seed)</h2><div class="c"><canvas id="scatter"></canvas></div>
<p class="note">${input.footer.map(esc).join('<br>')}</p>
<script id="data" type="application/json">${scriptJson(data)}</script>
<script>${chartJsSource()}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
