import { type TopIssue, type VerdictSummary, verdictChannelName } from '../../core/push/channel-verdicts.js';
import { formatDateTime, formatNumber, type Lang } from '../../core/text/local-text.js';
import { helpLink, renderedIssueBody } from './channel-verdict-section.js';
import { type VerdictTexts, verdictTexts } from './channel-verdict-texts.js';
import { escapeHtml as h } from './html.js';

/** A top issue's words: Google's text in the console's language where it rendered one, else its English description. */
function topIssueWords(summary: VerdictSummary, issue: TopIssue, lang: Lang): string {
  const text = summary.issueTexts?.[issue.code]?.texts[lang];
  if (text !== undefined) return ` ${h(text.title)}`;
  return issue.description === undefined ? '' : ` <span lang="en">${h(issue.description)}</span>`;
}

/**
 * The Merchant Center account's own issues as Google rendered them in the console's language
 * (`#google-account-issues`), or why they could not be read. '' before they were first read.
 */
function accountIssuesBlock(lang: Lang, t: VerdictTexts, issues: VerdictSummary['accountIssues']): string {
  if (issues === undefined) return '';
  const error = issues.lastError === undefined ? '' : `<p class="muted">${h(t.accountNotRead(issues.lastError.message))}</p>`;
  if (issues.readAt === undefined) return `<div id="google-account-issues">${error}</div>`;
  const read = `<span class="muted">(${h(t.read(formatDateTime(lang, issues.readAt)))})</span>`;
  const list = issues.texts[lang] ?? [];
  if (list.length === 0)
    return `<div id="google-account-issues"><p class="muted">${h(t.noAccountIssues)} ${read}</p>${error}</div>`;
  const items = list
    .map((issue) => {
      const css = issue.severity === 'ERROR' ? 'bad' : 'muted';
      const severity =
        issue.severity === undefined
          ? ''
          : `<span class="${css}">${h(t.impactSeverity[issue.severity] ?? issue.severity)}</span> `;
      return `<li>${severity}<strong>${h(issue.title)}</strong>${renderedIssueBody(t, issue)}</li>`;
    })
    .join('');
  return `<div id="google-account-issues"><p>${h(t.accountIssues)} ${read}:</p><ul>${items}</ul>${error}</div>`;
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
  const t = verdictTexts(lang);
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
              `<li><code>${h(issue.code)}</code>${topIssueWords(summary, issue, lang)} ${h(
                t.onItems(formatNumber(lang, issue.items)),
              )} (${h(t.example)} <a href="${h(productHref(issue.example))}">${h(issue.example)}</a>)</li>`,
          )
          .join('')}</ul>`;
  const error = summary.lastError === undefined ? '' : `<p class="bad">${h(t.lastError(summary.lastError.message))}</p>`;
  const unreadable =
    summary.unreadable === undefined
      ? ''
      : `<p class="muted">${h(t.unreadable(formatNumber(lang, summary.unreadable.count), summary.unreadable.first))}</p>`;
  return `<div id="verdicts-${h(channel)}"><h3>${h(t.overview(name))}</h3>${counts}${issues}${unreadable}${fileFetchLine(lang, t, summary.fileFetch)}${accountIssuesBlock(lang, t, summary.accountIssues)}${error}</div>`;
}

/** Google's last fetch of the google.xml file source, when it is configured (`#google-file-fetch`). */
function fileFetchLine(lang: Lang, t: VerdictTexts, fetch: VerdictSummary['fileFetch']): string {
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
