/**
 * Minimal inline-SVG charts (no scripts, no external resources) for the
 * benchmark report: line charts over task index and a scatter plot.
 */

export interface Series {
  name: string;
  /** y per x = 1..n (null = gap). */
  values: (number | null)[];
  color?: string;
}

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  yMin?: number;
  yMax?: number;
  width?: number;
  height?: number;
  /** Vertical markers (x positions), e.g. distribution-shift boundaries. */
  markers?: number[];
}

export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(Math.abs(x) < 10 ? 2 : 0);
}

function ticks(min: number, max: number, count = 5): number[] {
  if (max <= min) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const M = { left: 56, right: 16, top: 28, bottom: 42 };

function frame(title: string, w: number, h: number, xLabel: string, yLabel: string, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-label="${escapeXml(title)}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}">` +
    `<text x="${w / 2}" y="16" text-anchor="middle" font-size="13" font-weight="600">${escapeXml(title)}</text>` +
    body +
    `<text x="${(M.left + w - M.right) / 2}" y="${h - 6}" text-anchor="middle" font-size="11">${escapeXml(xLabel)}</text>` +
    `<text transform="translate(12 ${(M.top + h - M.bottom) / 2}) rotate(-90)" text-anchor="middle" font-size="11">${escapeXml(yLabel)}</text>` +
    `</svg>`
  );
}

function axes(w: number, h: number, xs: number[], ys: number[], sx: (x: number) => number, sy: (y: number) => number): string {
  let out = `<g font-size="10" fill="#444" stroke="none">`;
  for (const y of ys) out += `<line x1="${M.left}" x2="${w - M.right}" y1="${sy(y).toFixed(1)}" y2="${sy(y).toFixed(1)}" stroke="#e5e5e5"/><text x="${M.left - 4}" y="${(sy(y) + 3).toFixed(1)}" text-anchor="end">${fmt(y)}</text>`;
  for (const x of xs) out += `<text x="${sx(x).toFixed(1)}" y="${h - M.bottom + 14}" text-anchor="middle">${fmt(x)}</text>`;
  out += `<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${h - M.bottom}" stroke="#888"/><line x1="${M.left}" x2="${w - M.right}" y1="${h - M.bottom}" y2="${h - M.bottom}" stroke="#888"/></g>`;
  return out;
}

function legend(series: { name: string; color: string }[], w: number): string {
  return series
    .map((s, i) => `<g font-size="10"><rect x="${w - M.right - 150}" y="${M.top + 4 + i * 14}" width="10" height="3" fill="${s.color}"/><text x="${w - M.right - 136}" y="${M.top + 9 + i * 14}">${escapeXml(s.name)}</text></g>`)
    .join('');
}

/**
 * A line chart of one or more series over x = 1..n.
 *
 * @example
 * lineChart([{ name: 'strict', values: metrics.accuracy_curve }], { title: 'Accuracy', xLabel: 'task', yLabel: 'accuracy', yMin: 0, yMax: 1 });
 */
export function lineChart(series: Series[], o: LineChartOptions): string {
  const w = o.width ?? 640;
  const h = o.height ?? 280;
  const n = Math.max(1, ...series.map((s) => s.values.length));
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const yMin = o.yMin ?? Math.min(0, ...all);
  let yMax = o.yMax ?? Math.max(1e-9, ...all);
  if (yMax <= yMin) yMax = yMin + 1;
  const sx = (x: number) => M.left + ((x - 1) / Math.max(1, n - 1)) * (w - M.left - M.right);
  const sy = (y: number) => h - M.bottom - ((y - yMin) / (yMax - yMin)) * (h - M.top - M.bottom);
  let body = axes(w, h, ticks(1, n), ticks(yMin, yMax), sx, sy);
  for (const x of o.markers ?? []) body += `<line class="marker" x1="${sx(x).toFixed(1)}" x2="${sx(x).toFixed(1)}" y1="${M.top}" y2="${h - M.bottom}" stroke="#999" stroke-dasharray="4 3"/>`;
  const colored = series.map((s, i) => ({ ...s, color: s.color ?? PALETTE[i % PALETTE.length] }));
  for (const s of colored) {
    let d = '';
    let pen = false;
    s.values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${sx(i + 1).toFixed(1)} ${sy(v).toFixed(1)}`;
      pen = true;
    });
    body += `<path class="series" data-name="${escapeXml(s.name)}" d="${d}" fill="none" stroke="${s.color}" stroke-width="1.6"/>`;
  }
  body += legend(colored, w);
  return frame(o.title, w, h, o.xLabel, o.yLabel, body);
}

/**
 * A scatter plot of (x, y) points in [xMin, xMax] × [yMin, yMax].
 *
 * @example
 * scatterChart([{ name: 'tasks', points: [[0.8, 0.9]] }], { title: 'Input vs output similarity', xLabel: 'input', yLabel: 'output', xMin: 0, xMax: 1, yMin: 0, yMax: 1 });
 */
export function scatterChart(series: { name: string; points: [number, number][]; color?: string }[], o: { title: string; xLabel: string; yLabel: string; xMin: number; xMax: number; yMin: number; yMax: number; width?: number; height?: number }): string {
  const w = o.width ?? 420;
  const h = o.height ?? 340;
  const sx = (x: number) => M.left + ((x - o.xMin) / (o.xMax - o.xMin || 1)) * (w - M.left - M.right);
  const sy = (y: number) => h - M.bottom - ((y - o.yMin) / (o.yMax - o.yMin || 1)) * (h - M.top - M.bottom);
  let body = axes(w, h, ticks(o.xMin, o.xMax), ticks(o.yMin, o.yMax), sx, sy);
  const colored = series.map((s, i) => ({ ...s, color: s.color ?? PALETTE[i % PALETTE.length] }));
  for (const s of colored) {
    body += `<g class="points" data-name="${escapeXml(s.name)}" fill="${s.color}" fill-opacity="0.55">`;
    for (const [x, y] of s.points) body += `<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.4"/>`;
    body += `</g>`;
  }
  body += legend(colored, w);
  return frame(o.title, w, h, o.xLabel, o.yLabel, body);
}
