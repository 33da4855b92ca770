import express, { type Router } from 'express';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { JobOutcome } from '../../jobs/scheduler.js';
import type { PurchasePrices, SyncJob } from '../../services/catalog/catalog-service.js';
import { createRouter } from '../create-router.js';
import { addAdminCatalogRoutes } from './admin-catalog-routes.js';
import { createAdminGate } from './admin-gate.js';
import { addAdminLoginRoutes, addAdminLogoutRoute } from './admin-login-routes.js';
import { type AdminPushControl, addAdminPushRoutes } from './admin-push-routes.js';
import { createAdminSessions } from './admin-session.js';
import { addAdminSyncRoutes } from './admin-sync-routes.js';
import { createLoginThrottle } from './login-throttle.js';
import { type ProgressSources, progressOf } from './sync-progress.js';
import { createSyncRuns } from './sync-runs.js';

export interface AdminRoutesDeps extends ProgressSources {
  /** `undefined` disables the admin area (ADMIN_TOKEN unset). */
  readonly token: string | undefined;
  readonly runJob: (job: SyncJob) => Promise<JobOutcome>;
  /** Why a sync cannot run now (the store does not answer), or `undefined`. */
  readonly unavailable?: () => string | undefined;
  /** The served catalog and the purchase prices of its family, for `/admin/catalog.*`. */
  readonly catalog?: () => CatalogSnapshot | undefined;
  readonly purchasePrices?: () => Promise<PurchasePrices | undefined>;
  /** The channel push's operator controls; `undefined` when no channel is configured. */
  readonly push?: AdminPushControl;
  /** PUSH_PAUSED's channels (paused by configuration: the page offers no resume). */
  readonly pushPaused?: readonly string[];
  /** How long a browser session lasts (`ADMIN_SESSION_HOURS`; default 8 h). */
  readonly sessionHours?: number;
  /** `PUBLIC_BASE_URL`: an https one makes the session cookie `Secure`, and its host counts as our origin. */
  readonly publicBaseUrl?: string | undefined;
  /** The clock of sessions and the login throttle (tests move it). */
  readonly now?: () => Date;
  /** How long a wrong login token waits for its answer (default 500 ms). */
  readonly loginDelayMs?: number;
}

const DEFAULT_SESSION_HOURS = 8;
/** A login form or a sync button's form is a few hundred bytes; anything larger is refused (`413`). */
const FORM_LIMIT = '4kb';

/**
 * The admin area (docs/console.md#admin-area, docs/http-interface.md): `POST /admin/sync` and the other
 * `/admin/*` JSON and CSV endpoints with `Authorization: Bearer ADMIN_TOKEN`; for browsers a login form,
 * a signed session cookie and CSRF tokens.
 */
export function createAdminRoutes(deps: AdminRoutesDeps): Router {
  const router = createRouter();
  const now = deps.now ?? (() => new Date());
  const publicBaseUrl = deps.publicBaseUrl;
  const sessions =
    deps.token === undefined
      ? undefined
      : createAdminSessions({
          token: deps.token,
          lifetimeMs: (deps.sessionHours ?? DEFAULT_SESSION_HOURS) * 3_600_000,
          now,
        });
  const runs = createSyncRuns({ runJob: deps.runJob, now });
  const progress = (job: SyncJob, runId?: number) => {
    const byId = runId === undefined ? undefined : runs.byId(runId);
    return progressOf(job, deps, byId?.job === job ? byId : runs.latest(job), now());
  };
  const group = () => deps.group?.();
  const throttle = createLoginThrottle({ now });
  const login = {
    token: deps.token,
    sessions,
    throttle,
    publicBaseUrl,
    now,
    loginDelayMs: deps.loginDelayMs ?? 500,
    progress,
    group,
  };
  router.use('/admin', express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: 10 }));
  addAdminLoginRoutes(router, login);
  router.use('/admin', createAdminGate({ token: deps.token, sessions, publicBaseUrl, throttle }));
  addAdminLogoutRoute(router, login);
  addAdminSyncRoutes(router, {
    runs,
    ...(deps.unavailable === undefined ? {} : { unavailable: deps.unavailable }),
    progress,
    group,
  });
  addAdminCatalogRoutes(router, {
    catalog: deps.catalog ?? (() => undefined),
    purchasePrices: deps.purchasePrices ?? (async () => undefined),
  });
  addAdminPushRoutes(router, { push: deps.push, pausedSetting: deps.pushPaused ?? [], sessions });
  return router;
}
