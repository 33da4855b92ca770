import type { VerdictSummary } from '../../core/push/channel-verdicts.js';
import { isMetaVerdicts, type MetaVerdictSummary } from '../../core/push/meta-verdicts.js';
import { formatDateTime, formatDuration, formatNumber, type Lang, textsFor } from '../../core/text/local-text.js';
import { verdictsOverview } from './channel-verdict-overview.js';
import { escapeHtml as h, timeElement } from './html.js';
import { metaVerdictsOverview } from './meta-verdict-section.js';

/**
 * The overview's "Channel push" section (docs/channel-push.md#status-and-metrics): per configured channel its
 * mode, what waits and for how long, the last success, the last error in the channel's own words (escaped),
 * the quota where the channel reports one, and the last reconciliation. Absent when no channel is configured.
 */

/** What the section reads of a channel's status (`PushChannelStatus` of src/services/push/push-status.ts fits it). */
export interface PushSectionStatus {
  readonly mode: 'live' | 'dry-run' | 'paused';
  readonly pending: number;
  readonly oldestPendingAgeS?: number;
  readonly lastSuccessAt?: string;
  readonly lastErrorAt?: string;
  readonly lastError?: string;
  readonly lastErrorKind?: string;
  readonly quota?: { readonly used: number; readonly limit: number; readonly resetAt?: string };
  readonly lastReconcileAt?: string;
  /** The channel's own verdicts on the items (Google's as last read back; Meta's items and diagnostics). */
  readonly verdicts?: VerdictSummary | MetaVerdictSummary;
}

export type PushStatuses = Readonly<Partial<Record<string, PushSectionStatus>>>;

interface PushTexts {
  readonly heading: string;
  readonly channel: string;
  readonly mode: string;
  readonly modes: Readonly<Record<PushSectionStatus['mode'], string>>;
  readonly pending: string;
  readonly oldest: string;
  readonly lastSuccess: string;
  readonly lastError: string;
  readonly quota: string;
  readonly lastReconcile: string;
  readonly never: string;
  readonly none: string;
  readonly kinds: Readonly<Record<string, string>>;
  quotaLine(used: string, limit: string, reset: string | undefined): string;
  readonly docs: string;
}

const TEXTS: { readonly en: PushTexts; readonly cs: PushTexts } = {
  en: {
    heading: 'Channel push',
    channel: 'channel',
    mode: 'mode',
    modes: { live: 'live', 'dry-run': 'dry run', paused: 'paused' },
    pending: 'pending',
    oldest: 'oldest waits',
    lastSuccess: 'last success',
    lastError: 'last error',
    quota: 'quota',
    lastReconcile: 'last reconciliation',
    never: 'not yet',
    none: 'none',
    kinds: {
      auth: 'credentials refused',
      'rate-limit': 'rate limited',
      quota: 'quota used up',
      server: 'channel error',
      network: 'network',
      invalid: 'refused as invalid',
    },
    quotaLine: (used, limit, reset) => `${used} of ${limit}${reset === undefined ? '' : `, resets ${reset}`}`,
    docs: 'What the figures mean',
  },
  cs: {
    heading: 'Odesílání do kanálů',
    channel: 'kanál',
    mode: 'režim',
    modes: { live: 'ostrý provoz', 'dry-run': 'nanečisto', paused: 'pozastaveno' },
    pending: 'čeká',
    oldest: 'nejstarší čeká',
    lastSuccess: 'poslední úspěch',
    lastError: 'poslední chyba',
    quota: 'kvóta',
    lastReconcile: 'poslední srovnání',
    never: 'zatím ne',
    none: 'žádná',
    kinds: {
      auth: 'odmítnuté přihlašovací údaje',
      'rate-limit': 'omezení počtu požadavků',
      quota: 'vyčerpaná kvóta',
      server: 'chyba kanálu',
      network: 'síť',
      invalid: 'odmítnuto jako neplatné',
    },
    quotaLine: (used, limit, reset) => `${used} z ${limit}${reset === undefined ? '' : `, obnoví se ${reset}`}`,
    docs: 'Co údaje znamenají',
  },
};

const CHANNEL_NAMES: Readonly<Record<string, string>> = { google: 'Google Merchant', shoptet: 'Shoptet', meta: 'Meta' };

function time(lang: Lang, iso: string | undefined, fallback: string): string {
  if (iso === undefined) return `<span class="muted">${h(fallback)}</span>`;
  return timeElement(lang, iso);
}

function errorCell(status: PushSectionStatus, lang: Lang, t: PushTexts): string {
  if (status.lastErrorAt === undefined) return `<span class="muted">${h(t.none)}</span>`;
  const kind = status.lastErrorKind === undefined ? '' : ` (${h(t.kinds[status.lastErrorKind] ?? status.lastErrorKind)})`;
  // Failing now when the error is newer than the last success: shown as a failure, else as history.
  const failing = status.lastSuccessAt === undefined || status.lastErrorAt > status.lastSuccessAt;
  const message = `<span class="push-error${failing ? ' failed' : ''}">${h(status.lastError ?? '')}</span>`;
  return `${time(lang, status.lastErrorAt, t.never)}${kind}: ${message}`;
}

function row(channel: string, status: PushSectionStatus, lang: Lang, t: PushTexts): string {
  const age = status.oldestPendingAgeS === undefined ? '' : h(formatDuration(lang, Math.round(status.oldestPendingAgeS) * 1000));
  const quota =
    status.quota === undefined
      ? ''
      : h(
          t.quotaLine(
            formatNumber(lang, status.quota.used),
            formatNumber(lang, status.quota.limit),
            status.quota.resetAt === undefined ? undefined : formatDateTime(lang, status.quota.resetAt),
          ),
        );
  const reconcile = status.lastReconcileAt === undefined ? '' : time(lang, status.lastReconcileAt, t.never);
  const mode = `<span class="push-mode-${h(status.mode)}">${h(t.modes[status.mode])}</span>`;
  return `<tr id="push-${h(channel)}"><td>${h(CHANNEL_NAMES[channel] ?? channel)}</td><td>${mode}</td><td class="num">${h(formatNumber(lang, status.pending))}</td><td>${age}</td><td>${time(lang, status.lastSuccessAt, t.never)}</td><td>${errorCell(status, lang, t)}</td><td>${quota}</td><td>${reconcile}</td></tr>`;
}

/** The section, or '' when no channel is configured. */
export function pushSection(
  statuses: PushStatuses | undefined,
  lang: Lang,
  docsHref: string,
  productHref: (id: string) => string = (id) => `/products/${encodeURIComponent(id)}`,
): string {
  const entries = Object.entries(statuses ?? {}).filter((entry): entry is [string, PushSectionStatus] => entry[1] !== undefined);
  if (entries.length === 0) return '';
  const t = textsFor(TEXTS, lang);
  const head = [t.channel, t.mode, t.pending, t.oldest, t.lastSuccess, t.lastError, t.quota, t.lastReconcile]
    .map((name, index) => `<th${index === 2 ? ' class="num"' : ''}>${h(name)}</th>`)
    .join('');
  const rows = entries.map(([channel, status]) => row(channel, status, lang, t)).join('');
  const verdicts = entries
    .map(([channel, status]) =>
      status.verdicts !== undefined && isMetaVerdicts(status.verdicts)
        ? metaVerdictsOverview(lang, status.verdicts, productHref)
        : verdictsOverview(lang, channel, status.verdicts, productHref),
    )
    .join('');
  return `<section id="push"><h2>${h(t.heading)}</h2><div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>${verdicts}<p class="muted"><a href="${h(docsHref)}">${h(t.docs)}</a></p></section>`;
}
