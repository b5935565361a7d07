// Types of chart-options.js (plain JavaScript: it runs in the webview, bundled by scripts/bundle.mjs).
export interface ChartTheme {
  fg: string;
  grid: string;
}
export interface AxisOptions {
  beginAtZero?: boolean;
  min?: number;
  max?: number;
  title: { display: boolean; text: string; color: string };
  [key: string]: unknown;
}
export interface ChartOptions {
  plugins: { tooltip: { callbacks: { title(items: { label: string; parsed: { x: number; y: number } }[]): string; label(ctx: { dataset: { label?: string }; parsed: { y: number } }): string } } };
  scales: { x: AxisOptions; y: AxisOptions };
  layout?: { padding: { top: number; right: number } };
  [key: string]: unknown;
}
export function round(v: number, digits?: number): string;
export function options(t: ChartTheme, xTitle: string, yTitle: string, o?: { yMin?: number; yMax?: number; percent?: boolean; xCategory?: boolean; xFraction?: boolean }): ChartOptions;
export function dataRange(values: number[]): { yMin?: number; yMax?: number };
export function sizeChartOptions(t: ChartTheme, sizes: number[]): ChartOptions;
export const SCATTER_POINT_RADIUS: number;
export function scatterDataset(
  points: { taskIndex: number; input: number; output: number }[],
  color: string,
): { label: string; data: { x: number; y: number; task: number }[]; backgroundColor: string; pointRadius: number; clip: false };
export function scatterOptions(base: ChartOptions): ChartOptions & { layout: { padding: { top: number; right: number } } };
