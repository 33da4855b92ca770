import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { type MetaServer, metaErrorBody, startMetaServer } from '../fakes/channels/meta-server.js';
import { eventually } from '../helpers/push-kit.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * The push's status for operators (docs/channel-push.md#status-and-metrics): the overview's "Channel push"
 * section in both languages, the warnings (a refused token → PUSH_AUTH_FAILED), `/metrics`, the status JSON,
 * and the last error kept across a restart. The real app on the sandbox, Meta as the fake Graph API.
 */

const META_TOKEN = 'meta-token-status-0123456789';
const CATALOG_ID = '123456789';
const REFUSED = 'Invalid OAuth access token.';

const dir = mkdtempSync(join(tmpdir(), 'channel-push-status-'));
let stores = 0;
const newStore = () => `sqlite://${join(dir, `catalog-${++stores}.sqlite`)}`;

function config(meta: MetaServer, store: string, extra: Record<string, string> = {}) {
  return createTestConfig({
    STORE_URL: store,
    SANDBOX_ARTICLES: '30',
    SANDBOX_SALES_PER_MINUTE: '0',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    META_CATALOG_ID: CATALOG_ID,
    META_ACCESS_TOKEN: META_TOKEN,
    META_GRAPH_API_URL: meta.graphUrl,
    ...extra,
  });
}

interface WarningsAnswer {
  readonly warnings: readonly { code: string; severity: string; subject?: string; message: { en: string; cs: string } }[];
}

const text = (url: string) => fetch(url).then((response) => response.text());
const json = <T>(url: string) => fetch(url).then((response) => response.json() as Promise<T>);

describe('channel push status for operators', () => {
  let app: RunningApp | undefined;
  let meta: MetaServer | undefined;
  const logger = pino({ level: 'silent' });

  afterEach(async () => {
    await app?.stop();
    await meta?.close();
    app = undefined;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a refused token: PUSH_AUTH_FAILED, the channel message on the overview (cs, en), the series, kept across a restart', async () => {
    meta = await startMetaServer({ token: META_TOKEN, catalogId: CATALOG_ID, version: 'v23.0' });
    // Meta refuses the first call; its Retry-After keeps the error the newest news for the test's duration.
    meta.faults.failNext(1, { status: 401, retryAfter: '60', body: metaErrorBody(401, REFUSED) });
    const store = newStore();
    app = await startApp(config(meta, store), { logger });
    await app.initialSync;
    const url = app.url;

    const warnings = await eventually(
      () => json<WarningsAnswer>(`${url}/api/warnings`),
      (answer) => answer.warnings.some((warning) => warning.code === 'PUSH_AUTH_FAILED'),
    );
    const auth = warnings.warnings.find((warning) => warning.code === 'PUSH_AUTH_FAILED');
    expect(auth).toMatchObject({ severity: 'error', subject: 'meta' });
    expect(auth?.message.en).toContain(REFUSED);
    expect(auth?.message.cs).toContain(REFUSED);

    const english = await text(`${url}/?lang=en`);
    expect(english).toContain('<h2>Channel push</h2>');
    expect(english).toMatch(/<tr id="push-meta"><td>Meta<\/td><td><span class="push-mode-live">live<\/span>/);
    expect(english).toContain(REFUSED);
    expect(english).toContain('(credentials refused)');
    const czech = await text(`${url}/?lang=cs`);
    expect(czech).toContain('<h2>Odesílání do kanálů</h2>');
    expect(czech).toContain('ostrý provoz');
    expect(czech).toContain('(odmítnuté přihlašovací údaje)');
    expect(czech).toContain(REFUSED);

    const metrics = await eventually(
      () => text(`${url}/metrics`),
      (body) => /catalog_bridge_push_items_total\{channel="meta",outcome="retry"\} [1-9]/.test(body),
    );
    expect(metrics).toMatch(/catalog_bridge_push_items_total\{channel="meta",outcome="retry"\} [1-9]/);
    expect(metrics).toContain('catalog_bridge_push_items_total{channel="meta",outcome="ok"} 0');
    expect(metrics).toContain('catalog_bridge_push_paused{channel="meta"} 0');
    expect(metrics).toMatch(/catalog_bridge_push_pending\{channel="meta"\} [1-9]/);
    const feeds = await json<{ push?: Record<string, { lastErrorKind?: string }> }>(`${url}/feeds`);
    expect(feeds.push?.['meta']?.lastErrorKind).toBe('auth');
    await app.stop();

    // The next start (paused: it sends nothing) shows the last error from the store.
    app = await startApp(config(meta, store, { PUSH_PAUSED: 'meta' }), { logger });
    await app.initialSync;
    const restarted = app.url;
    const ready = await eventually(
      () => json<{ push?: Record<string, { mode: string; lastError?: string }> }>(`${restarted}/readyz`),
      (answer) => answer.push?.['meta']?.lastError !== undefined,
    );
    expect(ready.push?.['meta']).toMatchObject({ mode: 'paused', lastError: expect.stringContaining(REFUSED) });
    const afterRestart = await json<WarningsAnswer>(`${restarted}/api/warnings`);
    expect(afterRestart.warnings.map((warning) => warning.code)).toEqual(
      expect.arrayContaining(['PUSH_AUTH_FAILED', 'PUSH_PAUSED']),
    );
  });

  it('a healthy channel: last success and lag series, no error on the overview', async () => {
    meta = await startMetaServer({ token: META_TOKEN, catalogId: CATALOG_ID, version: 'v23.0' });
    app = await startApp(config(meta, newStore()), { logger });
    await app.initialSync;
    const url = app.url;
    // Meta's copy holds one item (it refuses updates of others); a sale of it is pushed and accepted.
    const item = app.catalog.current()?.products.find((product) => product.offers.some((offer) => (offer.stock ?? 0) >= 1));
    const offer = item?.offers.find((candidate) => (candidate.stock ?? 0) >= 1);
    if (item === undefined || offer === undefined) throw new Error('no item in stock');
    meta.items.set(item.id, { availability: 'in stock' });
    await app.sandbox?.makeSale({ unitCode: offer.unit, lines: [{ localId: item.id, count: 1 }] });
    const metrics = await eventually(
      () => text(`${url}/metrics`),
      (body) => /catalog_bridge_push_last_success_timestamp_seconds\{channel="meta"\} \d/.test(body),
    );
    expect(metrics).toMatch(/catalog_bridge_push_lag_seconds_count\{channel="meta"\} [1-9]/);
    expect(metrics).toMatch(/catalog_bridge_push_items_total\{channel="meta",outcome="(ok|rejected)"\} [1-9]/);
    const page = await text(`${url}/?lang=en`);
    expect(page).toContain('<h2>Channel push</h2>');
    // Items Meta does not hold were refused (history), but the channel does not fail now.
    expect(page).not.toContain('push-error failed');
  });

  it('shows no push section when no channel is configured', async () => {
    app = await startApp(createTestConfig({ STORE_URL: newStore(), SANDBOX_ARTICLES: '10', SANDBOX_SALES_PER_MINUTE: '0' }), {
      logger,
    });
    await app.initialSync;
    const page = await text(`${app.url}/?lang=en`);
    expect(page).not.toContain('Channel push');
    expect(await text(`${app.url}/metrics`)).not.toContain('catalog_bridge_push_items_total{');
    expect((await json<Record<string, unknown>>(`${app.url}/feeds`))['push']).toBeUndefined();
  });
});
