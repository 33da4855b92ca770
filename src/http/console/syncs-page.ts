import { formatDateTime, formatDuration, formatNumber, type Lang, textsFor } from '../../core/text/local-text.js';
import type { SyncJob, SyncRunSummary } from '../../services/catalog/catalog-service.js';
import { escapeHtml as h } from './html.js';
import type { ConsoleContext } from './layout.js';
import { type ChartPoint, renderLineChart } from './svg-chart.js';
import { SYNCS_TEXTS, type SyncsTexts } from './syncs-texts.js';

/** Runs listed in a job's table; its charts show every stored run. */
const TABLE_RUNS = 20;

/** The value a job's item chart shows: products for a full sync, stock rows read for a stock sync. */
function itemCount(run: SyncRunSummary): number | undefined {
  return run.job === 'sync-catalog' ? run.products : run.counts.stockRows;
}

const isFailed = (run: SyncRunSummary) => run.outcome === 'failed' || run.outcome === 'refused';

function numberCell(lang: Lang, value: number | undefined): string {
  return `<td class="num">${value === undefined ? '<span class="muted">—</span>' : h(formatNumber(lang, value))}</td>`;
}

/** The outcome, coloured and linked to its explanation, with the error's code linked too. */
function outcomeCell(run: SyncRunSummary, t: SyncsTexts): string {
  const outcome = `<a class="${h(run.outcome)}" href="/docs/report-codes#${h(run.outcome)}">${h(t.outcomes[run.outcome] ?? run.outcome)}</a>`;
  const error =
    run.error === undefined
      ? ''
      : `<br><a href="/docs/report-codes#${h(run.error.code)}"><code>${h(run.error.code)}</code></a> <span class="muted">${h(run.error.message)}</span>`;
  const reason = run.reason === undefined ? '' : `<br><span class="muted">${h(run.reason)}</span>`;
  return `<td>${outcome}${error}${reason}</td>`;
}

function runTable(job: SyncJob, runs: readonly SyncRunSummary[], context: ConsoleContext, timeZone: string): string {
  const { lang } = context;
  const t = textsFor(SYNCS_TEXTS, lang);
  const c = t.columns;
  const withSheet = runs.some((run) => run.counts.enrichmentRows !== undefined);
  const countColumns: readonly (keyof SyncRunSummary['counts'])[] =
    job === 'sync-stock'
      ? ['stockRows', 'changedProducts']
      : ['units', 'articles', 'priceListRows', 'stockRows', ...(withSheet ? (['enrichmentRows'] as const) : [])];
  const head = [
    `<th scope="col">${h(c.finished)}</th><th scope="col">${h(c.outcome)}</th><th scope="col" class="num">${h(c.duration)}</th>`,
    job === 'sync-catalog' ? `<th scope="col" class="num">${h(c.products)}</th>` : '',
    ...countColumns.map((column) => `<th scope="col" class="num">${h(c[column])}</th>`),
    `<th scope="col" class="num">${h(c.rejected)}</th><th scope="col" class="num">${h(c.unmatched)}</th><th scope="col">${h(c.report)}</th>`,
  ].join('');
  const rows = runs.slice(0, TABLE_RUNS).map((run) => {
    const finished = formatDateTime(lang, run.finishedAt, timeZone);
    const report = context.href(`/api/syncs/${encodeURIComponent(run.runId)}`, { download: 1 });
    return `<tr><td>${h(finished)}</td>${outcomeCell(run, t)}<td class="num">${h(formatDuration(lang, run.durationMs))}</td>${
      job === 'sync-catalog' ? numberCell(lang, run.products) : ''
    }${countColumns.map((column) => numberCell(lang, run.counts[column])).join('')}${numberCell(lang, run.rejected)}${numberCell(
      lang,
      run.unmatched,
    )}<td><a href="${h(report)}" download aria-label="${h(t.downloadLabel(finished))}">${h(t.download)}</a></td></tr>`;
  });
  return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** A chart's accessible summary: range, latest value, direction and failures, in the reader's language. */
function chartSummary(
  what: string,
  values: readonly number[],
  failed: number,
  t: SyncsTexts,
  format: (v: number) => string,
): string {
  const first = values[0] ?? 0;
  const last = values.at(-1) ?? 0;
  const trend = last > first * 1.1 ? t.trend.up : last < first * 0.9 ? t.trend.down : t.trend.flat;
  const text = t.summary(
    what,
    t.runs(values.length),
    format(Math.min(...values)),
    format(Math.max(...values)),
    format(last),
    trend,
  );
  return failed > 0 ? `${text}; ${t.failedRuns(failed)}` : text;
}

function jobCharts(job: SyncJob, runs: readonly SyncRunSummary[], lang: Lang, timeZone: string): string {
  const t = textsFor(SYNCS_TEXTS, lang);
  const oldestFirst = [...runs].reverse();
  const failed = oldestFirst.filter(isFailed).length;
  const label = (run: SyncRunSummary, value: string) =>
    `${formatDateTime(lang, run.finishedAt, timeZone)}: ${value} (${t.outcomes[run.outcome] ?? run.outcome})`;
  const chart = (what: string, pick: (run: SyncRunSummary) => number | undefined, format: (v: number) => string) => {
    const points: ChartPoint[] = oldestFirst.map((run) => {
      const value = pick(run);
      return { value, failed: isFailed(run), label: label(run, value === undefined ? t.noValue : format(value)) };
    });
    const values = points.flatMap((point) => (point.value === undefined ? [] : [point.value]));
    const first = oldestFirst[0];
    const last = oldestFirst.at(-1);
    return `<figure><figcaption>${h(what)}</figcaption>${renderLineChart(points, {
      summary: values.length === 0 ? `${what}: ${t.noRuns}` : chartSummary(what, values, failed, t, format),
      formatValue: format,
      emptyText: t.noRuns,
      ...(first === undefined ? {} : { firstLabel: formatDateTime(lang, first.finishedAt, timeZone) }),
      ...(last === undefined ? {} : { lastLabel: formatDateTime(lang, last.finishedAt, timeZone) }),
    })}</figure>`;
  };
  return `<div class="charts">${chart(
    t.durationChart,
    (run) => run.durationMs,
    (ms) => formatDuration(lang, ms),
  )}${chart(t.itemsChart[job], itemCount, (value) => formatNumber(lang, value))}</div>`;
}

/** The page's body: per job its charts and its table of runs. */
export function syncsBody(
  history: ReadonlyMap<SyncJob, readonly SyncRunSummary[]>,
  context: ConsoleContext,
  timeZone: string,
): string {
  const t = textsFor(SYNCS_TEXTS, context.lang);
  const sections = [...history].map(([job, runs]) => {
    const id = job === 'sync-catalog' ? 'catalog' : 'stock';
    const content =
      runs.length === 0
        ? `<p class="muted">${h(t.noRuns)}</p>`
        : `${jobCharts(job, runs, context.lang, timeZone)}${runTable(job, runs, context, timeZone)}`;
    return `<section aria-labelledby="${id}"><h2 id="${id}">${h(t.jobs[job])}</h2>${content}</section>`;
  });
  return `<style>.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,22rem),1fr));gap:1rem;margin-bottom:1rem}figure{margin:0}figcaption{font-weight:600}</style><p>${h(t.intro)}</p>${sections.join('')}`;
}
