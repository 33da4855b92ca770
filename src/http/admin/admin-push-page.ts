import { formatDateTime, formatNumber, textsFor } from '../../core/text/local-text.js';
import { escapeHtml as h } from '../console/html.js';
import type { ConsoleContext } from '../console/layout.js';
import type { AdminPage } from './admin-pages.js';

/** The admin area's push page (docs/channel-push.md#operator-controls): each channel's state and its buttons. */

/** One channel as the page and `GET /admin/push` show it (the push status of `/readyz`). */
export interface AdminPushChannel {
  readonly mode: 'live' | 'dry-run' | 'paused';
  readonly pending: number;
  readonly lastSuccessAt?: string;
  readonly lastErrorAt?: string;
  readonly lastError?: string;
  readonly lastReconcileAt?: string;
  /** PUSH_PAUSED names it: the endpoint cannot resume it. */
  readonly pausedByConfig: boolean;
}

const en = {
  title: 'Channel push',
  intro:
    'Changes of the catalog are sent to the channels below. Pausing keeps the changes and sends nothing; resuming sends what is pending. A reconciliation sends every item again in full (it also runs every night).',
  none: 'No channel is configured (see docs/channel-push.md).',
  channel: 'Channel',
  mode: 'Mode',
  pending: 'Pending',
  lastSuccess: 'Last success',
  lastError: 'Last error',
  lastReconcile: 'Last reconciliation',
  never: 'none yet',
  live: 'live',
  'dry-run': 'dry run (logged, not sent)',
  paused: 'paused',
  pause: 'Pause',
  resume: 'Resume',
  reconcile: 'Reconcile',
  reconcileAll: 'Reconcile every channel now',
  byConfig: 'paused by PUSH_PAUSED (change the setting and restart to resume)',
  done: 'Done.',
  backToAdmin: 'Back to the admin area',
};

const cs: typeof en = {
  title: 'Odesílání do kanálů',
  intro:
    'Změny katalogu se odesílají do níže uvedených kanálů. Pozastavení změny uchová a nic neodešle; obnovení odešle, co čeká. Srovnání odešle znovu celé všechny položky (probíhá také každou noc).',
  none: 'Není nastaven žádný kanál (viz docs/channel-push.md).',
  channel: 'Kanál',
  mode: 'Režim',
  pending: 'Čeká',
  lastSuccess: 'Poslední úspěch',
  lastError: 'Poslední chyba',
  lastReconcile: 'Poslední srovnání',
  never: 'zatím žádné',
  live: 'odesílá se',
  'dry-run': 'zkušební běh (zapisuje se do logu, neodesílá se)',
  paused: 'pozastaveno',
  pause: 'Pozastavit',
  resume: 'Obnovit',
  reconcile: 'Srovnat',
  reconcileAll: 'Srovnat teď všechny kanály',
  byConfig: 'pozastaveno nastavením PUSH_PAUSED (pro obnovení změňte nastavení a restartujte)',
  done: 'Hotovo.',
  backToAdmin: 'Zpět do správy',
};

export const ADMIN_PUSH_TEXTS = { en, cs };

function button(csrf: string, action: string, label: string, primary = false): string {
  return `<form method="post" action="${h(action)}" style="display:inline-block;margin:0 .25rem .25rem 0"><input type="hidden" name="csrf" value="${h(csrf)}"><button type="submit"${primary ? ' class="primary"' : ''}>${h(label)}</button></form>`;
}

function channelRow(ctx: ConsoleContext, csrf: string, name: string, channel: AdminPushChannel): string {
  const t = textsFor(ADMIN_PUSH_TEXTS, ctx.lang);
  const when = (iso: string | undefined) => (iso === undefined ? h(t.never) : h(formatDateTime(ctx.lang, iso)));
  const error =
    channel.lastErrorAt === undefined ? h(t.never) : `${when(channel.lastErrorAt)}<br><code>${h(channel.lastError ?? '')}</code>`;
  const mode = channel.pausedByConfig ? `${h(t.paused)} <span class="muted">(${h(t.byConfig)})</span>` : h(t[channel.mode]);
  const toggle =
    channel.mode === 'paused'
      ? channel.pausedByConfig
        ? ''
        : button(csrf, `/admin/push/${name}/resume`, t.resume, true)
      : button(csrf, `/admin/push/${name}/pause`, t.pause);
  const actions = `${toggle}${button(csrf, `/admin/push/reconcile?channel=${name}`, t.reconcile)}`;
  const cells = [
    `<th scope="row">${h(name)}</th>`,
    `<td>${mode}</td>`,
    `<td>${h(formatNumber(ctx.lang, channel.pending))}</td>`,
    `<td>${when(channel.lastSuccessAt)}</td>`,
    `<td>${error}</td>`,
    `<td>${when(channel.lastReconcileAt)}</td>`,
    `<td>${actions}</td>`,
  ];
  return `<tr>${cells.join('')}</tr>`;
}

export function pushPage(
  ctx: ConsoleContext,
  view: {
    readonly csrf: string;
    readonly channels: Readonly<Record<string, AdminPushChannel>>;
    /** A refusal to show (the action's message), or `done` after an action. */
    readonly notice?: { readonly kind: 'failed' | 'done'; readonly text?: string };
  },
): AdminPage {
  const t = textsFor(ADMIN_PUSH_TEXTS, ctx.lang);
  const notice =
    view.notice === undefined
      ? ''
      : view.notice.kind === 'failed'
        ? `<p class="notice failed-notice" role="alert">${h(view.notice.text ?? '')}</p>`
        : `<p class="notice" role="status">${h(t.done)}</p>`;
  const names = Object.keys(view.channels);
  const heads = [t.channel, t.mode, t.pending, t.lastSuccess, t.lastError, t.lastReconcile, '']
    .map((head) => `<th scope="col">${h(head)}</th>`)
    .join('');
  const rows = names.map((name) => {
    const channel = view.channels[name];
    return channel === undefined ? '' : channelRow(ctx, view.csrf, name, channel);
  });
  const table =
    names.length === 0
      ? `<p>${h(t.none)}</p>`
      : `<div class="table-wrap"><table><thead><tr>${heads}</tr></thead><tbody>${rows.join('')}</tbody></table></div>
<p>${button(view.csrf, '/admin/push/reconcile', t.reconcileAll)}</p>`;
  const body = `${notice}<p>${h(t.intro)}</p>${table}<p><a href="/admin">${h(t.backToAdmin)}</a></p>`;
  return { title: t.title, body };
}
