import type { VerdictSummary } from '../../core/push/channel-verdicts.js';
import type { MetaVerdictSummary } from '../../core/push/meta-verdicts.js';
import type { ConsoleWarning, LocalText } from '../console/console-warnings.js';
import { warningTime } from '../console/console-warnings.js';
import { verdictWarnings } from './verdict-warnings.js';
/**
 * The channel push's warnings (docs/channel-push.md#status-and-metrics, docs/report-codes.md#push-warnings): from each
 * configured channel's status, what the operator should know or fix. Pure: the status and the time in.
 */

/** The codes of the push's warnings (each an entry of docs/report-codes.md). */
export type PushWarningCode =
  | 'PUSH_REJECTED'
  | 'PUSH_AUTH_FAILED'
  | 'PUSH_RATE_LIMITED'
  | 'PUSH_QUOTA_EXHAUSTED'
  | 'PUSH_STALLED'
  | 'PUSH_PAUSED'
  | 'PUSH_DRY_RUN';

/** What the warnings read of a channel's status (`PushChannelStatus` of src/services/push/push-status.ts fits it). */
export interface PushWarningStatus {
  readonly mode: 'live' | 'dry-run' | 'paused';
  readonly pending: number;
  readonly oldestPendingAgeS?: number;
  readonly lastSuccessAt?: string;
  readonly lastErrorAt?: string;
  readonly lastError?: string;
  readonly lastErrorKind?: string;
  readonly failingSince?: string;
  readonly rejected?: number;
  readonly lastRejectedAt?: string;
  readonly lastRejected?: string;
  readonly quota?: { readonly used: number; readonly limit: number; readonly resetAt?: string };
  /** The channel's own verdicts on the items (Google's as last read back; Meta's items and diagnostics). */
  readonly verdicts?: VerdictSummary | MetaVerdictSummary;
}

/** The oldest pending update older than this while live: the push is stalled. */
export const PUSH_STALLED_AFTER_S = 15 * 60;
/** A rate limit is normal for a moment; retried for longer than this it is worth saying. */
export const PUSH_RATE_LIMITED_AFTER_MS = 5 * 60 * 1000;
/** A refused item is reported for this long after the last refusal. */
export const PUSH_REJECTED_SHOWN_MS = 24 * 60 * 60 * 1000;

const CHANNEL_NAMES: Readonly<Record<string, string>> = { google: 'Google Merchant', shoptet: 'Shoptet', meta: 'Meta' };
/** The setting whose credentials a refused request names. */
const CREDENTIALS: Readonly<Record<string, string>> = {
  google:
    'GOOGLE_APPLICATION_CREDENTIALS (the service account key file, and that account as a user of the Merchant Center account)',
  shoptet: 'SHOPTET_API_TOKEN',
  meta: 'META_ACCESS_TOKEN (a system user token with catalog_management)',
};

const nameOf = (channel: string) => CHANNEL_NAMES[channel] ?? channel;
const msOf = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso));
const minutes = (seconds: number) => Math.max(1, Math.round(seconds / 60));

/** Whether the last error came after the last success (the channel fails now). */
function failingNow(status: PushWarningStatus): boolean {
  const error = msOf(status.lastErrorAt);
  if (Number.isNaN(error)) return false;
  const success = msOf(status.lastSuccessAt);
  return Number.isNaN(success) || error > success;
}

type Texts = { readonly message: LocalText; readonly action: LocalText };

const TEXTS = {
  rejected: (name: string, count: number, when: string, message: string): Texts => ({
    message: {
      en: `${name} refused items for good (so far: ${count}, the last at ${when}): ${message}. Those updates were dropped.`,
      cs: `${name} trvale odmítl položky (zatím ${count}, naposledy ${when}): ${message}. Tyto změny byly zahozeny.`,
    },
    action: {
      en: 'Fix what the message names (an item the channel does not hold, an invalid value); the next change of the item, or the nightly reconciliation, sends it again.',
      cs: 'Opravte, co zpráva uvádí (položku, kterou kanál nezná, neplatnou hodnotu); další změna položky nebo noční srovnání ji pošle znovu.',
    },
  }),
  authFailed: (name: string, credentials: string, when: string, message: string, pending: number): Texts => ({
    message: {
      en: `${name} refuses the bridge's credentials (${when}): ${message}. Nothing is sent; updates waiting: ${pending}.`,
      cs: `${name} odmítá přihlašovací údaje bridge (${when}): ${message}. Nic se neposílá; čekajících změn: ${pending}.`,
    },
    action: {
      en: `Check ${credentials}, then restart the bridge; the waiting updates are sent then.`,
      cs: `Zkontrolujte ${credentials} a restartujte bridge; čekající změny se pak odešlou.`,
    },
  }),
  rateLimited: (name: string, since: string, message: string, pending: number): Texts => ({
    message: {
      en: `${name} has been rate-limiting the bridge since ${since}: ${message}. The bridge waits as the channel asks; updates waiting: ${pending}.`,
      cs: `${name} omezuje bridge počtem požadavků od ${since}: ${message}. Bridge čeká, jak kanál žádá; čekajících změn: ${pending}.`,
    },
    action: {
      en: 'Nothing is lost. If it lasts, check whether another tool uses the same credentials, or ask the channel for a higher limit.',
      cs: 'Nic se neztratí. Trvá-li to, ověřte, zda stejné údaje nepoužívá jiný nástroj, nebo požádejte kanál o vyšší limit.',
    },
  }),
  quotaExhausted: (name: string, detail: string, pending: number): Texts => ({
    message: {
      en: `${name}'s quota is used up (${detail}). Updates wait for the quota to reset (waiting: ${pending}).`,
      cs: `Kvóta kanálu ${name} je vyčerpaná (${detail}). Změny čekají na obnovení kvóty (čekajících: ${pending}).`,
    },
    action: {
      en: 'Nothing is lost: the bridge sends the waiting updates once the quota resets. If it happens daily, ask the channel for a higher quota.',
      cs: 'Nic se neztratí: bridge čekající změny odešle po obnovení kvóty. Děje-li se to denně, požádejte kanál o vyšší kvótu.',
    },
  }),
  stalled: (name: string, age: number, pending: number, lastError: string | undefined): Texts => ({
    message: {
      en: `${name}: the oldest of the waiting updates (${pending}) has waited ${age} min${lastError === undefined ? '' : `; last error: ${lastError}`}.`,
      cs: `${name}: nejstarší z čekajících změn (${pending}) čeká ${age} min${lastError === undefined ? '' : `; poslední chyba: ${lastError}`}.`,
    },
    action: {
      en: 'See the channel’s last error on the overview and its other warnings; check that the channel answers.',
      cs: 'Podívejte se na poslední chybu kanálu v přehledu a na jeho další upozornění; ověřte, že kanál odpovídá.',
    },
  }),
  paused: (name: string, pending: number): Texts => ({
    message: {
      en: `${name} is paused: changes are kept (waiting: ${pending}) and nothing is sent.`,
      cs: `${name} je pozastavený: změny se drží (čekajících: ${pending}) a nic se neposílá.`,
    },
    action: {
      en: 'Resume the channel when it should be updated again (remove it from PUSH_PAUSED); the waiting changes are sent then.',
      cs: 'Až má být kanál znovu aktualizován, obnovte ho (odeberte ho z PUSH_PAUSED); čekající změny se pak odešlou.',
    },
  }),
  dryRun: (name: string): Texts => ({
    message: {
      en: `${name} runs as a dry run: what would be sent is logged, nothing is sent (PUSH_DRY_RUN=true).`,
      cs: `${name} běží nanečisto: co by se poslalo, se jen zapíše do logu, nic se neposílá (PUSH_DRY_RUN=true).`,
    },
    action: {
      en: 'Set PUSH_DRY_RUN=false when the logged requests look right.',
      cs: 'Až zalogované požadavky vypadají správně, nastavte PUSH_DRY_RUN=false.',
    },
  }),
} as const;

function warning(code: PushWarningCode, severity: ConsoleWarning['severity'], channel: string, texts: Texts): ConsoleWarning {
  return { code, severity, subject: channel, ...texts };
}

function failureWarnings(channel: string, status: PushWarningStatus, now: number): ConsoleWarning[] {
  const name = nameOf(channel);
  const warnings: ConsoleWarning[] = [];
  const failing = failingNow(status);
  const message = status.lastError ?? '';
  const when = status.lastErrorAt === undefined ? '' : warningTime(status.lastErrorAt);
  if (failing && status.lastErrorKind === 'auth') {
    const credentials = CREDENTIALS[channel] ?? 'the channel’s credentials';
    warnings.push(
      warning('PUSH_AUTH_FAILED', 'error', channel, TEXTS.authFailed(name, credentials, when, message, status.pending)),
    );
  }
  const quotaFull = status.quota !== undefined && status.quota.limit > 0 && status.quota.used >= status.quota.limit;
  if ((failing && status.lastErrorKind === 'quota') || quotaFull) {
    const figures = status.quota === undefined ? message : `${status.quota.used}/${status.quota.limit}`;
    const reset = status.quota?.resetAt === undefined ? '' : `, reset ${warningTime(status.quota.resetAt)}`;
    warnings.push(
      warning('PUSH_QUOTA_EXHAUSTED', 'warning', channel, TEXTS.quotaExhausted(name, `${figures}${reset}`, status.pending)),
    );
  }
  const since = msOf(status.failingSince);
  if (failing && status.lastErrorKind === 'rate-limit' && !Number.isNaN(since) && now - since >= PUSH_RATE_LIMITED_AFTER_MS) {
    const text = TEXTS.rateLimited(name, warningTime(status.failingSince ?? ''), message, status.pending);
    warnings.push(warning('PUSH_RATE_LIMITED', 'warning', channel, text));
  }
  const rejectedAt = msOf(status.lastRejectedAt);
  if (!Number.isNaN(rejectedAt) && now - rejectedAt <= PUSH_REJECTED_SHOWN_MS) {
    const text = TEXTS.rejected(name, status.rejected ?? 1, warningTime(status.lastRejectedAt ?? ''), status.lastRejected ?? '');
    warnings.push(warning('PUSH_REJECTED', 'warning', channel, text));
  }
  return warnings;
}

/** Every push warning of every configured channel (the console's warnings page adds them to its list). */
export function pushWarnings(
  statuses: Readonly<Partial<Record<string, PushWarningStatus>>> | undefined,
  now: number,
): ConsoleWarning[] {
  const warnings: ConsoleWarning[] = [];
  for (const [channel, status] of Object.entries(statuses ?? {})) {
    if (status === undefined) continue;
    const name = nameOf(channel);
    if (status.mode === 'paused') warnings.push(warning('PUSH_PAUSED', 'info', channel, TEXTS.paused(name, status.pending)));
    if (status.mode === 'dry-run') warnings.push(warning('PUSH_DRY_RUN', 'info', channel, TEXTS.dryRun(name)));
    warnings.push(...failureWarnings(channel, status, now));
    const age = status.oldestPendingAgeS;
    if (status.mode === 'live' && age !== undefined && age > PUSH_STALLED_AFTER_S) {
      const lastError = failingNow(status) ? status.lastError : undefined;
      warnings.push(warning('PUSH_STALLED', 'error', channel, TEXTS.stalled(name, minutes(age), status.pending, lastError)));
    }
    warnings.push(...verdictWarnings(channel, status.verdicts));
  }
  return warnings;
}
