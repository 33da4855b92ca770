import type { Request, Response } from 'express';
import { clientAddressOf } from '../client-address.js';
import { bearerTokenOf, secretMatches } from '../middleware/token-auth.js';
import type { AdminSession, AdminSessions } from './admin-session.js';

/** The session cookie: scoped to `/admin`, so no other page of the bridge ever receives it. */
export const ADMIN_COOKIE = 'cb_admin';
const COOKIE_PATH = '/admin';

/** Who a request to `/admin/*` is: the bearer token of an API client, or a browser's session cookie. */
export type AdminCredential =
  | { readonly via: 'bearer' }
  | { readonly via: 'cookie'; readonly session: AdminSession }
  /** A bearer token that is wrong, or a cookie that is forged, tampered with or expired. */
  | { readonly via: 'invalid'; readonly expired: boolean }
  | { readonly via: 'none' };

export function cookieOf(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The bearer header decides when present (an API client never depends on a cookie the browser may hold). */
export function credentialOf(req: Request, token: string, sessions: AdminSessions): AdminCredential {
  const bearer = bearerTokenOf(req);
  if (bearer !== undefined) return secretMatches(bearer, token) ? { via: 'bearer' } : { via: 'invalid', expired: false };
  const cookie = cookieOf(req, ADMIN_COOKIE);
  if (cookie === undefined || cookie === '') return { via: 'none' };
  const session = sessions.verify(cookie);
  return session === undefined ? { via: 'invalid', expired: true } : { via: 'cookie', session };
}

/**
 * Whether a cookie-authenticated state change comes from our own pages: a browser names the page's
 * origin (`Origin`) and whether it is ours (`Sec-Fetch-Site`) on every cross-site POST, so either header,
 * when present, must say so. The host compared is the request's own (`Host`) or `PUBLIC_BASE_URL`'s: a
 * proxy in front may change the scheme, never the host the browser sees.
 */
export function sameOrigin(req: Request, publicBaseUrl: string | undefined): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  if (host === req.headers.host) return true;
  return publicBaseUrl !== undefined && host === new URL(publicBaseUrl).host;
}

/** The CSRF token a state change carries: the form field `csrf`, or the `X-CSRF-Token` header of a script. */
export function csrfTokenOf(req: Request): string | undefined {
  const body: unknown = req.body;
  if (typeof body === 'object' && body !== null && 'csrf' in body && typeof body.csrf === 'string') return body.csrf;
  const header = req.headers['x-csrf-token'];
  return typeof header === 'string' ? header : undefined;
}

/**
 * `Secure` whenever the browser reaches the bridge over https: a TLS connection of its own, or a
 * `PUBLIC_BASE_URL` that is https (a proxy terminating TLS in front). `X-Forwarded-Proto` counts only
 * from a proxy `TRUST_PROXY` names (express's `req.secure`): anyone else could send that header.
 */
function secureFlag(req: Request, publicBaseUrl: string | undefined): string {
  return req.secure || publicBaseUrl?.startsWith('https:') === true ? '; Secure' : '';
}

export function setSessionCookie(
  req: Request,
  res: Response,
  value: string,
  session: AdminSession,
  publicBaseUrl: string | undefined,
  now: Date,
): void {
  const maxAge = Math.max(0, Math.floor((session.expiresAt.getTime() - now.getTime()) / 1000));
  res.append(
    'set-cookie',
    `${ADMIN_COOKIE}=${value}; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}; Expires=${session.expiresAt.toUTCString()}${secureFlag(req, publicBaseUrl)}`,
  );
}

export function clearSessionCookie(req: Request, res: Response, publicBaseUrl: string | undefined): void {
  res.append(
    'set-cookie',
    `${ADMIN_COOKIE}=; Path=${COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT${secureFlag(req, publicBaseUrl)}`,
  );
}

/**
 * The client address for the login throttle: the socket's, or behind a proxy `TRUST_PROXY` names the
 * address it forwarded (else every guess through the proxy would count against everyone); read once per
 * request, as every per-client limit reads it (client-address.ts).
 */
export function clientOf(req: Request): string {
  return clientAddressOf(req);
}
