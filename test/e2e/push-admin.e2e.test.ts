import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app/start-app.js';
import { productCode } from '../../src/core/feeds/to-feed-item.js';
import {
  ADMIN_TOKEN,
  admin,
  closeFakes,
  eventually,
  type Fakes,
  metaRequestsFor,
  pieceItem,
  pushEnv,
  pushStatus,
  removeStores,
  seedChannels,
  sellOut,
  startFakes,
  startPushApp,
  storeUrl,
} from '../helpers/push-kit.js';

/**
 * The push's kill switch through the admin area (docs/channel-push.md#operator-controls): pause and resume
 * per channel kept in the outbox (across a restart), PUSH_PAUSED refusing a resume, and the routes' auth.
 */

describe('push pause and resume through the admin area', () => {
  let app: RunningApp | undefined;
  let fakes: Fakes | undefined;

  afterEach(async () => {
    await app?.stop();
    await closeFakes(fakes);
    app = undefined;
    fakes = undefined;
  });

  afterAll(async () => {
    const started = await pausedByConfig;
    await started?.app.stop();
    await closeFakes(started?.fakes);
    removeStores();
  });

  /**
   * The two tests of an app started with PUSH_PAUSED=meta share it: the first changes nothing (every call is
   * refused), the second pauses Shoptet.
   */
  let pausedByConfig: Promise<{ app: RunningApp; fakes: Fakes }> | undefined;
  function startPausedByConfig(): Promise<{ app: RunningApp; fakes: Fakes }> {
    pausedByConfig ??= (async () => {
      const started = await startFakes();
      const running = await startPushApp(pushEnv(started, storeUrl(), { PUSH_PAUSED: 'meta' }), [], 'warn');
      seedChannels(running, started);
      return { app: running, fakes: started };
    })();
    return pausedByConfig;
  }

  async function start(store: string, extra: Record<string, string> = {}): Promise<RunningApp> {
    if (fakes === undefined) throw new Error('servers first');
    const started = await startPushApp(pushEnv(fakes, store, extra), [], 'warn');
    seedChannels(started, fakes);
    return started;
  }

  const modeOf = async (running: RunningApp, channel: string) => (await pushStatus(running))[channel]?.mode;

  it('keeps a pause across a restart, and sends the net state once on resume', async () => {
    fakes = await startFakes();
    const { meta, shoptet } = fakes;
    const store = storeUrl();
    app = await start(store);
    const paused = await admin(app, 'POST', '/admin/push/meta/pause');
    expect(paused.status).toBe(200);
    expect(await paused.json()).toEqual({ channel: 'meta', paused: true });
    expect(await modeOf(app, 'meta')).toBe('paused');
    await app.stop();

    // The same SQLite file: the pause holds (PUSH_PAUSED is empty), and nothing reaches Meta.
    app = await start(store);
    const running = app;
    expect(await eventually(() => modeOf(running, 'meta'), 'paused')).toBe('paused');
    const before = meta.requests.length;
    const item = pieceItem(running);
    await sellOut(running, item);
    // Shoptet is live: once it has the sale, Meta had every chance to be sent it too.
    expect(await eventually(() => shoptet.stock.get(productCode(item))?.realStock, 0)).toBe(0);
    expect(meta.requests.length).toBe(before);
    expect(await eventually(async () => ((await pushStatus(running))['meta']?.pending ?? 0) > 0, true)).toBe(true);

    const namedBefore = metaRequestsFor(meta, item.id);
    const resumed = await admin(running, 'POST', '/admin/push/meta/resume');
    expect(resumed.status).toBe(200);
    expect(await eventually(() => meta.items.get(item.id)?.['availability'], 'out of stock')).toBe('out of stock');
    expect(await eventually(async () => (await pushStatus(running))['meta']?.pending, 0)).toBe(0);
    expect(metaRequestsFor(meta, item.id) - namedBefore).toBe(1);
    expect(await modeOf(running, 'meta')).toBe('live');
  });

  it('refuses to resume a channel PUSH_PAUSED names (409), and names unknown channels (404)', async () => {
    const { app } = await startPausedByConfig();
    const refused = await admin(app, 'POST', '/admin/push/meta/resume');
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('PUSH_PAUSED_BY_CONFIG');
    expect(body.error.message).toContain('PUSH_PAUSED');
    expect(await modeOf(app, 'meta')).toBe('paused');

    const google = await admin(app, 'POST', '/admin/push/google/pause');
    expect(google.status).toBe(404);
    expect(((await google.json()) as { error: { message: string } }).error.message).toContain('google is not configured');
    const unknown = await admin(app, 'POST', '/admin/push/tiktok/resume');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain('"tiktok"');
    const reconcileUnknown = await admin(app, 'POST', '/admin/push/reconcile?channel=google');
    expect(reconcileUnknown.status).toBe(404);

    expect((await fetch(`${app.url}/admin/push/shoptet/pause`, { method: 'POST' })).status).toBe(401);
    expect((await admin(app, 'POST', '/admin/push/shoptet/pause', 'wrong-token-0123456789abcdef')).status).toBe(401);
    expect((await admin(app, 'GET', '/admin/push')).status).toBe(200);
    const listed = (await (await admin(app, 'GET', '/admin/push')).json()) as {
      channels: Record<string, { mode: string; pausedByConfig: boolean }>;
    };
    expect(listed.channels['meta']).toMatchObject({ mode: 'paused', pausedByConfig: true });
    expect(listed.channels['shoptet']).toMatchObject({ pausedByConfig: false });
  });

  it('serves the page to a signed-in browser and needs the CSRF token for its buttons', async () => {
    const { app } = await startPausedByConfig();
    const login = await fetch(`${app.url}/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
      body: new URLSearchParams({ token: ADMIN_TOKEN }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${app.url}/admin/push?lang=cs`, { headers: { cookie, accept: 'text/html' } })).text();
    expect(page).toContain('Odesílání do kanálů');
    expect(page).toContain('action="/admin/push/shoptet/pause"');
    // Meta is paused by PUSH_PAUSED: no resume button, the setting is named.
    expect(page).not.toContain('action="/admin/push/meta/resume"');
    expect(page).toContain('PUSH_PAUSED');
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const post = (body: Record<string, string>) =>
      fetch(`${app?.url}/admin/push/shoptet/pause`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: app?.url ?? '', accept: 'text/html' },
        body: new URLSearchParams(body),
        redirect: 'manual',
      });
    expect((await post({})).status).toBe(403);
    expect(await modeOf(app, 'shoptet')).not.toBe('paused');
    const done = await post({ csrf });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/admin/push?done=1');
    expect(await modeOf(app, 'shoptet')).toBe('paused');
    const english = await (await fetch(`${app.url}/admin/push?lang=en`, { headers: { cookie, accept: 'text/html' } })).text();
    expect(english).toContain('action="/admin/push/shoptet/resume"');
  });
});
