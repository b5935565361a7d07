//@ts-check
// Agent Memory dashboard (runs in the webview). Chart.js is bundled in by scripts/bundle.mjs
// (dist/dashboard.js): no CDN, no network, a nonce CSP. Messages mirror ../dashboard-protocol.ts.
import { BarController, BarElement, CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Tooltip } from 'chart.js';

import { options, round, scatterDataset, scatterOptions, sizeChartOptions } from './chart-options.js';

Chart.register(BarController, BarElement, CategoryScale, Filler, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Tooltip);

/**
 * @typedef {{ kind: string, source: string }} Verdict
 * @typedef {{ taskIndex: number, verdict: Verdict, decision: 'approved' | 'rejected' | null, utility: number | null, outcome: string | null, memorySize: number }} TaskPoint
 * @typedef {{ recordId: string, question: string, meanInputSimilarity: number, meanOutputSimilarity: number, retrievals: number }} Misaligned
 * @typedef {{ tasks: TaskPoint[], accuracyCurve: { taskIndex: number, accuracy: number }[], outcomeCurve: { taskIndex: number, ran: number, correct: number, wrong: number }[],
 *   memorySizeCurve: { taskIndex: number, size: number }[],
 *   similarityScatter: { taskIndex: number, input: number, output: number }[], utilityHistogram: { bin: string, count: number }[],
 *   misaligned: Misaligned[], counts: Record<string, number>, summary: Record<string, number>, summaryText: string }} DashboardData
 * Verdicts, counts and the summary line are computed by the extension (src/core/app/dashboard.ts) from the
 * same source as the task toasts; the webview only draws them.
 */

// @ts-ignore acquireVsCodeApi is injected by VS Code
const vscode = acquireVsCodeApi();
/** @type {Chart[]} */
let charts = [];
/** @type {DashboardData | undefined} */
let last;

/** Colours from the current VS Code theme (light, dark, high contrast). */
function theme() {
  const css = getComputedStyle(document.body);
  const v = (/** @type {string} */ name, /** @type {string} */ fallback) => css.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--vscode-foreground', '#333'),
    grid: v('--vscode-editorWidget-border', '#8884'),
    blue: v('--vscode-charts-blue', '#3794ff'),
    orange: v('--vscode-charts-orange', '#d18616'),
    green: v('--vscode-charts-green', '#388a34'),
    red: v('--vscode-charts-red', '#f14c4c'),
    purple: v('--vscode-charts-purple', '#b180d7'),
  };
}

function draw(/** @type {DashboardData} */ data) {
  last = data;
  for (const c of charts) c.destroy();
  charts = [];
  const t = theme();
  const ctx = (/** @type {string} */ id) => /** @type {HTMLCanvasElement} */ (document.getElementById(id));
  const counts = data.counts;
  /** @type {HTMLElement} */ (document.getElementById('counts')).textContent = `${counts.active ?? 0} active · ${counts.pending ?? 0} pending · ${counts.deleted ?? 0} deleted · ${data.tasks.length} tasks`;
  /** @type {HTMLElement} */ (document.getElementById('summary')).textContent = data.summaryText;

  const line = (/** @type {string} */ label, /** @type {string} */ color, /** @type {{x:number,y:number}[]} */ points) => ({ label, data: points, borderColor: color, backgroundColor: color, pointRadius: points.length > 60 ? 0 : 2, borderWidth: 2, tension: 0 });

  charts.push(
    new Chart(ctx('accuracy'), {
      type: 'line',
      data: { datasets: [line('cumulative accuracy', t.blue, data.accuracyCurve.map((p) => ({ x: p.taskIndex, y: p.accuracy })))] },
      options: /** @type {any} */ (options(t, 'task', 'accuracy of checked answers', { yMax: 1, percent: true })),
    }),
  );
  const cum = data.outcomeCurve.map((p) => ({ x: p.taskIndex, ran: p.ran, correct: p.correct, wrong: p.wrong }));
  charts.push(
    new Chart(ctx('outcomes'), {
      type: 'line',
      data: {
        datasets: [
          line('ran', t.blue, cum.map((p) => ({ x: p.x, y: p.ran }))),
          line('correct', t.green, cum.map((p) => ({ x: p.x, y: p.correct }))),
          line('wrong', t.red, cum.map((p) => ({ x: p.x, y: p.wrong }))),
        ],
      },
      options: /** @type {any} */ (options(t, 'task', 'tasks so far')),
    }),
  );
  charts.push(
    new Chart(ctx('size'), {
      type: 'line',
      // Filled to the bottom of the plot ('start'): the axis starts near the smallest size, not at 0.
      data: { datasets: [{ ...line('active records', t.orange, data.memorySizeCurve.map((p) => ({ x: p.taskIndex, y: p.size }))), fill: 'start', backgroundColor: `${t.orange}33` }] },
      options: /** @type {any} */ (sizeChartOptions(t, data.memorySizeCurve.map((p) => p.size))),
    }),
  );
  charts.push(
    new Chart(ctx('scatter'), {
      type: 'scatter',
      data: { datasets: [scatterDataset(data.similarityScatter, t.purple)] },
      options: /** @type {any} */ ({
        ...scatterOptions(options(t, 'input similarity (question)', 'output similarity (code)', { yMax: 1, xFraction: true })),
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: (/** @type {any} */ c) => `task ${c.raw.task}: input ${round(c.parsed.x)}, output ${round(c.parsed.y)}` } },
        },
      }),
    }),
  );
  charts.push(
    new Chart(ctx('histogram'), {
      type: 'bar',
      data: { labels: data.utilityHistogram.map((b) => b.bin), datasets: [{ label: 'active records', data: data.utilityHistogram.map((b) => b.count), backgroundColor: t.green }] },
      options: /** @type {any} */ (options(t, 'mean utility Φ', 'records', { xCategory: true })),
    }),
  );

  const tbody = /** @type {HTMLElement} */ (document.querySelector('#misaligned tbody'));
  tbody.textContent = '';
  if (data.misaligned.length === 0) {
    const tr = document.createElement('tr');
    const td = document.createElement('td');
    td.colSpan = 4;
    td.textContent = 'No misaligned record: none is retrieved for similar questions while the code diverges from it.';
    tr.appendChild(td);
    tbody.appendChild(tr);
  }
  for (const m of data.misaligned) {
    const tr = document.createElement('tr');
    const q = document.createElement('td');
    const a = document.createElement('a');
    a.href = '#';
    a.textContent = m.question;
    a.addEventListener('click', (e) => {
      e.preventDefault();
      vscode.postMessage({ type: 'openRecord', recordId: m.recordId });
    });
    q.appendChild(a);
    tr.appendChild(q);
    for (const v of [round(m.meanInputSimilarity), round(m.meanOutputSimilarity), String(m.retrievals)]) {
      const td = document.createElement('td');
      td.textContent = v;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }
  vscode.postMessage({ type: 'rendered', charts: charts.length, tasks: data.tasks.length });
}

window.addEventListener('message', (event) => {
  const msg = event.data;
  const error = /** @type {HTMLElement} */ (document.getElementById('error'));
  if (msg && msg.type === 'data') {
    error.hidden = true;
    draw(msg.data);
  } else if (msg && msg.type === 'error') {
    error.hidden = false;
    error.textContent = `Could not load the dashboard data: ${msg.message}`;
  }
});

// A theme switch changes the body class: redraw with the new colours.
new MutationObserver(() => last && draw(last)).observe(document.body, { attributes: true, attributeFilter: ['class'] });
/** @type {HTMLElement} */ (document.getElementById('refresh')).addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
vscode.postMessage({ type: 'ready' });
