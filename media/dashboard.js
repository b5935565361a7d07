//@ts-check
// Agent Memory dashboard: draws with plain canvas, no libraries, no network.
// Messages mirror src/vscode/dashboard/dashboard-protocol.ts.

/**
 * @typedef {{ taskIndex: number, accuracy: number }} AccuracyPoint
 * @typedef {{ taskIndex: number, size: number }} SizePoint
 * @typedef {{ taskIndex: number, input: number, output: number }} ScatterPoint
 * @typedef {{ recordId: string, question: string, meanInputSimilarity: number, meanOutputSimilarity: number, retrievals: number }} Misaligned
 * @typedef {{ tasks: unknown[], accuracyCurve: AccuracyPoint[], memorySizeCurve: SizePoint[], similarityScatter: ScatterPoint[],
 *   utilityHistogram: { bin: string, count: number }[], misaligned: Misaligned[], counts: Record<string, number> }} DashboardData
 * @typedef {{ type: 'data', data: DashboardData } | { type: 'error', message: string }} ToWebview
 */

(function () {
  // @ts-ignore acquireVsCodeApi is injected by VS Code
  const vscode = acquireVsCodeApi();
  const style = getComputedStyle(document.body);
  const fg = style.getPropertyValue('--vscode-foreground').trim() || '#ccc';
  const grid = style.getPropertyValue('--vscode-editorWidget-border').trim() || '#555';
  const accent = style.getPropertyValue('--vscode-charts-blue').trim() || '#3794ff';
  const accent2 = style.getPropertyValue('--vscode-charts-orange').trim() || '#d18616';

  /** @param {string} id */
  function canvas(id) {
    const el = /** @type {HTMLCanvasElement} */ (document.getElementById(id));
    const ctx = /** @type {CanvasRenderingContext2D} */ (el.getContext('2d'));
    ctx.clearRect(0, 0, el.width, el.height);
    ctx.font = '11px sans-serif';
    return { el, ctx, pad: 34 };
  }

  /** Axes with min/max labels. */
  function axes(/** @type {ReturnType<typeof canvas>} */ c, /** @type {number} */ xMax, /** @type {number} */ yMax, /** @type {string} */ xLabel) {
    const { ctx, el, pad } = c;
    ctx.strokeStyle = grid;
    ctx.beginPath();
    ctx.moveTo(pad, 8);
    ctx.lineTo(pad, el.height - pad);
    ctx.lineTo(el.width - 8, el.height - pad);
    ctx.stroke();
    ctx.fillStyle = fg;
    ctx.fillText(String(round(yMax)), 2, 14);
    ctx.fillText('0', pad - 12, el.height - pad);
    ctx.fillText(String(round(xMax)), el.width - 40, el.height - pad + 14);
    ctx.fillText(xLabel, el.width / 2 - 20, el.height - 6);
  }

  /** @param {number} v */
  function round(v) {
    return Math.round(v * 100) / 100;
  }

  function emptyNote(/** @type {ReturnType<typeof canvas>} */ c, /** @type {string} */ text) {
    c.ctx.fillStyle = fg;
    c.ctx.fillText(text, c.pad + 10, c.el.height / 2);
  }

  /** A line chart of (x, y) points. */
  function line(/** @type {string} */ id, /** @type {{x: number, y: number}[]} */ points, /** @type {number | undefined} */ fixedMax, /** @type {string} */ color) {
    const c = canvas(id);
    const xMax = Math.max(1, ...points.map((p) => p.x));
    const yMax = fixedMax ?? Math.max(1, ...points.map((p) => p.y));
    axes(c, xMax, yMax, 'task');
    if (points.length === 0) return emptyNote(c, 'No tasks yet');
    const { ctx, el, pad } = c;
    const sx = (/** @type {number} */ x) => pad + (x / xMax) * (el.width - pad - 8);
    const sy = (/** @type {number} */ y) => el.height - pad - (y / yMax) * (el.height - pad - 8);
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    points.forEach((p, i) => (i === 0 ? ctx.moveTo(sx(p.x), sy(p.y)) : ctx.lineTo(sx(p.x), sy(p.y))));
    ctx.stroke();
    ctx.lineWidth = 1;
  }

  function scatter(/** @type {ScatterPoint[]} */ points) {
    const c = canvas('scatter');
    axes(c, 1, 1, 'input similarity → (y: output)');
    if (points.length === 0) return emptyNote(c, 'No retrievals yet');
    const { ctx, el, pad } = c;
    ctx.strokeStyle = grid;
    ctx.setLineDash([4, 4]);
    ctx.beginPath();
    ctx.moveTo(pad, el.height - pad);
    ctx.lineTo(el.width - 8, 8);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = accent;
    for (const p of points) {
      const x = pad + p.input * (el.width - pad - 8);
      const y = el.height - pad - p.output * (el.height - pad - 8);
      ctx.beginPath();
      ctx.arc(x, y, 3, 0, Math.PI * 2);
      ctx.fill();
    }
  }

  function histogram(/** @type {{bin: string, count: number}[]} */ bins) {
    const c = canvas('histogram');
    const max = Math.max(1, ...bins.map((b) => b.count));
    axes(c, 1, max, 'mean utility Φ');
    if (bins.length === 0) return emptyNote(c, 'No evaluated records yet');
    const { ctx, el, pad } = c;
    const w = (el.width - pad - 8) / bins.length;
    bins.forEach((b, i) => {
      const h = (b.count / max) * (el.height - pad - 8);
      ctx.fillStyle = accent2;
      ctx.fillRect(pad + i * w + 2, el.height - pad - h, w - 4, h);
      ctx.fillStyle = fg;
      ctx.fillText(b.bin, pad + i * w + 2, el.height - pad + 12);
    });
  }

  function table(/** @type {Misaligned[]} */ rows) {
    const body = /** @type {HTMLTableSectionElement} */ (document.querySelector('#misaligned tbody'));
    body.replaceChildren();
    if (rows.length === 0) {
      const tr = body.insertRow();
      const td = tr.insertCell();
      td.colSpan = 4;
      td.textContent = 'No misaligned records.';
      return;
    }
    for (const r of rows) {
      const tr = body.insertRow();
      const link = document.createElement('a');
      link.href = '#';
      link.textContent = r.question;
      link.addEventListener('click', (e) => {
        e.preventDefault();
        vscode.postMessage({ type: 'openRecord', recordId: r.recordId });
      });
      tr.insertCell().append(link);
      tr.insertCell().textContent = r.meanInputSimilarity.toFixed(2);
      tr.insertCell().textContent = r.meanOutputSimilarity.toFixed(2);
      tr.insertCell().textContent = String(r.retrievals);
    }
  }

  function draw(/** @type {DashboardData} */ d) {
    /** @type {HTMLElement} */ (document.getElementById('error')).hidden = true;
    /** @type {HTMLElement} */ (document.getElementById('counts')).textContent =
      `${d.counts.active ?? 0} active · ${d.counts.pending ?? 0} pending · ${d.counts.deleted ?? 0} deleted · ${d.tasks.length} tasks`;
    line('accuracy', d.accuracyCurve.map((p) => ({ x: p.taskIndex, y: p.accuracy })), 1, accent);
    line('size', d.memorySizeCurve.map((p) => ({ x: p.taskIndex, y: p.size })), undefined, accent2);
    scatter(d.similarityScatter);
    histogram(d.utilityHistogram);
    table(d.misaligned);
    vscode.postMessage({ type: 'rendered', charts: 4, tasks: d.tasks.length });
  }

  window.addEventListener('message', (/** @type {MessageEvent<ToWebview>} */ event) => {
    const m = event.data;
    if (m.type === 'data') draw(m.data);
    else if (m.type === 'error') {
      const el = /** @type {HTMLElement} */ (document.getElementById('error'));
      el.textContent = m.message;
      el.hidden = false;
    }
  });
  /** @type {HTMLElement} */ (document.getElementById('refresh')).addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
  vscode.postMessage({ type: 'ready' });
})();
