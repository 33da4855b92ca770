import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { SyncJob } from '../../services/catalog/catalog-service.js';
import type { GroupStatus } from '../../services/group/group-monitor.js';
import { secretMatches } from '../middleware/token-auth.js';
import { clearSessionCookie, clientOf, sameOrigin, setSessionCookie } from './admin-auth.js';
import { adminContext, prefersHtml, sendAdminPage, sendDisabled, throttledCredentialOf } from './admin-gate.js';
import { homePage, type LoginProblem, loginPage } from './admin-pages.js';
import type { AdminSessions } from './admin-session.js';
import type { LoginThrottle } from './login-throttle.js';
import { type JobProgress, SYNC_JOBS } from './sync-progress.js';

export interface AdminLoginDeps {
  readonly token: string | undefined;
  readonly sessions: AdminSessions | undefined;
  readonly throttle: LoginThrottle;
  readonly publicBaseUrl: string | undefined;
  readonly now: () => Date;
  /** How long a wrong token waits for its answer: slows guessing without holding anything else. */
  readonly loginDelayMs: number;
  readonly progress: (job: SyncJob) => JobProgress;
  readonly group: () => GroupStatus | undefined;
}

const LoginSchema = z.object({ token: z.string().max(1_024) });

function sendLogin(req: Request, res: Response, status: number, problem?: LoginProblem): void {
  const ctx = adminContext(req, res);
  sendAdminPage(res, ctx, { ...loginPage(ctx, problem), section: 'admin' }, status);
}

/** `GET /admin`: the admin page with a session, else the login form (`401` when a session was sent but is no longer valid). */
function showAdmin(deps: AdminLoginDeps, req: Request, res: Response): void {
  const { token, sessions } = deps;
  if (token === undefined || sessions === undefined) {
    sendDisabled(req, res);
    return;
  }
  // A bearer token here is counted by the login throttle as at the gate: no guessing past it through this page.
  const credential = throttledCredentialOf(req, token, sessions, deps.throttle);
  if (credential.via === 'blocked') {
    res.set('retry-after', String(Math.ceil(credential.ms / 1000)));
    sendLogin(req, res, 429, 'blocked');
    return;
  }
  if (credential.via === 'invalid') {
    sendLogin(req, res, 401, credential.expired ? 'expired' : 'wrong');
    return;
  }
  if (credential.via !== 'cookie') {
    sendLogin(req, res, 200);
    return;
  }
  const ctx = adminContext(req, res);
  const page = homePage(ctx, {
    csrf: sessions.csrfOf(credential.session),
    expiresAt: credential.session.expiresAt,
    jobs: SYNC_JOBS.map((job) => deps.progress(job)),
    group: deps.group(),
  });
  sendAdminPage(res, ctx, { ...page, section: 'admin' });
}

/** `POST /admin/login`: the token from the form; right → the session cookie and `303` to `/admin`. */
async function login(deps: AdminLoginDeps, req: Request, res: Response): Promise<void> {
  const { token, sessions } = deps;
  if (token === undefined || sessions === undefined) return sendDisabled(req, res);
  // Login CSRF: a foreign page must not sign a browser in (to a session of the attacker's choosing).
  if (!sameOrigin(req, deps.publicBaseUrl)) return sendLogin(req, res, 403, 'origin');
  const client = clientOf(req);
  const blockedMs = deps.throttle.blockedFor(client);
  if (blockedMs > 0) {
    res.set('retry-after', String(Math.ceil(blockedMs / 1000)));
    return sendLogin(req, res, 429, 'blocked');
  }
  const form = LoginSchema.safeParse(req.body);
  if (!form.success || !secretMatches(form.data.token, token)) {
    deps.throttle.fail(client);
    await sleep(deps.loginDelayMs);
    return sendLogin(req, res, 401, 'wrong');
  }
  deps.throttle.succeed(client);
  const { session, cookie } = sessions.issue();
  setSessionCookie(req, res, cookie, session, deps.publicBaseUrl, deps.now());
  res.set('cache-control', 'no-store').redirect(303, '/admin');
}

/** `POST /admin/logout` (behind the gate: the session's CSRF token): clears the cookie. */
function logout(deps: AdminLoginDeps, req: Request, res: Response): void {
  clearSessionCookie(req, res, deps.publicBaseUrl);
  if (prefersHtml(req)) res.redirect(303, '/admin');
  else res.status(204).end();
}

export function addAdminLoginRoutes(router: Router, deps: AdminLoginDeps): void {
  router.get('/admin', (req, res) => showAdmin(deps, req, res));
  router.post('/admin/login', (req, res) => login(deps, req, res));
  // A reload of the login's answer, or a bookmark of it: the form lives at /admin.
  router.get('/admin/login', (_req, res) => res.redirect(303, '/admin'));
}

/** Mounted after the gate. */
export function addAdminLogoutRoute(router: Router, deps: AdminLoginDeps): void {
  router.post('/admin/logout', (req, res) => logout(deps, req, res));
}
