import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { type HttpErrorCode, statusOf } from '../error-codes.js';
import { sendError } from '../send-error.js';
import { adminContext, admittedAs, sendAdminPage } from './admin-gate.js';
import { type AdminPushChannel, pushPage } from './admin-push-page.js';
import { parseQuery } from './admin-query.js';
import type { AdminSessions } from './admin-session.js';

/**
 * The push's operator controls (docs/channel-push.md#operator-controls): `POST /admin/push/{channel}/pause`,
 * `…/resume`, `POST /admin/push/reconcile[?channel=]` and the page `GET /admin/push`. Bearer callers get
 * JSON; a browser (session cookie + CSRF, checked by the gate) is sent back to the page. The logic is the
 * push's controls (`src/services/push/push-control.ts`); these routes only translate.
 */

type Refusal = { readonly ok: false; readonly reason: string; readonly message: string };

/** What the routes need of the push wiring (structural: `src/app/push-parts.ts` is not imported from here). */
export interface AdminPushControl {
  status(): Readonly<Partial<Record<string, Omit<AdminPushChannel, 'pausedByConfig'>>>>;
  channels(): readonly string[];
  pause(channel: string): Promise<{ readonly ok: true; readonly channel: string; readonly paused: boolean } | Refusal>;
  resume(channel: string): Promise<{ readonly ok: true; readonly channel: string; readonly paused: boolean } | Refusal>;
  reconcile(
    channel: string | undefined,
    why: string,
  ): Promise<{ readonly ok: true; readonly version: string; readonly targets: Readonly<Record<string, number>> } | Refusal>;
}

export interface AdminPushDeps {
  /** `undefined` when no channel is configured. */
  readonly push: AdminPushControl | undefined;
  /** PUSH_PAUSED's channels: paused by configuration, not resumable here. */
  readonly pausedSetting: readonly string[];
  readonly sessions: AdminSessions | undefined;
}

/** The answer per refusal (docs/report-codes.md); any other reason is a reconciliation that cannot run now. */
const CODE_OF_REASON: Readonly<Record<string, HttpErrorCode>> = {
  'unknown-channel': 'PUSH_UNKNOWN_CHANNEL',
  'paused-by-config': 'PUSH_PAUSED_BY_CONFIG',
  stopped: 'PUSH_STOPPING',
};

const ReconcileQuerySchema = z.object({ channel: z.string().min(1).max(40).optional() });

function channelsOf(deps: AdminPushDeps): Record<string, AdminPushChannel> {
  const status = deps.push?.status() ?? {};
  const channels: Record<string, AdminPushChannel> = {};
  for (const name of deps.push?.channels() ?? []) {
    const channel = status[name];
    const pausedByConfig = deps.pausedSetting.includes(name);
    channels[name] = { ...(channel ?? { mode: pausedByConfig ? 'paused' : 'live', pending: 0 }), pausedByConfig };
  }
  return channels;
}

function showPage(
  deps: AdminPushDeps,
  req: Request,
  res: Response,
  notice?: { kind: 'failed' | 'done'; text?: string },
  status = 200,
) {
  const credential = admittedAs(res);
  if (credential.via !== 'cookie' || deps.sessions === undefined) {
    res
      .set('cache-control', 'private, no-store')
      .status(status)
      .json({ channels: channelsOf(deps) });
    return;
  }
  const ctx = adminContext(req, res);
  const csrf = deps.sessions.csrfOf(credential.session);
  const page = pushPage(ctx, { csrf, channels: channelsOf(deps), ...(notice === undefined ? {} : { notice }) });
  sendAdminPage(res, ctx, { ...page, section: 'admin' }, status);
}

/** A refusal: JSON for a script, the page with the message for a browser. */
function refuse(deps: AdminPushDeps, req: Request, res: Response, refusal: Refusal): void {
  const code = CODE_OF_REASON[refusal.reason] ?? 'PUSH_RECONCILE_REFUSED';
  const status = statusOf(code);
  if (admittedAs(res).via === 'cookie') {
    showPage(deps, req, res, { kind: 'failed', text: refusal.message }, status);
    return;
  }
  sendError(res, code, refusal.message, { extra: { reason: refusal.reason } });
}

/** Answers 404 when no channel is configured at all; else the push control. */
function controlOf(deps: AdminPushDeps, req: Request, res: Response): AdminPushControl | undefined {
  if (deps.push !== undefined) return deps.push;
  refuse(deps, req, res, {
    ok: false,
    reason: 'unknown-channel',
    message: 'No channel is configured for the push (set GOOGLE_*, META_* or SHOPTET_*, see docs/channel-push.md)',
  });
  return undefined;
}

async function setPaused(deps: AdminPushDeps, req: Request, res: Response, paused: boolean): Promise<void> {
  const push = controlOf(deps, req, res);
  if (push === undefined) return;
  const channel = String(req.params['channel'] ?? '');
  const result = paused ? await push.pause(channel) : await push.resume(channel);
  if (!result.ok) {
    refuse(deps, req, res, result);
    return;
  }
  if (admittedAs(res).via === 'cookie') {
    res.redirect(303, '/admin/push?done=1');
    return;
  }
  res.json({ channel: result.channel, paused: result.paused });
}

async function reconcile(deps: AdminPushDeps, req: Request, res: Response): Promise<void> {
  const query = parseQuery(ReconcileQuerySchema, req, res);
  if (query === undefined) return;
  const push = controlOf(deps, req, res);
  if (push === undefined) return;
  const result = await push.reconcile(query.channel, 'operator');
  if (!result.ok) {
    refuse(deps, req, res, result);
    return;
  }
  if (admittedAs(res).via === 'cookie') {
    res.redirect(303, '/admin/push?done=1');
    return;
  }
  // Enqueued; the workers send it at the channels' pace (live changes first).
  res.status(202).json({ version: result.version, targets: result.targets });
}

/** The outbox did not answer (the store is down): `503`, said so, rather than a bare `500`. */
function guarded(action: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response): Promise<void> => {
    try {
      await action(req, res);
    } catch (error) {
      if (res.headersSent) return;
      const message = error instanceof Error ? error.message : String(error);
      sendError(res, 'PUSH_OUTBOX_UNAVAILABLE', `The push outbox did not answer (${message}); try again`);
    }
  };
}

/** Mounted behind the admin gate (docs/http-interface.md). */
export function addAdminPushRoutes(router: Router, deps: AdminPushDeps): void {
  router.get('/admin/push', (req, res) =>
    showPage(deps, req, res, req.query['done'] === undefined ? undefined : { kind: 'done' }),
  );
  router.post(
    '/admin/push/reconcile',
    guarded((req, res) => reconcile(deps, req, res)),
  );
  router.post(
    '/admin/push/:channel/pause',
    guarded((req, res) => setPaused(deps, req, res, true)),
  );
  router.post(
    '/admin/push/:channel/resume',
    guarded((req, res) => setPaused(deps, req, res, false)),
  );
}
