import { formatDateTime, formatDuration, formatNumber, textsFor } from '../../core/text/local-text.js';
import type { SyncJob } from '../../services/catalog/catalog-service.js';
import type { GroupStatus } from '../../services/group/group-monitor.js';
import { escapeHtml as h } from '../console/html.js';
import type { ConsoleContext } from '../console/layout.js';
import { ADMIN_TEXTS, type AdminTexts, OUTCOME_TEXTS } from './admin-texts.js';
import type { JobProgress } from './sync-progress.js';

/** The admin area's pages (docs/console.md#admin-area): plain forms, no script. */
export interface AdminPage {
  readonly title: string;
  readonly body: string;
  readonly refreshSeconds?: number;
}

export type LoginProblem = 'wrong' | 'expired' | 'blocked' | 'origin';

const JOB_QUERY: Record<SyncJob, string> = { 'sync-catalog': 'catalog', 'sync-stock': 'stock' };

export function disabledPage(ctx: ConsoleContext): AdminPage {
  const t = textsFor(ADMIN_TEXTS, ctx.lang);
  return { title: t.disabledTitle, body: `<p>${h(t.disabled)}</p><p>${h(t.howToEnable)}</p>` };
}

export function loginPage(ctx: ConsoleContext, problem?: LoginProblem): AdminPage {
  const t = textsFor(ADMIN_TEXTS, ctx.lang);
  const messages: Record<LoginProblem, string> = {
    wrong: t.wrongToken,
    expired: t.expired,
    blocked: t.blocked,
    origin: t.crossOrigin,
  };
  const notice = problem === undefined ? '' : `<p class="notice failed-notice" role="alert">${h(messages[problem])}</p>`;
  const body = `${notice}<p>${h(t.loginIntro)}</p>
<form method="post" action="/admin/login" class="search">
<label for="admin-token">${h(t.tokenLabel)}</label>
<input type="password" id="admin-token" name="token" autocomplete="current-password" required>
<button type="submit" class="primary">${h(t.signIn)}</button>
</form>`;
  return { title: t.loginTitle, body };
}

export function forbiddenPage(ctx: ConsoleContext, reason: 'csrf' | 'origin'): AdminPage {
  const t = textsFor(ADMIN_TEXTS, ctx.lang);
  const text = reason === 'csrf' ? t.csrfFailed : t.crossOrigin;
  return {
    title: t.forbiddenTitle,
    body: `<p class="notice failed-notice" role="alert">${h(text)}</p><p><a href="/admin">${h(t.backToAdmin)}</a></p>`,
  };
}

function hiddenCsrf(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${h(csrf)}">`;
}

function jobName(t: AdminTexts, job: SyncJob): string {
  return job === 'sync-catalog' ? t.catalogJob : t.stockJob;
}

function outcomeText(ctx: ConsoleContext, outcome: string): string {
  return OUTCOME_TEXTS[ctx.lang][outcome] ?? outcome;
}

/** A job's state as a definition list: running (since, phase) or its last run's report. */
export function progressDetails(ctx: ConsoleContext, progress: JobProgress): string {
  const t = textsFor(ADMIN_TEXTS, ctx.lang);
  const rows: [string, string][] = [];
  const state = progress.running ? `<strong>${h(t.runningNow)}</strong>` : h(t.notRunning);
  rows.push([t.status, state]);
  if (progress.runningSince !== undefined) rows.push([t.runningSince, h(formatDateTime(ctx.lang, progress.runningSince))]);
  if (progress.elapsedMs !== undefined) rows.push([t.elapsed, h(formatDuration(ctx.lang, progress.elapsedMs))]);
  if (progress.phase !== undefined) rows.push([t.phase, `<code>${h(progress.phase)}</code>`]);
  const last = progress.last;
  if (last === undefined) rows.push([t.lastRun, h(t.never)]);
  else if (progress.running) {
    // The report shown while a run goes on is its predecessor's: said so, and kept short.
    const when = formatDateTime(ctx.lang, last.finishedAt);
    rows.push([t.previousRun, `${h(outcomeText(ctx, last.outcome))}, ${h(when)}`]);
  } else {
    rows.push([t.outcome, `<span class="${h(last.outcome)}">${h(outcomeText(ctx, last.outcome))}</span>`]);
    rows.push([t.finishedAt, h(formatDateTime(ctx.lang, last.finishedAt))]);
    rows.push([t.duration, h(formatDuration(ctx.lang, last.durationMs))]);
    if (last.products !== undefined) rows.push([t.products, h(formatNumber(ctx.lang, last.products))]);
    if (last.articles !== undefined) rows.push([t.articles, h(formatNumber(ctx.lang, last.articles))]);
    if (last.rejectedArticles !== undefined) rows.push([t.rejected, h(formatNumber(ctx.lang, last.rejectedArticles))]);
    if (last.version !== undefined) rows.push([t.version, `<code>${h(last.version)}</code>`]);
    if (last.reason !== undefined) rows.push([t.reason, h(last.reason)]);
    if (last.error !== undefined) rows.push([t.error, `<code>${h(last.error.code)}</code> ${h(last.error.message)}`]);
  }
  if (progress.run?.error !== undefined) rows.push([t.error, `${h(t.crashed)}: ${h(progress.run.error)}`]);
  if (progress.next !== undefined && !progress.running) rows.push([t.nextRun, h(formatDateTime(ctx.lang, progress.next))]);
  return `<div class="table-wrap"><table><tbody>${rows
    .map(([name, value]) => `<tr><th scope="row">${h(name)}</th><td>${value}</td></tr>`)
    .join('')}</tbody></table></div>`;
}

function groupNote(t: AdminTexts, group: GroupStatus | undefined): string {
  if (group === undefined) return '';
  return `<p class="notice">${h(t.groupNote)} ${h(group.role === 'leader' ? t.leader : t.follower)}</p>`;
}

export function homePage(
  ctx: ConsoleContext,
  view: {
    readonly csrf: string;
    readonly expiresAt: Date;
    readonly jobs: readonly JobProgress[];
    readonly group: GroupStatus | undefined;
  },
): AdminPage {
  const t = textsFor(ADMIN_TEXTS, ctx.lang);
  const syncForm = (job: SyncJob, label: string, primary: boolean) =>
    `<form method="post" action="/admin/sync?job=${JOB_QUERY[job]}" style="display:inline-block;margin:0 .5rem .5rem 0">${hiddenCsrf(view.csrf)}<button type="submit"${primary ? ' class="primary"' : ''}>${h(label)}</button></form>`;
  const jobs = view.jobs
    .map(
      (progress) =>
        `<h3>${h(jobName(t, progress.job))}</h3>${progressDetails(ctx, progress)}<p><a href="/admin/sync/progress?job=${JOB_QUERY[progress.job]}">${h(t.progressLink)}</a></p>`,
    )
    .join('');
  const body = `<p class="muted">${h(t.signedInUntil)} ${h(formatDateTime(ctx.lang, view.expiresAt))}</p>
<form method="post" action="/admin/logout">${hiddenCsrf(view.csrf)}<button type="submit">${h(t.signOut)}</button></form>
<h2>${h(t.syncHeading)}</h2>
<p>${h(t.syncIntro)}</p>
${groupNote(t, view.group)}
<div>${syncForm('sync-catalog', t.fullSyncNow, true)}${syncForm('sync-stock', t.stockSyncNow, false)}</div>
${jobs}
<h2>${h(t.catalogHeading)}</h2>
<p>${h(t.catalogIntro)}</p>
<ul><li><a href="/admin/catalog.json">${h(t.catalogJson)}</a></li><li><a href="/admin/catalog.csv">${h(t.catalogCsv)}</a></li><li><a href="/admin/catalog.csv?profile=excel">${h(t.catalogExcel)}</a></li></ul>
<h2>${h(t.pushHeading)}</h2>
<p><a href="/admin/push">${h(t.pushLink)}</a></p>`;
  return { title: t.title, body };
}

export function progressPage(ctx: ConsoleContext, progress: JobProgress, group: GroupStatus | undefined): AdminPage {
  const t = textsFor(ADMIN_TEXTS, ctx.lang);
  const started =
    progress.run === undefined ? '' : `<p>${h(t.startedHere)} ${h(formatDateTime(ctx.lang, progress.run.startedAt))}</p>`;
  const body = `<h2>${h(jobName(t, progress.job))}</h2>${groupNote(t, group)}${started}
${progress.running ? `<p class="muted" role="status">${h(t.refreshes)}</p>` : ''}
${progressDetails(ctx, progress)}
<p><a href="/admin">${h(t.backToAdmin)}</a></p>`;
  return { title: t.progressTitle, body, ...(progress.running ? { refreshSeconds: 2 } : {}) };
}
