//@ts-check
// Chart options of the dashboard (no DOM, no Chart.js): axis titles, tooltips that say "task 3",
// and the similarity scatter that keeps points at 1.0 whole. Unit-tested in Node
// (test/unit/vscode/chart-options.test.ts); dashboard-view.js draws with them.

/** Rounded for display: 2 decimals, integers as they are. */
export function round(/** @type {number} */ v, digits = 2) {
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

/** Common options: responsive, axis titles, hover values, theme colours. */
export function options(/** @type {{ fg: string, grid: string }} */ t, /** @type {string} */ xTitle, /** @type {string} */ yTitle, /** @type {{ yMin?: number, yMax?: number, percent?: boolean, xCategory?: boolean, xFraction?: boolean }} */ o = {}) {
  const tick = { color: t.fg };
  const title = (/** @type {string} */ text) => ({ display: true, text, color: t.fg });
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: /** @type {false} */ (false),
    interaction: { mode: /** @type {'nearest'} */ ('nearest'), intersect: false },
    plugins: {
      legend: { labels: { color: t.fg } },
      tooltip: {
        callbacks: {
          // The x value of a task chart is a task number: "task 3", not "3".
          title: (/** @type {any[]} */ items) => (items.length === 0 ? '' : o.xCategory || xTitle !== 'task' ? String(items[0].label) : `task ${items[0].parsed.x}`),
          label: (/** @type {any} */ ctx) => {
            const y = ctx.parsed.y;
            const value = o.percent ? `${round(y * 100, 1)} %` : round(y);
            return `${ctx.dataset.label ?? ''}: ${value}`;
          },
        },
      },
    },
    scales: {
      // Task numbers and record counts are whole numbers: no 1.5 ticks.
      x: { type: o.xCategory ? 'category' : 'linear', title: title(xTitle), ticks: o.xFraction ? tick : { ...tick, precision: 0 }, grid: { color: t.grid } },
      y: {
        type: 'linear',
        // A chart scaled to its data (yMin) does not start at 0: its changes would be a flat line at the top.
        beginAtZero: o.yMin === undefined,
        ...(o.yMin !== undefined ? { min: o.yMin } : {}),
        ...(o.yMax !== undefined ? { max: o.yMax } : {}),
        title: title(yTitle),
        ticks: { ...tick, ...(o.yMax === 1 ? {} : { precision: 0 }), callback: (/** @type {number|string} */ v) => (o.percent ? `${Math.round(Number(v) * 100)} %` : round(Number(v))) },
        grid: { color: t.grid },
      },
    },
  };
}

/** Radius of a scatter point (px); the plot's padding is larger, so a point at 1.0 is drawn whole. */
export const SCATTER_POINT_RADIUS = 3;

/**
 * The scatter's one dataset: a point per retrieval (input vs output similarity) with its task.
 * clip: false and the padding of scatterOptions keep points at 1.0 whole.
 */
export function scatterDataset(/** @type {{ taskIndex: number, input: number, output: number }[]} */ points, /** @type {string} */ color) {
  return { label: 'task', data: points.map((p) => ({ x: p.input, y: p.output, task: p.taskIndex })), backgroundColor: color, pointRadius: SCATTER_POINT_RADIUS, clip: false };
}

/** Both similarity axes from 0 to 1, with room around the plot so a point at 1.0 is drawn whole. */
export function scatterOptions(/** @type {any} */ base) {
  return { ...base, layout: { padding: { top: SCATTER_POINT_RADIUS + 5, right: SCATTER_POINT_RADIUS + 9 } }, scales: { ...base.scales, x: { ...base.scales.x, min: 0, max: 1 }, y: { ...base.scales.y, min: 0, max: 1 } } };
}

/**
 * The y range of a count over tasks scaled to the data, so a change of a few records in a memory
 * of hundreds is visible: from a margin below the smallest value to a margin above the largest
 * (10 % of the spread, at least 1), whole numbers, never below 0. Empty data: no range.
 */
export function dataRange(/** @type {number[]} */ values) {
  if (values.length === 0) return {};
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const margin = Math.max(1, Math.ceil((hi - lo) * 0.1));
  return { yMin: Math.max(0, Math.floor(lo - margin)), yMax: Math.ceil(hi + margin) };
}

/** The memory-size chart's options: its y axis spans the sizes seen (dataRange), not 0 to the largest. */
export function sizeChartOptions(/** @type {{ fg: string, grid: string }} */ t, /** @type {number[]} */ sizes) {
  return options(t, 'task', 'active records', dataRange(sizes));
}
