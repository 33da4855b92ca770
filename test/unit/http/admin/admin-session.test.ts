import { describe, expect, it } from 'vitest';
import { createAdminSessions } from '../../../../src/http/admin/admin-session.js';
import { createLoginThrottle } from '../../../../src/http/admin/login-throttle.js';

const HOUR = 3_600_000;

describe('admin sessions', () => {
  let now = new Date('2026-11-26T10:00:00Z');
  const sessions = createAdminSessions({ token: 'the-admin-token', lifetimeMs: 8 * HOUR, now: () => now });

  it('verifies its own cookie until it expires, and carries no secret in it', () => {
    now = new Date('2026-11-26T10:00:00Z');
    const { session, cookie } = sessions.issue();

    expect(session.expiresAt.toISOString()).toBe('2026-11-26T18:00:00.000Z');
    expect(cookie).not.toContain('the-admin-token');
    expect(sessions.verify(cookie)).toEqual(session);
    now = new Date('2026-11-26T17:59:59Z');
    expect(sessions.verify(cookie)?.id).toBe(session.id);
    now = new Date('2026-11-26T18:00:00Z');
    expect(sessions.verify(cookie)).toBeUndefined();
  });

  it('rejects every changed part, and cookies signed under another token', () => {
    now = new Date('2026-11-26T10:00:00Z');
    const { cookie } = sessions.issue();
    const [format, id = '', expires = '', signature = ''] = cookie.split('.');
    const other = createAdminSessions({ token: 'a-new-admin-token', lifetimeMs: 8 * HOUR, now: () => now });

    expect(sessions.verify(`${format}.${id}x.${expires}.${signature}`)).toBeUndefined();
    expect(sessions.verify(`${format}.${id}.${Number(expires) + 1}.${signature}`)).toBeUndefined();
    // Another last character (a signature that ends in A already would stay the same: 1 run in 64).
    const changed = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(sessions.verify(`${format}.${id}.${expires}.${changed}`)).toBeUndefined();
    expect(sessions.verify(`v2.${id}.${expires}.${signature}`)).toBeUndefined();
    expect(sessions.verify('')).toBeUndefined();
    expect(sessions.verify('x'.repeat(10_000))).toBeUndefined();
    expect(other.verify(cookie)).toBeUndefined();
  });

  it('derives a CSRF token per session, different from the cookie and from other sessions', () => {
    const a = sessions.issue();
    const b = sessions.issue();
    const csrf = sessions.csrfOf(a.session);

    expect(sessions.csrfMatches(a.session, csrf)).toBe(true);
    expect(sessions.csrfMatches(b.session, csrf)).toBe(false);
    expect(sessions.csrfMatches(a.session, undefined)).toBe(false);
    expect(sessions.csrfMatches(a.session, `${csrf}=`)).toBe(false);
    expect(a.cookie).not.toContain(csrf);
  });
});

describe('login throttle', () => {
  it('blocks an address after the allowed failures until the window ends; others are not affected', () => {
    let now = new Date('2026-11-26T10:00:00Z');
    const throttle = createLoginThrottle({ now: () => now, maxFailures: 3, windowMs: 60_000, maxClients: 2 });

    for (let i = 0; i < 3; i += 1) throttle.fail('10.0.0.1');

    expect(throttle.blockedFor('10.0.0.1')).toBe(60_000);
    expect(throttle.blockedFor('10.0.0.2')).toBe(0);
    now = new Date('2026-11-26T10:01:00Z');
    expect(throttle.blockedFor('10.0.0.1')).toBe(0);
  });

  it('forgets an address on success, and the oldest when the table is full', () => {
    const now = new Date('2026-11-26T10:00:00Z');
    const throttle = createLoginThrottle({ now: () => now, maxFailures: 1, windowMs: 60_000, maxClients: 2 });

    throttle.fail('a');
    throttle.fail('b');
    throttle.fail('c');
    throttle.fail('d');
    throttle.succeed('d');

    expect(throttle.blockedFor('a')).toBe(0);
    expect(throttle.blockedFor('b')).toBe(0);
    expect(throttle.blockedFor('c')).toBeGreaterThan(0);
    expect(throttle.blockedFor('d')).toBe(0);
  });
});
