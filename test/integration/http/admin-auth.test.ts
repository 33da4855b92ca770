import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createAdminRoutes } from '../../../src/http/admin/admin-routes.js';
import type { JobOutcome } from '../../../src/jobs/scheduler.js';
import type { SyncJob, SyncReport } from '../../../src/services/catalog/catalog-service.js';

const TOKEN = 'admin-secret-for-tests';
const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function report(job: SyncJob): SyncReport {
  return {
    job,
    outcome: 'published',
    startedAt: '2026-11-26T10:00:00.000Z',
    finishedAt: '2026-11-26T10:00:02.000Z',
    durationMs: 2_000,
    products: 3,
    version: 'v-test',
  };
}

function createAdmin(options: { token?: string | undefined; now?: () => Date; publicBaseUrl?: string } = {}) {
  const started: SyncJob[] = [];
  const runJob = async (job: SyncJob): Promise<JobOutcome> => {
    started.push(job);
    return { job, ok: true, startedAt: new Date(), durationMs: 1, result: report(job) };
  };
  const app = express();
  app.use(
    createAdminRoutes({
      token: 'token' in options ? options.token : TOKEN,
      runJob,
      loginDelayMs: 0,
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.publicBaseUrl === undefined ? {} : { publicBaseUrl: options.publicBaseUrl }),
    }),
  );
  return { app, started };
}

/** Signs in through the form; the session cookie and the page's CSRF token. */
async function signIn(app: express.Express): Promise<{ cookie: string; csrf: string }> {
  const login = await request(app).post('/admin/login').type('form').send({ token: TOKEN });
  expect(login.status).toBe(303);
  const setCookie = (login.headers['set-cookie'] as unknown as string[])[0] ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  const page = await request(app).get('/admin').set('cookie', cookie).set('accept', HTML);
  expect(page.status).toBe(200);
  // The page carries the CSRF token: no cache may keep it.
  expect(page.headers['cache-control']).toBe('private, no-store');
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  expect(csrf).not.toBe('');
  return { cookie, csrf };
}

describe('admin area: authentication', () => {
  it('is disabled without ADMIN_TOKEN: 404 for the API, a page saying how to enable it', async () => {
    const { app } = createAdmin({ token: undefined });

    const api = await request(app).post('/admin/sync');
    const page = await request(app).get('/admin').set('accept', HTML);

    expect(api.status).toBe(404);
    expect(api.body).toMatchObject({ error: { code: 'ADMIN_DISABLED' } });
    expect(page.status).toBe(404);
    expect(page.text).toContain('ADMIN_TOKEN');
    expect(page.text).not.toContain('<form');
  });

  it('answers 401 without credentials and with a wrong bearer token', async () => {
    const { app, started } = createAdmin();

    const none = await request(app).post('/admin/sync');
    const wrong = await request(app).post('/admin/sync').set('authorization', 'Bearer nope');
    const status = await request(app).get('/admin/sync/status').set('authorization', 'Bearer nope');

    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
    expect(none.headers['www-authenticate']).toContain('Bearer');
    expect(wrong.status).toBe(401);
    expect(status.status).toBe(401);
    expect(started).toEqual([]);
  });

  it('keeps the bearer API as it was: 202, ?wait=true, job=; no CSRF token needed', async () => {
    const { app, started } = createAdmin();
    const auth = `Bearer ${TOKEN}`;

    const background = await request(app).post('/admin/sync').set('authorization', auth);
    const waited = await request(app).post('/admin/sync?wait=true&job=stock').set('authorization', auth);
    const bad = await request(app).post('/admin/sync?job=everything').set('authorization', auth);
    const status = await request(app).get('/admin/sync/status').set('authorization', auth);

    expect(background.status).toBe(202);
    expect(background.body).toEqual({ job: 'sync-catalog', status: 'started' });
    expect(waited.status).toBe(200);
    expect(waited.body).toMatchObject({ job: 'sync-stock', outcome: 'published' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'BAD_REQUEST' } });
    expect(started).toEqual(['sync-catalog', 'sync-stock']);
    expect(status.status).toBe(200);
    expect(status.body.jobs['sync-stock']).toMatchObject({ job: 'sync-stock', running: false, run: { outcome: 'published' } });
  });

  it('shows the login form, and answers a wrong token with 401 and the form again', async () => {
    const { app } = createAdmin();

    const form = await request(app).get('/admin').set('accept', HTML).set('accept-language', 'cs');
    const wrong = await request(app).post('/admin/login').type('form').send({ token: 'guess' }).set('accept', HTML);

    expect(form.status).toBe(200);
    expect(form.text).toContain('<label for="admin-token">Token správce</label>');
    expect(form.text).toMatch(/<input type="password" id="admin-token" name="token"/);
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.text).toContain('id="admin-token"');
    expect(wrong.text).toContain('That token is not right');
  });

  it('sets an HttpOnly, SameSite=Strict session cookie for /admin with a bounded lifetime', async () => {
    const { app } = createAdmin({ now: () => new Date('2026-11-26T10:00:00Z') });

    const login = await request(app).post('/admin/login').type('form').send({ token: TOKEN });

    expect(login.status).toBe(303);
    expect(login.headers['location']).toBe('/admin');
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0] ?? '';
    expect(cookie).toMatch(/^cb_admin=v1\./);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/admin');
    expect(cookie).toContain('Max-Age=28800');
    expect(cookie).toContain('Expires=Thu, 26 Nov 2026 18:00:00 GMT');
    // Plain http without an https PUBLIC_BASE_URL: a Secure cookie would never come back.
    expect(cookie).not.toContain('Secure');
  });

  it('marks the cookie Secure when PUBLIC_BASE_URL is https', async () => {
    const { app } = createAdmin({ publicBaseUrl: 'https://bridge.example' });

    const login = await request(app).post('/admin/login').type('form').send({ token: TOKEN });

    expect((login.headers['set-cookie'] as unknown as string[])[0]).toContain('; Secure');
  });

  it('needs the CSRF token for a state change with the cookie', async () => {
    const { app, started } = createAdmin();
    const { cookie, csrf } = await signIn(app);

    const without = await request(app).post('/admin/sync').set('cookie', cookie).type('form').send({});
    const wrong = await request(app)
      .post('/admin/sync')
      .set('cookie', cookie)
      .type('form')
      .send({ csrf: `${csrf}x` });
    const otherSession = await request(app)
      .post('/admin/sync')
      .set('cookie', (await signIn(app)).cookie)
      .type('form')
      .send({ csrf });
    const right = await request(app).post('/admin/sync?job=stock').set('cookie', cookie).type('form').send({ csrf });

    expect(without.status).toBe(403);
    expect(without.body).toMatchObject({ error: { code: 'CSRF_FAILED' } });
    expect(wrong.status).toBe(403);
    expect(otherSession.status).toBe(403);
    expect(right.status).toBe(303);
    expect(right.headers['location']).toMatch(/^\/admin\/sync\/progress\?job=stock&run=\d+$/);
    expect(started).toEqual(['sync-stock']);
  });

  it('answers a browser without the CSRF token with a 403 page', async () => {
    const { app } = createAdmin();
    const { cookie } = await signIn(app);

    const res = await request(app).post('/admin/sync').set('cookie', cookie).set('accept', HTML).type('form').send({});

    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.text).toContain('<h1>Request refused</h1>');
    expect(res.text).toContain('href="/admin/sync?lang=cs"');
  });

  it('refuses a state change from another origin even with the right CSRF token', async () => {
    const { app, started } = createAdmin();
    const { cookie, csrf } = await signIn(app);

    const crossOrigin = await request(app)
      .post('/admin/sync')
      .set('cookie', cookie)
      .set('origin', 'https://evil.example')
      .type('form')
      .send({ csrf });
    const crossSite = await request(app)
      .post('/admin/sync')
      .set('cookie', cookie)
      .set('sec-fetch-site', 'cross-site')
      .type('form')
      .send({ csrf });
    const loginFromElsewhere = await request(app)
      .post('/admin/login')
      .set('origin', 'https://evil.example')
      .type('form')
      .send({ token: TOKEN });

    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.body).toMatchObject({ error: { code: 'CROSS_ORIGIN' } });
    expect(crossSite.status).toBe(403);
    expect(loginFromElsewhere.status).toBe(403);
    expect(loginFromElsewhere.headers['set-cookie']).toBeUndefined();
    expect(started).toEqual([]);
  });

  it('accepts a same-origin Origin header', async () => {
    const { app } = createAdmin();
    const { cookie, csrf } = await signIn(app);

    const res = await request(app)
      .post('/admin/sync')
      .set('cookie', cookie)
      .set('host', 'bridge.local:3000')
      .set('origin', 'http://bridge.local:3000')
      .set('sec-fetch-site', 'same-origin')
      .type('form')
      .send({ csrf });

    expect(res.status).toBe(303);
  });

  it('sends an expired session back to the login form', async () => {
    let now = new Date('2026-11-26T10:00:00Z');
    const { app } = createAdmin({ now: () => now });
    const { cookie } = await signIn(app);

    now = new Date('2026-11-26T17:59:00Z');
    const stillIn = await request(app).get('/admin/sync/status').set('cookie', cookie);
    now = new Date('2026-11-26T18:00:01Z');
    const page = await request(app).get('/admin').set('cookie', cookie).set('accept', HTML);
    const api = await request(app).get('/admin/sync/status').set('cookie', cookie);

    expect(stillIn.status).toBe(200);
    expect(page.status).toBe(401);
    expect(page.text).toContain('id="admin-token"');
    expect(page.text).toContain('Your session has ended');
    expect(api.status).toBe(401);
  });

  it('rejects a tampered cookie and a cookie signed under another ADMIN_TOKEN', async () => {
    const { app } = createAdmin();
    const { cookie } = await signIn(app);
    const [name, value = ''] = cookie.split('=');
    const [format, id = '', expires = '', signature = ''] = value.split('.');
    const longer = `${name}=${format}.${id}.${Number(expires) + 86_400}.${signature}`;
    const otherId = `${name}=${format}.${id.slice(1)}A.${expires}.${signature}`;
    const other = createAdmin({ token: 'another-admin-token' });

    for (const forged of [longer, otherId, `${name}=garbage`]) {
      const res = await request(app).get('/admin/sync/status').set('cookie', forged);
      expect(res.status).toBe(401);
    }
    expect((await request(other.app).get('/admin/sync/status').set('cookie', cookie)).status).toBe(401);
  });

  it('clears the cookie on logout', async () => {
    const { app } = createAdmin();
    const { cookie, csrf } = await signIn(app);

    const withoutCsrf = await request(app).post('/admin/logout').set('cookie', cookie).type('form').send({});
    const out = await request(app).post('/admin/logout').set('cookie', cookie).set('accept', HTML).type('form').send({ csrf });

    expect(withoutCsrf.status).toBe(403);
    expect(out.status).toBe(303);
    const cleared = (out.headers['set-cookie'] as unknown as string[])[0] ?? '';
    expect(cleared).toMatch(/^cb_admin=;/);
    expect(cleared).toContain('Max-Age=0');
    expect(cleared).toContain('Path=/admin');
  });

  it('stops trying tokens from one address after ten wrong ones', async () => {
    const { app } = createAdmin();

    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect(
        (
          await request(app)
            .post('/admin/login')
            .type('form')
            .send({ token: `guess-${attempt}` })
        ).status,
      ).toBe(401);
    }
    const blocked = await request(app).post('/admin/login').type('form').send({ token: TOKEN });

    expect(blocked.status).toBe(429);
    expect(blocked.headers['set-cookie']).toBeUndefined();
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('counts wrong bearer tokens as wrong logins: the API is no way around the limit', async () => {
    const { app } = createAdmin();

    for (let attempt = 0; attempt < 10; attempt += 1) {
      const guess = await request(app).get('/admin/sync/status').set('authorization', `Bearer guess-${attempt}`);
      expect(guess.status).toBe(401);
    }
    const api = await request(app).get('/admin/sync/status').set('authorization', `Bearer ${TOKEN}`);
    const form = await request(app).post('/admin/login').type('form').send({ token: TOKEN });

    expect(api.status).toBe(429);
    expect(api.body.error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(api.headers['retry-after'])).toBeGreaterThan(0);
    expect(form.status).toBe(429);
  });

  it('counts bearer tokens sent to GET /admin too: no page tells a right token from a wrong one past the limit', async () => {
    const { app } = createAdmin();

    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt += 1) {
      statuses.push((await request(app).get('/admin').set('authorization', `Bearer guess-${attempt}`)).status);
    }
    const right = await request(app).get('/admin').set('authorization', `Bearer ${TOKEN}`).set('accept', HTML);
    const api = await request(app).get('/admin/sync/status').set('authorization', `Bearer ${TOKEN}`);

    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);
    expect(right.status).toBe(429);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
    expect(api.status).toBe(429);
  });

  it('answers the admin area under its own spelling only: /ADMIN and /Admin are not it', async () => {
    const { app } = createAdmin();

    for (const path of ['/ADMIN/sync/status', '/Admin/sync/status', '/admin/SYNC/status']) {
      const answer = await request(app).get(path).set('authorization', `Bearer ${TOKEN}`);
      expect(answer.status, path).toBe(404);
    }
    expect((await request(app).get('/ADMIN').set('authorization', `Bearer ${TOKEN}`)).status).toBe(404);
    expect((await request(app).get('/admin/sync/status').set('authorization', `Bearer ${TOKEN}`)).status).toBe(200);
  });

  it('reads a malformed language cookie as no choice, not as a server error', async () => {
    const { app } = createAdmin();

    for (const cookie of ['cb_lang=%', 'cb_lang=%E0%A4%A', 'cb_lang=%00en']) {
      const page = await request(app).get('/admin').set('cookie', cookie).set('accept', HTML).set('accept-language', 'en');
      expect(page.status, cookie).toBe(200);
      expect(page.text, cookie).toContain('<form');
    }
    const english = await request(app).get('/admin').set('cookie', 'cb_lang=en').set('accept', HTML);
    expect(english.text).toContain('<html lang="en">');
  });
});
