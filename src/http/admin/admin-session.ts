import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Stateless admin sessions (docs/console.md#admin-area): the cookie carries a random session id and its
 * expiry, signed with HMAC-SHA256 under a key derived from ADMIN_TOKEN. Any instance behind one load
 * balancer verifies it without shared state, and a changed ADMIN_TOKEN invalidates every session at once.
 */
export interface AdminSession {
  readonly id: string;
  readonly expiresAt: Date;
}

export interface AdminSessions {
  /** A new session and its cookie value. */
  issue(): { readonly session: AdminSession; readonly cookie: string };
  /** The session a cookie value names, when its signature holds and it has not expired. */
  verify(cookie: string | undefined): AdminSession | undefined;
  /** The CSRF token of a session: derived from it, so nothing is stored. */
  csrfOf(session: AdminSession): string;
  csrfMatches(session: AdminSession, provided: string | undefined): boolean;
  readonly lifetimeMs: number;
}

const FORMAT = 'v1';

function derive(token: string, purpose: string): Buffer {
  return createHmac('sha256', token).update(`catalog-bridge admin ${purpose} v1`).digest();
}

function mac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('base64url');
}

/** Constant-time equality of two base64url MACs (different lengths never match, and leak only that). */
function macMatches(expected: string, provided: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(provided);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createAdminSessions(options: {
  readonly token: string;
  readonly lifetimeMs: number;
  readonly now: () => Date;
}): AdminSessions {
  // Separate keys: a CSRF token must never double as a cookie signature.
  const cookieKey = derive(options.token, 'session');
  const csrfKey = derive(options.token, 'csrf');
  return {
    lifetimeMs: options.lifetimeMs,
    issue() {
      const id = randomBytes(18).toString('base64url');
      const expiresAt = new Date(options.now().getTime() + options.lifetimeMs);
      const body = `${FORMAT}.${id}.${Math.floor(expiresAt.getTime() / 1000)}`;
      return { session: { id, expiresAt }, cookie: `${body}.${mac(cookieKey, body)}` };
    },
    verify(cookie) {
      if (cookie === undefined || cookie.length > 200) return undefined;
      const parts = cookie.split('.');
      if (parts.length !== 4 || parts[0] !== FORMAT) return undefined;
      const [, id = '', expires = '', signature = ''] = parts;
      if (!macMatches(mac(cookieKey, `${FORMAT}.${id}.${expires}`), signature)) return undefined;
      if (!/^\d{1,12}$/.test(expires)) return undefined;
      const expiresAt = new Date(Number(expires) * 1000);
      return expiresAt.getTime() > options.now().getTime() ? { id, expiresAt } : undefined;
    },
    csrfOf: (session) => mac(csrfKey, session.id),
    csrfMatches: (session, provided) => provided !== undefined && macMatches(mac(csrfKey, session.id), provided),
  };
}
