import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createAdminRoutes } from '../../../src/http/admin/admin-routes.js';
import type { JobOutcome } from '../../../src/jobs/scheduler.js';
import type { SyncJob, SyncReport } from '../../../src/services/catalog/catalog-service.js';

const TOKEN = 'admin-secret-for-sync-tests';
const HTML = 'text/html,application/xhtml+xml';

interface Deferred {
  resolve(outcome: JobOutcome): void;
  reject(error: Error): void;
}

function createAdmin(options: { phase?: string } = {}) {
  const pending: Deferred[] = [];
  let now = new Date('2026-11-26T10:00:00Z');
  let lastReport: SyncReport | undefined;
  const app = express();
  app.use(
    createAdminRoutes({
      token: TOKEN,
      loginDelayMs: 0,
      now: () => now,
      runJob: (_job: SyncJob) => new Promise<JobOutcome>((resolve, reject) => pending.push({ resolve, reject })),
      lastReport: () => lastReport,
      ...(options.phase === undefined ? {} : { phase: () => options.phase }),
      group: () => undefined,
    }),
  );
  return {
    app,
    pending,
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
    setLastReport(report: SyncReport) {
      lastReport = report;
    },
  };
}

async function signIn(app: express.Express): Promise<{ cookie: string; csrf: string }> {
  const login = await request(app).post('/admin/login').type('form').send({ token: TOKEN });
  const cookie = ((login.headers['set-cookie'] as unknown as string[])[0] ?? '').split(';')[0] ?? '';
  const page = await request(app).get('/admin').set('cookie', cookie).set('accept', HTML);
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '' };
}

const published: SyncReport = {
  job: 'sync-catalog',
  outcome: 'published',
  startedAt: '2026-11-26T10:00:00.000Z',
  finishedAt: '2026-11-26T10:00:12.000Z',
  durationMs: 12_000,
  version: 'v-20261126-new',
  products: 1234,
};

describe('admin area: a sync from the page and its progress', () => {
  it('follows a run from the button to its report: reloading while it runs, the report once done', async () => {
    const admin = createAdmin({ phase: 'sources' });
    const { cookie, csrf } = await signIn(admin.app);

    const start = await request(admin.app)
      .post('/admin/sync?job=catalog')
      .set('cookie', cookie)
      .set('accept', HTML)
      .type('form')
      .send({ csrf });
    const location = start.headers['location'] ?? '';
    admin.advance(5_000);
    const running = await request(admin.app).get(location).set('cookie', cookie).set('accept', HTML);
    const status = await request(admin.app).get('/admin/sync/status').set('cookie', cookie);

    expect(start.status).toBe(303);
    expect(running.status).toBe(200);
    expect(running.text).toContain('<meta http-equiv="refresh" content="2">');
    expect(running.text).toContain('running now');
    expect(running.text).toContain('<code>sources</code>');
    expect(status.body.jobs['sync-catalog']).toMatchObject({
      running: true,
      runningSince: '2026-11-26T10:00:00.000Z',
      elapsedMs: 5_000,
      phase: 'sources',
    });
    expect(status.headers['cache-control']).toBe('private, no-store');

    admin.setLastReport(published);
    admin.pending[0]?.resolve({ job: 'sync-catalog', ok: true, startedAt: new Date(), durationMs: 12_000, result: published });
    await new Promise((resolve) => setImmediate(resolve));
    const done = await request(admin.app).get(location).set('cookie', cookie).set('accept', HTML).set('accept-language', 'cs');

    expect(done.text).not.toContain('http-equiv="refresh"');
    expect(done.text).toContain('zveřejněno');
    expect(done.text).toContain('v-20261126-new');
    expect(done.text).toMatch(/Produkty<\/th><td>1\s234/);
  });

  it('shows a run the leader could not be asked for as crashed, with its error', async () => {
    const admin = createAdmin();
    const auth = `Bearer ${TOKEN}`;

    await request(admin.app).post('/admin/sync?job=stock').set('authorization', auth);
    admin.pending[0]?.reject(new Error('no instance of the group leads now'));
    await new Promise((resolve) => setImmediate(resolve));
    const status = await request(admin.app).get('/admin/sync/status').set('authorization', auth);

    expect(status.body.jobs['sync-stock']).toMatchObject({
      running: false,
      run: { outcome: 'crashed', error: 'no instance of the group leads now' },
    });
  });

  it('answers bad progress queries with 400', async () => {
    const admin = createAdmin();
    const { cookie } = await signIn(admin.app);

    const res = await request(admin.app).get('/admin/sync/progress?job=all&run=-1').set('cookie', cookie);

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'BAD_REQUEST' } });
  });

  it('answers the internal catalog before the first catalog with 503', async () => {
    const admin = createAdmin();

    const res = await request(admin.app).get('/admin/catalog.json').set('authorization', `Bearer ${TOKEN}`);

    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: { code: 'CATALOG_NOT_READY' } });
  });
});
