import { CONSUMERS, type Consumer } from '../../core/fetches/classify-consumer.js';
import type { FetchEntry } from '../../core/fetches/fetch-summary.js';
import { CONSUMER_NAMES, type FetchWarning } from '../../core/fetches/fetch-warnings.js';
import {
  formatAgo,
  formatDateTime,
  formatNumber,
  type Lang,
  type PluralForms,
  plural,
  roughDuration,
  textsFor,
} from '../../core/text/local-text.js';
import type { FetchSummaryView } from '../../services/fetches/fetch-log.js';
import { escapeHtml as h } from './html.js';
import type { ConsoleContext } from './layout.js';

/** The fetch log's page (docs/console.md#who-fetches-the-feeds): texts in both languages, then the rendering. */
const en = {
  title: 'Who fetches the feeds',
  intro:
    'Every answered feed request is recorded with who made it, its answer, coding and size. Who made it is what its User-Agent claims, not verified.',
  since: 'Recorded since',
  warnings: 'Warnings',
  byFeed: 'By feed',
  byConsumer: 'By consumer',
  recent: 'Recent requests',
  none: 'No feed has been fetched since the log began.',
  noneMatching: 'No request matches.',
  lastFetched: 'last fetched',
  usually: 'usually every',
  requests: { one: '# request', other: '# requests' } as PluralForms,
  feeds: { one: '# feed', other: '# feeds' } as PluralForms,
  filter: 'Show',
  feed: 'Feed',
  view: 'View',
  consumer: 'Consumer',
  any: 'any',
  limit: 'Rows',
  time: 'Time',
  status: 'Status',
  encoding: 'Coding',
  size: 'Size',
  userAgent: 'User agent',
  lastFetch: 'Last fetch',
  count: 'Requests',
  late: 'late',
  note: 'Note',
  neverFetched: 'These feeds have not been fetched by their channel since the log began ({since}):',
  neverHint: "If a feed is meant for the channel, register its URL in the channel's settings.",
  feedsColumn: 'Feeds',
};

const cs: typeof en = {
  title: 'Kdo stahuje feedy',
  intro:
    'Každý zodpovězený požadavek na feed se zaznamenává: kdo ho poslal, jak jsme odpověděli, v jakém kódování a kolik dat odešlo. Kdo ho poslal, říká jeho hlavička User-Agent; ověřit se to nedá.',
  since: 'Záznam běží od',
  warnings: 'Upozornění',
  byFeed: 'Podle feedu',
  byConsumer: 'Podle odběratele',
  recent: 'Poslední požadavky',
  none: 'Od začátku záznamu zatím nikdo žádný feed nestáhl.',
  noneMatching: 'Výběru neodpovídá žádný požadavek.',
  lastFetched: 'naposledy',
  usually: 'obvykle jednou za',
  requests: { one: '# požadavek', few: '# požadavky', many: '# požadavku', other: '# požadavků' },
  feeds: { one: '# feed', few: '# feedy', many: '# feedu', other: '# feedů' },
  filter: 'Zobrazit',
  feed: 'Feed',
  view: 'Prodejna',
  consumer: 'Odběratel',
  any: 'všechny',
  limit: 'Řádků',
  time: 'Čas',
  status: 'Stav',
  encoding: 'Kódování',
  size: 'Velikost',
  userAgent: 'User-Agent',
  lastFetch: 'Poslední stažení',
  count: 'Požadavků',
  late: 'pozdě',
  note: 'Poznámka',
  neverFetched: 'Kanály, pro které jsou tyto feedy určeny, si je od začátku záznamu ({since}) ani jednou nestáhly:',
  neverHint: 'Pokud je feed pro daný kanál určen, zadejte jeho adresu v nastavení kanálu.',
  feedsColumn: 'Feedy',
};

export const FETCHES_TEXTS = { en, cs };

/** `850 B`, `12,4 kB`, `1.2 MB`. */
export function formatBytes(lang: Lang, bytes: number): string {
  if (bytes < 1_000) return `${formatNumber(lang, bytes)} B`;
  if (bytes < 1_000_000) return `${formatNumber(lang, bytes / 1_000, 1)} kB`;
  return `${formatNumber(lang, bytes / 1_000_000, 1)} MB`;
}

export interface FetchesPageModel {
  readonly summaries: readonly FetchSummaryView[];
  readonly recent: readonly FetchEntry[];
  readonly warnings: readonly FetchWarning[];
  readonly since: Date;
  readonly now: Date;
  readonly filter: { readonly feed?: string; readonly view?: string; readonly consumer?: Consumer; readonly limit: number };
}

function warningsSection(context: ConsoleContext, model: FetchesPageModel): string {
  if (model.warnings.length === 0) return '';
  const t = textsFor(FETCHES_TEXTS, context.lang);
  const stale = model.warnings
    .filter((warning) => warning.kind === 'stale')
    .map((warning) => `<p class="notice failed-notice" data-kind="stale">${h(warning.message[context.lang])}</p>`);
  // Never-fetched notes are many on a fresh install and say the same thing: one notice, one line each.
  const never = model.warnings
    .filter((warning) => warning.kind === 'never')
    .map((warning) => `<li>${h(CONSUMER_NAMES[context.lang][warning.consumer])}: <code>${h(warning.url)}</code></li>`);
  const notes =
    never.length === 0
      ? ''
      : `<div class="notice" data-kind="never"><p><strong>${h(t.note)}:</strong> ${h(t.neverFetched.replace('{since}', formatDateTime(context.lang, model.since)))}</p><ul>${never.join('')}</ul><p>${h(t.neverHint)}</p></div>`;
  return `<section aria-labelledby="fetch-warnings"><h2 id="fetch-warnings">${h(t.warnings)}</h2>${stale.join('')}${notes}</section>`;
}

function summaryLine(lang: Lang, summary: FetchSummaryView, now: Date): string {
  const t = textsFor(FETCHES_TEXTS, lang);
  const parts = [
    `${t.lastFetched} ${formatAgo(lang, summary.lastAt, now)}`,
    String(summary.lastStatus),
    summary.lastEncoding,
    formatBytes(lang, summary.lastBytes),
  ];
  const usual =
    summary.usualIntervalSeconds === undefined ? '' : `, ${t.usually} ${roughDuration(summary.usualIntervalSeconds, lang)}`;
  const late = summary.stale === true ? ` <strong class="bad">(${h(t.late)})</strong>` : '';
  return `<li><strong>${h(CONSUMER_NAMES[lang][summary.consumer])}</strong>: ${h(parts.join(', '))} (${h(plural(lang, summary.count, t.requests))}${h(usual)})${late}</li>`;
}

function byFeedSection(context: ConsoleContext, model: FetchesPageModel): string {
  const t = textsFor(FETCHES_TEXTS, context.lang);
  const byUrl = new Map<string, FetchSummaryView[]>();
  for (const summary of model.summaries) byUrl.set(summary.url, [...(byUrl.get(summary.url) ?? []), summary]);
  const blocks = [...byUrl.entries()].map(([url, summaries]) => {
    const lines = summaries.map((summary) => summaryLine(context.lang, summary, model.now)).join('');
    const link = h(context.href('/fetches', { feed: summaries[0]?.feed, view: summaries[0]?.view }));
    return `<h3><a href="${link}"><code>${h(url)}</code></a></h3><ul>${lines}</ul>`;
  });
  const body = blocks.length === 0 ? `<p>${h(t.none)}</p>` : blocks.join('');
  return `<section aria-labelledby="by-feed"><h2 id="by-feed">${h(t.byFeed)}</h2>${body}</section>`;
}

function byConsumerSection(context: ConsoleContext, model: FetchesPageModel): string {
  const t = textsFor(FETCHES_TEXTS, context.lang);
  const rows = CONSUMERS.flatMap((consumer) => {
    const summaries = model.summaries.filter((summary) => summary.consumer === consumer);
    if (summaries.length === 0) return [];
    const count = summaries.reduce((sum, summary) => sum + summary.count, 0);
    const last = summaries.reduce((a, b) => (a.lastAt >= b.lastAt ? a : b));
    const feeds = new Set(summaries.map((summary) => summary.url)).size;
    const link = h(context.href('/fetches', { consumer }));
    return [
      `<tr><td><a href="${link}">${h(CONSUMER_NAMES[context.lang][consumer])}</a></td><td class="num">${h(plural(context.lang, feeds, t.feeds))}</td><td class="num">${h(formatNumber(context.lang, count))}</td><td>${h(formatAgo(context.lang, last.lastAt, model.now))} (<code>${h(last.url)}</code>, ${last.lastStatus})</td></tr>`,
    ];
  });
  if (rows.length === 0) return '';
  return `<section aria-labelledby="by-consumer"><h2 id="by-consumer">${h(t.byConsumer)}</h2><div class="table-wrap"><table><thead><tr><th scope="col">${h(t.consumer)}</th><th scope="col" class="num">${h(t.feedsColumn)}</th><th scope="col" class="num">${h(t.count)}</th><th scope="col">${h(t.lastFetch)}</th></tr></thead><tbody>${rows.join('')}</tbody></table></div></section>`;
}

function filterForm(context: ConsoleContext, model: FetchesPageModel): string {
  const t = textsFor(FETCHES_TEXTS, context.lang);
  const { filter } = model;
  const options = [`<option value="">${h(t.any)}</option>`]
    .concat(
      CONSUMERS.map(
        (consumer) =>
          `<option value="${consumer}"${filter.consumer === consumer ? ' selected' : ''}>${h(CONSUMER_NAMES[context.lang][consumer])}</option>`,
      ),
    )
    .join('');
  const hidden = [
    `<input type="hidden" name="lang" value="${context.lang}">`,
    context.token === undefined ? '' : `<input type="hidden" name="token" value="${h(context.token)}">`,
  ].join('');
  const field = (label: string, control: string) =>
    `<span style="display:inline-flex;flex-wrap:wrap;gap:.4rem;align-items:center;max-width:100%">${label}${control}</span>`;
  return `<form class="search" method="get" action="/fetches">${hidden}
${field(`<label for="f-feed">${h(t.feed)}</label>`, `<input id="f-feed" name="feed" size="16" value="${h(filter.feed ?? '')}" placeholder="google.xml">`)}
${field(`<label for="f-view">${h(t.view)}</label>`, `<input id="f-view" name="view" size="5" value="${h(filter.view ?? '')}" placeholder="all">`)}
${field(`<label for="f-consumer">${h(t.consumer)}</label>`, `<select id="f-consumer" name="consumer" style="max-width:100%">${options}</select>`)}
${field(`<label for="f-limit">${h(t.limit)}</label>`, `<input id="f-limit" name="limit" type="number" min="1" max="500" style="width:5rem" value="${filter.limit}">`)}
<button type="submit" class="primary">${h(t.filter)}</button></form>`;
}

function recentSection(context: ConsoleContext, model: FetchesPageModel): string {
  const t = textsFor(FETCHES_TEXTS, context.lang);
  const rows = model.recent.map(
    (entry) =>
      `<tr><td>${h(formatDateTime(context.lang, new Date(entry.at)))}</td><td><code>${h(`/feeds/${entry.view}/${entry.feed}`)}</code></td><td>${h(CONSUMER_NAMES[context.lang][entry.consumer])}</td><td class="num">${entry.status}</td><td>${h(entry.encoding)}</td><td class="num">${h(formatBytes(context.lang, entry.bytes))}</td><td><small>${h(entry.userAgent)}</small></td></tr>`,
  );
  const table =
    rows.length === 0
      ? `<p>${h(t.noneMatching)}</p>`
      : `<div class="table-wrap"><table><thead><tr><th scope="col">${h(t.time)}</th><th scope="col">${h(t.feed)}</th><th scope="col">${h(t.consumer)}</th><th scope="col" class="num">${h(t.status)}</th><th scope="col">${h(t.encoding)}</th><th scope="col" class="num">${h(t.size)}</th><th scope="col">${h(t.userAgent)}</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
  return `<section aria-labelledby="recent"><h2 id="recent">${h(t.recent)}</h2>${filterForm(context, model)}${table}</section>`;
}

export function renderFetchesBody(context: ConsoleContext, model: FetchesPageModel): string {
  const t = textsFor(FETCHES_TEXTS, context.lang);
  const since = `<p class="muted">${h(t.intro)} ${h(t.since)} ${h(formatDateTime(context.lang, model.since))}.</p>`;
  return [
    warningsSection(context, model),
    since,
    byFeedSection(context, model),
    byConsumerSection(context, model),
    recentSection(context, model),
  ].join('\n');
}
