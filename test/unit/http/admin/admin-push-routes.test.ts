import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { addAdminPushRoutes } from '../../../../src/http/admin/admin-push-routes.js';

let close: (() => Promise<void>) | undefined;

afterEach(async () => {
  await close?.();
  close = undefined;
});

/** The routes alone on 127.0.0.1 with no channel configured (the admin gate is not part of this test). */
async function serveWithoutChannels(): Promise<string> {
  const app = express();
  const router = express.Router();
  addAdminPushRoutes(router, { push: undefined, pausedSetting: [], sessions: undefined });
  app.use(router);
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('admin push routes without any channel', () => {
  it('answer 404 naming every channel family that enables the push (Google included)', async () => {
    const base = await serveWithoutChannels();
    const response = await fetch(`${base}/admin/push/google/pause`, { method: 'POST' });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('PUSH_UNKNOWN_CHANNEL');
    expect(body.error.message).toContain('GOOGLE_*, META_* or SHOPTET_*');
  });
});
