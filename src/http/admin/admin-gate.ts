import type { NextFunction, Request, Response } from 'express';
import { type ConsoleContext, consoleContext, type PageOptions, renderPage, setConsoleHeaders } from '../console/layout.js';
import { bearerTokenOf } from '../middleware/token-auth.js';
import { sendError } from '../send-error.js';
import { type AdminCredential, clientOf, credentialOf, csrfTokenOf, sameOrigin } from './admin-auth.js';
import { disabledPage, forbiddenPage, loginPage } from './admin-pages.js';
import type { AdminSessions } from './admin-session.js';
import type { LoginThrottle } from './login-throttle.js';

/** The console context of an admin page; its path is the whole one (a mounted middleware sees only the rest). */
export function adminContext(req: Request, res: Response): ConsoleContext {
  return { ...consoleContext(req, res), path: req.originalUrl.split('?')[0] ?? '/admin' };
}

/** Sends an admin page: a console page that no cache keeps (its forms carry the session's CSRF token). */
export function sendAdminPage(res: Response, ctx: ConsoleContext, options: PageOptions, status = 200): void {
  setConsoleHeaders(res);
  res.set('cache-control', 'private, no-store').status(status).type('html').send(renderPage(ctx, options));
}

/** A browser asking for a page (its `Accept` prefers HTML); API clients and `curl` get JSON. */
export function prefersHtml(req: Request): boolean {
  return req.accepts(['json', 'html']) === 'html';
}

/** `404`: the admin area is off (ADMIN_TOKEN unset); a browser gets a page saying how to switch it on. */
export function sendDisabled(req: Request, res: Response): void {
  if (prefersHtml(req)) {
    const ctx = adminContext(req, res);
    sendAdminPage(res, ctx, { ...disabledPage(ctx), section: 'admin' }, 404);
    return;
  }
  sendError(res, 'ADMIN_DISABLED', 'The admin endpoints are disabled; set ADMIN_TOKEN to enable them');
}

export function sendUnauthorized(req: Request, res: Response, expired: boolean): void {
  if (prefersHtml(req)) {
    const ctx = adminContext(req, res);
    sendAdminPage(res, ctx, { ...loginPage(ctx, expired ? 'expired' : undefined), section: 'admin' }, 401);
    return;
  }
  res.set('www-authenticate', 'Bearer realm="catalog-bridge admin"');
  sendError(res, 'UNAUTHORIZED', 'A valid admin token is required (Authorization: Bearer …, or the session of /admin/login)');
}

function sendForbidden(req: Request, res: Response, reason: 'csrf' | 'origin'): void {
  if (prefersHtml(req)) {
    const ctx = adminContext(req, res);
    sendAdminPage(res, ctx, { ...forbiddenPage(ctx, reason), section: 'admin' }, 403);
    return;
  }
  if (reason === 'origin') sendError(res, 'CROSS_ORIGIN', 'A state change with the admin session must come from this site');
  else sendError(res, 'CSRF_FAILED', 'A state change with the admin session needs its CSRF token (form field csrf)');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The credential a request passed the gate with (`res.locals.admin`). */
export function admittedAs(res: Response): AdminCredential {
  return (res.locals['admin'] as AdminCredential | undefined) ?? { via: 'none' };
}

/**
 * The request's credential, a bearer token counted by the login throttle (a wrong one as a wrong login, a right
 * one clears the address), or `blocked` (ms) while the address may not try: every door that takes the token
 * (the gate, `GET /admin`) answers a blocked address alike, so no door tells a right token from a wrong one.
 */
export function throttledCredentialOf(
  req: Request,
  token: string,
  sessions: AdminSessions,
  throttle: LoginThrottle,
): AdminCredential | { readonly via: 'blocked'; readonly ms: number } {
  if (bearerTokenOf(req) === undefined) return credentialOf(req, token, sessions);
  const client = clientOf(req);
  const blockedMs = throttle.blockedFor(client);
  if (blockedMs > 0) return { via: 'blocked', ms: blockedMs };
  const credential = credentialOf(req, token, sessions);
  if (credential.via === 'bearer') throttle.succeed(client);
  else throttle.fail(client);
  return credential;
}

/**
 * Every `/admin/*` route but the login form: the bearer token, or the session cookie; a state change
 * with the cookie also needs the session's CSRF token and must come from our own origin. Bearer calls
 * need no CSRF token: a browser never adds an `Authorization` header by itself.
 */
export function createAdminGate(options: {
  readonly token: string | undefined;
  readonly sessions: AdminSessions | undefined;
  readonly publicBaseUrl: string | undefined;
  /** The login form's: wrong bearer tokens count as wrong logins, so neither way allows guessing. */
  readonly throttle: LoginThrottle;
}) {
  /** The credential of a request let through, or `undefined` once it has been answered with the refusal. */
  const admit = (req: Request, res: Response): AdminCredential | undefined => {
    const { token, sessions } = options;
    if (token === undefined || sessions === undefined) {
      sendDisabled(req, res);
      return undefined;
    }
    const credential = throttledCredentialOf(req, token, sessions, options.throttle);
    if (credential.via === 'blocked') {
      res.set('retry-after', String(Math.ceil(credential.ms / 1000)));
      sendError(res, 'TOO_MANY_ATTEMPTS', 'Too many wrong admin tokens from this address; try again later');
      return undefined;
    }
    if (credential.via === 'none' || credential.via === 'invalid') {
      sendUnauthorized(req, res, credential.via === 'invalid' && credential.expired);
      return undefined;
    }
    if (credential.via === 'cookie' && !SAFE_METHODS.has(req.method)) {
      const refused = !sameOrigin(req, options.publicBaseUrl)
        ? 'origin'
        : !sessions.csrfMatches(credential.session, csrfTokenOf(req))
          ? 'csrf'
          : undefined;
      if (refused !== undefined) {
        sendForbidden(req, res, refused);
        return undefined;
      }
    }
    return credential;
  };
  return (req: Request, res: Response, next: NextFunction): void => {
    const credential = admit(req, res);
    if (credential === undefined) return;
    res.locals['admin'] = credential;
    next();
  };
}
