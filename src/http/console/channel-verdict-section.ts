import { type VerdictSummary, verdictChannelName } from '../../core/push/channel-verdicts.js';
import { type GoogleIssue, type GoogleVerdict, isGoogleHelpLink } from '../../core/push/google-product-status.js';
import { formatDateTime, formatNumber, type Lang, textsFor } from '../../core/text/local-text.js';
import type { GoogleVerdictView } from '../../services/products/product-lookup.js';
import { escapeHtml as h } from './html.js';

/**
 * A product page's section on Google's verdict (docs/console.md#product-detail): approved, pending or
 * disapproved per reporting context and country, and each issue with the attribute at fault, what to do and
 * Google's help page. Google's own words (description, detail) come in English: marked `lang="en"`.
 * Stable ids for tests: `#google-verdict` with class `approved`, `pending`, `disapproved` or `unknown`.
 */

const en = {
  heading: "Google's verdict",
  checked: (at: string) => `as Google reported it at ${at} (UTC)`,
  notRead: 'Not read from Google yet: the first read comes a minute after the start.',
  notListed: 'Google does not list this product (not sent yet, left out of the feed, or not yet processed).',
  lastError: (message: string) => `The last read failed (${message}); the verdict shown is the one before.`,
  status: { approved: 'approved', pending: 'pending', disapproved: 'disapproved' },
  context: 'Where',
  approved: 'approved in',
  pending: 'pending in',
  disapproved: 'disapproved in',
  issues: 'Issues',
  noIssues: 'Google reports no issue.',
  severity: { DISAPPROVED: 'disapproves', DEMOTED: 'demotes', NOT_IMPACTED: 'no impact' } as Record<string, string>,
  resolution: { MERCHANT_ACTION: 'you need to act', PENDING_PROCESSING: 'Google is still processing it' } as Record<
    string,
    string
  >,
  attribute: 'attribute',
  help: "Google's help",
  overview: (channel: string) => `${channel}'s verdicts`,
  counts: (approved: string, pending: string, disapproved: string) =>
    `approved ${approved} · pending ${pending} · disapproved ${disapproved}`,
  read: (at: string) => `read ${at} (UTC)`,
  topIssues: 'Issues on the most products',
  onItems: (items: string) => `on ${items}`,
  example: 'e.g.',
  unreadable: (count: string, first: string) => `${count} products of the listing could not be read (the first: ${first}).`,
  fileFetch: (at: string, state: string) => `Google's last fetch of google.xml: ${at} (UTC), ${state}`,
  fileItems: (total: string, created: string, updated: string) => `${total} items (${created} new, ${updated} updated)`,
  fileNotRead: (problem: string) => `Google's last fetch of google.xml could not be read: ${problem}`,
  fileStates: { SUCCEEDED: 'processed', FAILED: 'failed', IN_PROGRESS: 'being processed' } as Record<string, string>,
  contexts: {
    SHOPPING_ADS: 'Shopping ads',
    FREE_LISTINGS: 'Free listings',
    LOCAL_INVENTORY_ADS: 'Local inventory ads',
    FREE_LOCAL_LISTINGS: 'Free local listings',
  } as Record<string, string>,
};

const cs: typeof en = {
  heading: 'Verdikt Googlu',
  checked: (at: string) => `jak ho Google hlásil v ${at} (UTC)`,
  notRead: 'Z Googlu zatím nenačteno: první načtení přijde minutu po spuštění.',
  notListed: 'Google tento produkt nevede (ještě nebyl odeslán, feed ho vynechává, nebo ho Google ještě nezpracoval).',
  lastError: (message: string) => `Poslední načtení selhalo (${message}); zobrazený verdikt je ten předchozí.`,
  status: { approved: 'schváleno', pending: 'čeká na posouzení', disapproved: 'zamítnuto' },
  context: 'Kde',
  approved: 'schváleno v',
  pending: 'čeká v',
  disapproved: 'zamítnuto v',
  issues: 'Problémy',
  noIssues: 'Google nehlásí žádný problém.',
  severity: { DISAPPROVED: 'zamítá', DEMOTED: 'omezuje', NOT_IMPACTED: 'bez dopadu' },
  resolution: { MERCHANT_ACTION: 'je třeba zásah obchodu', PENDING_PROCESSING: 'Google ho ještě zpracovává' },
  attribute: 'atribut',
  help: 'nápověda Googlu',
  overview: (channel: string) => `Verdikty ${channel === 'Google' ? 'Googlu' : channel}`,
  counts: (approved: string, pending: string, disapproved: string) =>
    `schváleno ${approved} · čeká ${pending} · zamítnuto ${disapproved}`,
  read: (at: string) => `načteno ${at} (UTC)`,
  topIssues: 'Problémy u nejvíce produktů',
  onItems: (items: string) => `u ${items}`,
  example: 'např.',
  unreadable: (count: string, first: string) => `Produktů ze seznamu, které nešly přečíst: ${count} (první: ${first}).`,
  fileFetch: (at: string, state: string) => `Poslední stažení google.xml Googlem: ${at} (UTC), ${state}`,
  fileItems: (total: string, created: string, updated: string) =>
    `položek ${total} (nových ${created}, aktualizovaných ${updated})`,
  fileNotRead: (problem: string) => `Poslední stažení google.xml Googlem se nepodařilo zjistit: ${problem}`,
  fileStates: { SUCCEEDED: 'zpracováno', FAILED: 'selhalo', IN_PROGRESS: 'zpracovává se' },
  contexts: {
    SHOPPING_ADS: 'Reklamy v Nákupech',
    FREE_LISTINGS: 'Bezplatné zápisy',
    LOCAL_INVENTORY_ADS: 'Reklamy na místní inventář',
    FREE_LOCAL_LISTINGS: 'Bezplatné místní zápisy',
  },
};

const TEXTS = { en, cs } as const;
type Texts = typeof en;

function countries(label: string, list: readonly string[], css: string): string {
  return list.length === 0 ? '' : ` <span class="${css}">${h(label)} ${h(list.join(', '))}</span>`;
}

function destinations(t: Texts, verdict: GoogleVerdict): string {
  if (verdict.destinations.length === 0) return '';
  const rows = verdict.destinations
    .map(
      (destination) =>
        `<li>${h(t.contexts[destination.context] ?? destination.context)}:${countries(t.approved, destination.approved, 'good')}${countries(t.pending, destination.pending, 'muted')}${countries(t.disapproved, destination.disapproved, 'bad')}</li>`,
    )
    .join('');
  return `<ul class="google-destinations">${rows}</ul>`;
}

/** Google's help pages only: a link elsewhere in an answer is not followed from the console. */
function helpLink(t: Texts, documentation: string | undefined): string {
  if (!isGoogleHelpLink(documentation)) return '';
  return ` <a href="${h(documentation)}" rel="noreferrer noopener">${h(t.help)}</a>`;
}

function issueItem(t: Texts, issue: GoogleIssue): string {
  const severity = t.severity[issue.severity] ?? issue.severity;
  const css = issue.severity === 'DISAPPROVED' ? 'bad' : 'muted';
  const attribute = issue.attribute === undefined ? '' : ` · ${h(t.attribute)} <code>${h(issue.attribute)}</code>`;
  const where = issue.context === undefined ? '' : ` · ${h(t.contexts[issue.context] ?? issue.context)}`;
  const resolution = issue.resolution === undefined ? '' : ` · ${h(t.resolution[issue.resolution] ?? issue.resolution)}`;
  const words = [issue.description, issue.detail].filter((text) => text !== undefined).join(' — ');
  return `<li class="google-issue"><span class="${css}">${h(severity)}</span> <code>${h(issue.code)}</code>${attribute}${where}${resolution}${
    words === '' ? '' : `<br><span lang="en">${h(words)}</span>`
  }${helpLink(t, issue.documentation)}</li>`;
}

/** The section, or nothing when Google is not read (not pushed to, or a dry run). */
export function googleVerdictSection(lang: Lang, view: GoogleVerdictView | undefined): string {
  if (view === undefined) return '';
  const t = textsFor(TEXTS, lang);
  const error = view.lastError === undefined ? '' : `<p class="bad">${h(t.lastError(view.lastError.message))}</p>`;
  if (view.readAt === undefined) {
    return `<h2>${h(t.heading)}</h2><section id="google-verdict" class="unknown"><p class="muted">${h(t.notRead)}</p>${error}</section>`;
  }
  const checked = `<p class="muted">${h(t.checked(formatDateTime(lang, view.readAt)))}</p>`;
  const verdict = view.verdict;
  if (verdict === undefined) {
    return `<h2>${h(t.heading)}</h2><section id="google-verdict" class="unknown"><p>${h(t.notListed)}</p>${checked}${error}</section>`;
  }
  const css = verdict.status === 'approved' ? 'good' : verdict.status === 'disapproved' ? 'bad' : 'muted';
  const issues =
    verdict.issues.length === 0
      ? `<p class="muted">${h(t.noIssues)}</p>`
      : `<h3>${h(t.issues)}</h3><ul class="google-issues">${verdict.issues.map((issue) => issueItem(t, issue)).join('')}</ul>`;
  return `<h2>${h(t.heading)}</h2><section id="google-verdict" class="${h(verdict.status)}"><p><strong class="${css}">${h(
    t.status[verdict.status],
  )}</strong></p>${destinations(t, verdict)}${issues}${checked}${error}</section>`;
}

/**
 * The overview's lines on a channel's verdicts (`#verdicts-{channel}`): the counts as last read, the issues on
 * the most products with one of them linked, and the last read's error. '' before the first read.
 */
export function verdictsOverview(
  lang: Lang,
  channel: string,
  summary: VerdictSummary | undefined,
  productHref: (id: string) => string,
): string {
  if (summary === undefined || (summary.readAt === undefined && summary.lastError === undefined)) return '';
  const t = textsFor(TEXTS, lang);
  const name = verdictChannelName(channel);
  const { approved, pending, disapproved } = summary.counts;
  const counts =
    summary.readAt === undefined
      ? ''
      : `<p>${h(t.counts(formatNumber(lang, approved), formatNumber(lang, pending), formatNumber(lang, disapproved)))} <span class="muted">(${h(
          t.read(formatDateTime(lang, summary.readAt)),
        )})</span></p>`;
  const issues =
    summary.topIssues.length === 0
      ? ''
      : `<p>${h(t.topIssues)}:</p><ul>${summary.topIssues
          .map(
            (issue) =>
              `<li><code>${h(issue.code)}</code>${issue.description === undefined ? '' : ` <span lang="en">${h(issue.description)}</span>`} ${h(
                t.onItems(formatNumber(lang, issue.items)),
              )} (${h(t.example)} <a href="${h(productHref(issue.example))}">${h(issue.example)}</a>)</li>`,
          )
          .join('')}</ul>`;
  const error = summary.lastError === undefined ? '' : `<p class="bad">${h(t.lastError(summary.lastError.message))}</p>`;
  const unreadable =
    summary.unreadable === undefined
      ? ''
      : `<p class="muted">${h(t.unreadable(formatNumber(lang, summary.unreadable.count), summary.unreadable.first))}</p>`;
  return `<div id="verdicts-${h(channel)}"><h3>${h(t.overview(name))}</h3>${counts}${issues}${unreadable}${fileFetchLine(lang, t, summary.fileFetch)}${error}</div>`;
}

/** Google's last fetch of the google.xml file source, when it is configured (`#google-file-fetch`). */
function fileFetchLine(lang: Lang, t: Texts, fetch: VerdictSummary['fileFetch']): string {
  if (fetch === undefined) return '';
  if ('problem' in fetch) return `<p id="google-file-fetch" class="muted">${h(t.fileNotRead(fetch.problem))}</p>`;
  const state = t.fileStates[fetch.state] ?? fetch.state;
  const at = fetch.uploadedAt === undefined ? '—' : formatDateTime(lang, fetch.uploadedAt);
  const { total, created, updated } = fetch.items;
  const items =
    total === undefined
      ? ''
      : `; ${t.fileItems(formatNumber(lang, total), formatNumber(lang, created ?? 0), formatNumber(lang, updated ?? 0))}`;
  const issues = fetch.issues
    .map((issue) => {
      const words = issue.title ?? issue.description ?? '';
      const count = issue.count === undefined ? '' : ` (${formatNumber(lang, issue.count)})`;
      return `<li><code>${h(issue.code)}</code> <span lang="en">${h(words)}</span>${count}${helpLink(t, issue.documentation)}</li>`;
    })
    .join('');
  const css = fetch.state === 'FAILED' ? 'bad' : '';
  return `<p id="google-file-fetch" class="${css}">${h(t.fileFetch(at, state))}${h(items)}</p>${issues === '' ? '' : `<ul>${issues}</ul>`}`;
}
