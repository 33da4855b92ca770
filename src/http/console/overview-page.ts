import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { FeedReadiness } from '../../core/feeds/feed-report.js';
import { formatDuration, textsFor } from '../../core/text/local-text.js';
import type { SyncReport } from '../../services/catalog/catalog-service.js';
import type { NotServedCatalog } from '../../services/catalog/catalog-start.js';
import type { EnrichmentSyncReport } from '../../services/catalog/enrich-catalog.js';
import type { ConsoleWarning } from '../../services/console/console-warnings.js';
import type { EnrichmentStatus } from '../../services/enrichment/enrichment-service.js';
import type { GroupStatus } from '../../services/group/group-monitor.js';
import type { StoreState } from '../../services/health/store-health.js';
import type { WebhookStats } from '../../services/webhooks/webhook-processor.js';
import { reportCodeHref } from '../routes/docs-routes.js';
import type { FeedEntry, SyncSummary } from './feed-list.js';
import { feedTitle } from './feed-names.js';
import { escapeHtml as h, timeElement } from './html.js';
import type { ConsoleContext, PageOptions } from './layout.js';
import { type OverviewTexts, overviewTexts } from './overview-texts.js';
import { type PushStatuses, pushSection } from './push-section.js';

/** A report code linked to its entry in docs/report-codes.md (served by the bridge at /docs). */
function codeLink(base: string, code: string, text: string = code): string {
  return `<a href="${h(reportCodeHref(base, code))}">${h(text)}</a>`;
}

/** Why there is no catalog yet: the first sync runs, or failed and when it is tried again; and what the store holds instead. */
function waitingNotice(model: OverviewModel, waiting: OverviewWaiting, t: OverviewTexts): string {
  const report = model.lastCatalogReport;
  const { reason, notServed } = waiting;
  const failed = report?.outcome === 'failed' || report?.outcome === 'refused';
  const sentence = `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`;
  const aside =
    notServed === undefined
      ? ''
      : `<p class="notice" id="not-served">${t.notServed(h(notServed.version), notServed.products, h(notServed.source), h(model.source))}</p>`;
  return `<p class="notice${failed ? ' failed-notice' : ''}" id="waiting">${t.waiting(h(sentence))}</p>${aside}`;
}

/** This instance's place in a group on Redis: its role, the leader, and whether it serves the group's version. */
function groupLine(group: GroupStatus | undefined, base: string, t: OverviewTexts): string {
  if (group === undefined) return '';
  const role =
    group.role === 'leader'
      ? t.groupLeader(h(group.instance))
      : t.groupFollower(h(group.instance), h(group.leader ?? t.leaderUnknown));
  const version =
    group.behind === 0
      ? t.groupInStep
      : `<span class="failed">${t.groupBehind(group.behind, h(group.groupVersion ?? ''))}</span>`;
  const inbox = group.inbox === undefined ? '' : t.groupInbox(group.inbox.depth, group.inbox.pending, group.inbox.claimed);
  const error = group.error === undefined ? '' : ` <span class="failed">Redis: ${h(group.error)}</span>`;
  return `<p id="group">${role} ${version}${inbox}${error} ${t.groupDocs(h(`${base}/docs/scale-out`))}</p>`;
}

/** A store outage, said first: feeds come from memory and webhooks are refused until it is back. */
function storeNotice(store: StoreState | undefined, base: string, t: OverviewTexts): string {
  if (store === undefined || store.up) return '';
  return `<p class="notice failed-notice" id="store-down">${t.storeDown(h(store.since), h(store.reason ?? 'no answer'), h(`${base}/docs/failure-modes#the-store`))}</p>`;
}

/** One line on the POS's sale webhooks: what waits, and what became of the sales since start. */
function webhookLine(stats: WebhookStats | undefined, base: string, t: OverviewTexts): string {
  if (stats === undefined) return '';
  const { applied, refetched, dropped } = stats.sales;
  const last = stats.lastSaleServedAt === undefined ? h(t.noSaleYet) : h(stats.lastSaleServedAt);
  const droppedText =
    dropped > 0 ? ` · <span class="failed">${dropped} ${codeLink(base, 'dropped', t.webhooksDropped(dropped))}</span>` : '';
  return `<p id="webhooks">${t.webhooks(
    `${applied} ${codeLink(base, 'applied', t.webhooksApplied)}`,
    `${refetched} ${codeLink(base, 'refetched', t.webhooksRefetched)}`,
    droppedText,
    stats.pending,
    last,
  )}</p>`;
}

/** The enrichment sheet in use, what its check found, how it matched, and its last problem. */
export function enrichmentLine(
  status: EnrichmentStatus | undefined,
  match: EnrichmentSyncReport | undefined,
  t: OverviewTexts,
): string {
  if (status === undefined) return `<p id="enrichment" class="muted">${h(t.noSheet)}</p>`;
  const current = status.current;
  const inUse =
    current === undefined
      ? h(t.noSheetInUse)
      : t.sheetInUse(
          h(current.name),
          h(current.fetchedAt),
          current.check.rows ?? 0,
          current.check.groups ?? 0,
          h(current.check.keyColumn ?? '?'),
        );
  const problems = current?.check.problems ?? [];
  const problemList =
    problems.length === 0
      ? ''
      : `<details><summary>${h(t.ignoredCells(current?.check.problemCount ?? problems.length))}</summary><ul>${problems
          .map(
            (problem) =>
              `<li>${problem.line === undefined ? '' : `${t.row} ${problem.line}`}${problem.column === undefined ? '' : `, ${t.column} ${h(problem.column)}`}: ${h(problem.message)}</li>`,
          )
          .join('')}</ul></details>`;
  const failure =
    status.problem === undefined
      ? ''
      : ` <span class="failed">${h(t.sheetFailed(status.problem.code, status.problem.message))}</span>`;
  const matchText =
    match === undefined
      ? ''
      : t.sheetMatch(match.matched, match.rows, match.unmatched, match.ambiguous, match.duplicates, match.enrichedProducts);
  return `<p id="enrichment">${t.sheetLine(h(status.source), inUse, h(matchText))}${failure}</p>${problemList}`;
}

/** A feed's readiness: how many items carry every recommended value, and which are missing most. */
export function readinessCell(readiness: FeedReadiness | undefined, items: number | null, t: OverviewTexts): string {
  if (readiness === undefined || items === null) return '';
  const missing = Object.entries(readiness.missing).sort((a, b) => b[1] - a[1]);
  if (missing.length === 0) return h(t.complete(readiness.complete));
  const examples = readiness.examples
    .slice(0, 5)
    .map((example) => `<li>${h(t.exampleWithout(example.itemId, example.missing.join(', ')))}</li>`)
    .join('');
  return `<details><summary>${h(t.completeOf(readiness.complete, items))}</summary><ul>${missing
    .map(([name, count]) => `<li>${h(t.without(count, name))}</li>`)
    .join('')}${examples}</ul></details>`;
}

/** How many of the most severe warnings the overview lists before it links to the rest. */
const WARNINGS_SHOWN = 5;

/**
 * What the operator should fix, first on the page, in the reader's language: the errors and warnings of
 * the warnings page (its notes only there), and a link to it. Without it (tests of the routes alone), the
 * services' English sentences.
 */
function warningsNotice(
  fallback: readonly string[],
  warnings: readonly ConsoleWarning[] | undefined,
  context: ConsoleContext,
  t: OverviewTexts,
): string {
  const lines =
    warnings === undefined
      ? fallback
      : warnings.filter((warning) => warning.severity !== 'info').map((warning) => textsFor(warning.message, context.lang));
  const total = warnings?.length ?? 0;
  const link = total === 0 ? '' : `<p><a href="${h(context.href('/warnings'))}">${h(t.warningsLink(total))}</a></p>`;
  if (lines.length === 0) return link === '' ? '' : `<div id="warnings">${link}</div>`;
  const items = lines
    .slice(0, WARNINGS_SHOWN)
    .map((line) => `<li>${h(line)}</li>`)
    .join('');
  const failed = warnings?.some((warning) => warning.severity === 'error') === true ? ' failed-notice' : '';
  return `<div class="notice${failed}" id="warnings"><strong>${h(t.toFix)}</strong><ul>${items}</ul>${link}</div>`;
}

function syncTable(
  nextRuns: Readonly<Record<string, string | undefined>>,
  base: string,
  sync: Record<string, SyncSummary>,
  context: ConsoleContext,
  t: OverviewTexts,
): string {
  const { lang } = context;
  const rows = Object.entries(sync)
    .map(([job, summary]) => {
      const detail = summary?.error?.message ?? summary?.reason ?? '';
      const errorCode = summary?.error === undefined ? '' : `${codeLink(base, summary.error.code)}: `;
      const next = nextRuns[job];
      const outcome =
        summary === null
          ? h(t.notRunYet)
          : `<span class="${h(summary.outcome)}">${codeLink(base, summary.outcome, t.outcomes[summary.outcome])}</span>`;
      const finished = summary === null ? '' : timeElement(lang, summary.finishedAt);
      const took = summary === null ? '' : h(formatDuration(lang, summary.durationMs));
      return `<tr><td>${h(t.jobName(job))}</td><td>${outcome}</td><td>${finished}</td><td>${took}</td><td>${next === undefined ? '' : timeElement(lang, next)}</td><td>${errorCode}${h(detail)}</td></tr>`;
    })
    .join('');
  return `<div class="table-wrap"><table><thead><tr><th>${t.job}</th><th>${t.lastOutcome}</th><th>${t.finished}</th><th>${t.took}</th><th>${t.nextRun}</th><th>${t.detail}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function leftOutCell(entry: FeedEntry, base: string, t: OverviewTexts): string {
  if (entry.warnings && entry.warnings.count > 0) {
    const codes = Object.entries(entry.warnings.byCode)
      .map(([code, count]) => `${codeLink(base, code)} ${count}`)
      .join(', ');
    const attributes = Object.entries(entry.warnings.byAttribute)
      .map(([attribute, count]) => `<li>${count} × ${h(attribute)}</li>`)
      .join('');
    const examples = entry.warnings.examples
      .map(
        (example) =>
          `<li>${t.example} ${h(example.itemId)}: ${h(example.attribute)} ${codeLink(base, example.code, example.reason)}</li>`,
      )
      .join('');
    return `<details><summary>${h(t.leftOutSummary(entry.warnings.count))}: ${codes}</summary><ul>${attributes}${examples}</ul></details>`;
  }
  return entry.rendered ? h(t.none) : `<span class="muted">${h(t.notRendered)}</span>`;
}

function feedSections(
  snapshot: CatalogSnapshot,
  entries: readonly FeedEntry[],
  base: string,
  tokenQuery: string,
  lang: ConsoleContext['lang'],
  t: OverviewTexts,
): string {
  const views = [ALL_UNITS, ...snapshot.units.map((unit) => unit.code)];
  return views
    .map((view) => {
      const unitName = view === ALL_UNITS ? t.allUnits : (snapshot.units.find((unit) => unit.code === view)?.name ?? view);
      const rows = entries
        .filter((entry) => entry.unit === view)
        .map((entry) => {
          const href = `${entry.url}${tokenQuery}`;
          const download =
            entry.downloadUrl === undefined
              ? ''
              : ` <a class="button" href="${h(entry.downloadUrl)}" download title="${h(t.excelCsvTitle)}">${h(t.excelCsv)}</a>`;
          const items = entry.items ?? `<span class="muted" title="${h(t.notRenderedTitle(entry.viewProducts))}">—</span>`;
          return `<tr><td>${h(feedTitle(lang, entry.url.slice(entry.url.lastIndexOf('/') + 1), entry.title))}</td><td>${h(entry.format)}</td><td><a href="${h(href)}">${h(entry.url)}</a>${download}</td><td class="num">${items}</td><td>${leftOutCell(entry, base, t)}</td><td>${readinessCell(entry.readiness, entry.items, t)}</td></tr>`;
        })
        .join('');
      return `<h2>${h(view)} — ${h(unitName)}</h2><div class="table-wrap"><table><thead><tr><th>${t.feed}</th><th>${t.format}</th><th>${t.url}</th><th class="num">${t.items}</th><th>${t.leftOut}</th><th>${t.channelReady}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
    })
    .join('');
}

/** Why no catalog is served yet (shown instead of the feeds). */
export interface OverviewWaiting {
  readonly reason: string;
  /** A stored catalog of another source, kept but not served. */
  readonly notServed: NotServedCatalog | undefined;
}

/** Everything the overview shows, read by its route before rendering: the page is a function of it. */
export interface OverviewModel {
  readonly snapshot: CatalogSnapshot | undefined;
  readonly base: string;
  readonly tokenQuery: string;
  readonly sync: Record<string, SyncSummary>;
  /** The feeds of the served version (empty before the first catalog). */
  readonly entries: readonly FeedEntry[];
  readonly lastCatalogReport: SyncReport | undefined;
  /** The warnings page's warnings: the overview shows the errors and warnings and links to all. */
  readonly consoleWarnings: readonly ConsoleWarning[] | undefined;
  /** The configured source (POS), for people. */
  readonly source: string;
  /** Which POS is read (the sandbox with its URL, and why). */
  readonly pos: string | undefined;
  /** Present while no catalog is served. */
  readonly waiting?: OverviewWaiting;
  /** The services' English sentences, shown when the console's warnings are not wired (tests of the routes alone). */
  readonly fallbackWarnings: readonly string[];
  readonly store: StoreState | undefined;
  readonly group: GroupStatus | undefined;
  /** When each job runs next. */
  readonly nextRuns: Readonly<Record<string, string | undefined>>;
  readonly webhooks: WebhookStats | undefined;
  readonly push: PushStatuses | undefined;
  readonly enrichment: EnrichmentStatus | undefined;
}

/** The overview page (`/`): product search, what to fix, the syncs, and every feed of the served version. */
export function overviewPage(context: ConsoleContext, model: OverviewModel): PageOptions {
  const t = overviewTexts(context.lang);
  const { snapshot, base, tokenQuery, sync } = model;
  const search = `<form class="search" action="${h(context.href('/products').split('?')[0] ?? '/products')}" method="get" role="search"><label for="overview-q">${h(t.searchLabel)}</label><input type="search" id="overview-q" name="q" placeholder="${h(t.searchPlaceholder)}" required maxlength="100">${context.token === undefined ? '' : `<input type="hidden" name="token" value="${h(context.token)}">`}<button type="submit" class="primary">${h(t.searchButton)}</button></form>`;
  let body: string;
  if (snapshot === undefined) {
    body = model.waiting === undefined ? '' : waitingNotice(model, model.waiting, t);
  } else {
    const mergeIssues = Object.entries(sync['sync-catalog']?.issueCounts ?? {})
      .map(([reason, count]) => `<li>${codeLink(base, reason)}: ${count}</li>`)
      .join('');
    body = `<p>${t.source}: ${h(model.source)}</p>
<p>${t.version(h(snapshot.version), h(snapshot.generatedAt), snapshot.products.length, snapshot.units.length, h(snapshot.currency))}</p>
${mergeIssues ? `<details><summary>${h(t.rowsReported)}</summary><ul>${mergeIssues}</ul></details>` : ''}
<p id="spreadsheets">${t.spreadsheets}</p>
${feedSections(snapshot, model.entries, base, tokenQuery, context.lang, t)}`;
  }
  const content = `${search}
${model.pos === undefined ? '' : `<p id="pos">${h(t.pos)}: ${h(t.posLine(model.pos))}</p>`}
${warningsNotice(model.fallbackWarnings, model.consoleWarnings, context, t)}
${storeNotice(model.store, base, t)}
${groupLine(model.group, base, t)}
${syncTable(model.nextRuns, base, sync, context, t)}
${webhookLine(model.webhooks, base, t)}
${pushSection(model.push, context.lang, `${base}/docs/channel-push#status-and-metrics`, (id) => context.href(`/products/${encodeURIComponent(id)}`))}
${enrichmentLine(model.enrichment, model.lastCatalogReport?.sources?.enrichment, t)}
${body}
<p class="muted">${h(t.machineReadable)}: <a href="${h(`${base}/feeds${tokenQuery}`)}">/feeds</a> · <a href="${h(`${base}/readyz`)}">/readyz</a> · <a href="${h(`${base}/docs/${context.lang === 'cs' ? 'cs/README' : ''}`)}">${h(t.documentation)}</a></p>`;
  return { title: t.title, section: 'overview', body: content, ...(snapshot === undefined ? { refreshSeconds: 5 } : {}) };
}
