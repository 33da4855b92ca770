import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncRoutes } from '../../../src/http/console/sync-routes.js';

/** The sync history's routes while the store does not answer (the real app's runs are in test/e2e). */
describe('sync history routes with the store down', () => {
  let server: ReturnType<ReturnType<typeof express>['listen']>;
  let url = '';

  beforeAll(async () => {
    const app = express();
    app.use(
      createSyncRoutes({
        token: undefined,
        history: () => Promise.reject(new Error('connect ECONNREFUSED')),
        run: () => Promise.reject(new Error('connect ECONNREFUSED')),
        timeZone: 'UTC',
      }),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each(['/api/syncs', '/api/syncs/catalog-20261126T105903Z-a1b2c3'])('answers %s with 503 STORE_UNAVAILABLE', async (path) => {
    const response = await fetch(`${url}${path}`);

    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('STORE_UNAVAILABLE');
    expect(body.error.message).toContain('ECONNREFUSED');
  });

  it('says so on the page, which reloads by itself', async () => {
    const response = await fetch(`${url}/syncs?lang=cs`);
    const page = await response.text();

    expect(response.status).toBe(503);
    expect(page).toContain('Úložiště neodpovídá a historie je uložena v něm.');
    expect(page).toContain('<meta http-equiv="refresh" content="30">');
  });
});
