import { escapeHtml } from './html.js';

/**
 * Small line charts drawn on the server as inline SVG (docs/console.md#sync-history): the console runs no
 * script, and a chart of 50 points is a few kilobytes of markup. Pure: text in, text out.
 */

export interface ChartPoint {
  /** `undefined`: the run has no such value (a failed run counted no items); marked on the axis. */
  readonly value: number | undefined;
  /** Marked as failed (red cross, not only colour: a different shape). */
  readonly failed?: boolean;
  /** The point's tooltip (`<title>`), e.g. its date, value and outcome. */
  readonly label: string;
}

export interface ChartOptions {
  /** The chart's accessible name and summary of its trend (`aria-label` and `<title>`). */
  readonly summary: string;
  /** A y-axis tick's text. */
  readonly formatValue: (value: number) => string;
  /** Texts under the first and the last point (e.g. their dates). */
  readonly firstLabel?: string;
  readonly lastLabel?: string;
  /** What an empty chart says. */
  readonly emptyText: string;
}

const WIDTH = 600;
const HEIGHT = 200;
const PLOT = { left: 76, right: 12, top: 12, bottom: 32 } as const;
const PLOT_WIDTH = WIDTH - PLOT.left - PLOT.right;
const PLOT_HEIGHT = HEIGHT - PLOT.top - PLOT.bottom;

/** Rounds for markup: two decimals at most, no `-0`. */
function r(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return String(rounded === 0 ? 0 : rounded);
}

/**
 * About `count` evenly spaced round ticks covering `[min, max]` (1, 2 or 5 times a power of ten apart).
 * A range of zero width gets a range around its value; non-finite input gives `[0, 1]`.
 */
export function niceTicks(min: number, max: number, count = 4): number[] {
  let low = Number.isFinite(min) ? min : 0;
  let high = Number.isFinite(max) ? max : 1;
  if (low > high) [low, high] = [high, low];
  if (low === high) {
    // One value: from zero to half again as far, so that it stands inside the plot.
    if (low === 0) high = 1;
    else if (low > 0) [low, high] = [0, low * 1.5];
    else [low, high] = [low * 1.5, 0];
  }
  // The round step giving the tick count nearest to `count`.
  const power = 10 ** Math.floor(Math.log10((high - low) / Math.max(1, count)));
  const step = [1, 2, 5, 10]
    .map((factor) => factor * power)
    .reduce((best, candidate) =>
      Math.abs((high - low) / candidate - count) < Math.abs((high - low) / best - count) ? candidate : best,
    );
  const start = Math.floor(low / step) * step;
  const ticks: number[] = [];
  // Up to the first tick at or above `high`; bounded, since count + 2 steps cover the range by construction.
  for (let index = 0; index < count + 3; index++) {
    const tick = Number(((start / step + index) * step).toPrecision(12));
    ticks.push(tick);
    if (tick >= high) break;
  }
  return ticks;
}

/** The points' values with the axis kept at zero unless values go below it. */
function valueRange(points: readonly ChartPoint[]): number[] {
  const values = points.flatMap((point) => (point.value !== undefined && Number.isFinite(point.value) ? [point.value] : []));
  if (values.length === 0) return niceTicks(0, 1);
  return niceTicks(Math.min(0, ...values), Math.max(0, ...values));
}

function yAxis(ticks: readonly number[], y: (value: number) => number, format: (value: number) => string): string {
  return ticks
    .map((tick) => {
      const at = r(y(tick));
      return `<line x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${at}" y2="${at}" stroke="#d0d0d0" stroke-width="1"/><text x="${PLOT.left - 6}" y="${at}" text-anchor="end" dominant-baseline="middle" font-size="16" fill="#3c4043">${escapeHtml(format(tick))}</text>`;
    })
    .join('');
}

function marker(x: number, y: number, point: ChartPoint): string {
  const title = `<title>${escapeHtml(point.label)}</title>`;
  if (point.failed) {
    const d = `M${r(x - 5)} ${r(y - 5)}L${r(x + 5)} ${r(y + 5)}M${r(x - 5)} ${r(y + 5)}L${r(x + 5)} ${r(y - 5)}`;
    return `<g class="failed-point"><path d="${d}" stroke="#a50e0e" stroke-width="3"/>${title}</g>`;
  }
  return `<circle cx="${r(x)}" cy="${r(y)}" r="3.5" fill="#0b57d0">${title}</circle>`;
}

/** A line chart of `points` (oldest first) as an inline `<svg>` that scales to its container. */
export function renderLineChart(points: readonly ChartPoint[], options: ChartOptions): string {
  const summary = escapeHtml(options.summary);
  const open = `<svg class="chart" role="img" aria-label="${summary}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg"><title>${summary}</title>`;
  if (points.length === 0) {
    return `${open}<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle" font-size="18" fill="#5f6368">${escapeHtml(options.emptyText)}</text></svg>`;
  }
  const ticks = valueRange(points);
  const low = ticks[0] ?? 0;
  const high = ticks.at(-1) ?? 1;
  const span = high - low || 1;
  const y = (value: number) => PLOT.top + PLOT_HEIGHT - ((value - low) / span) * PLOT_HEIGHT;
  const x = (index: number) => PLOT.left + (points.length === 1 ? PLOT_WIDTH / 2 : (index / (points.length - 1)) * PLOT_WIDTH);
  const baseline = y(Math.max(low, Math.min(0, high)));
  const line = points
    .flatMap((point, index) =>
      point.value === undefined || !Number.isFinite(point.value) ? [] : [`${r(x(index))},${r(y(point.value))}`],
    )
    .join(' ');
  const markers = points
    .map((point, index) => {
      const value = point.value !== undefined && Number.isFinite(point.value) ? y(point.value) : baseline;
      return marker(x(index), value, point);
    })
    .join('');
  const labelY = HEIGHT - 6;
  const xLabels = [
    options.firstLabel === undefined
      ? ''
      : `<text x="${r(points.length === 1 ? x(0) : PLOT.left)}" y="${labelY}" text-anchor="${points.length === 1 ? 'middle' : 'start'}" font-size="16" fill="#3c4043">${escapeHtml(options.firstLabel)}</text>`,
    options.lastLabel === undefined || points.length === 1
      ? ''
      : `<text x="${WIDTH - PLOT.right}" y="${labelY}" text-anchor="end" font-size="16" fill="#3c4043">${escapeHtml(options.lastLabel)}</text>`,
  ].join('');
  const polyline = line.includes(' ') ? `<polyline points="${line}" fill="none" stroke="#0b57d0" stroke-width="2"/>` : '';
  return `${open}${yAxis(ticks, y, options.formatValue)}<line x1="${PLOT.left}" x2="${PLOT.left}" y1="${PLOT.top}" y2="${PLOT.top + PLOT_HEIGHT}" stroke="#5f6368"/>${polyline}${markers}${xLabels}</svg>`;
}
