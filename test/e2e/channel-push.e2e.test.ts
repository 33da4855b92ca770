import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../src/app/start-app.js';
import { productCode } from '../../src/core/feeds/to-feed-item.js';
import {
  closeFakes,
  eventually,
  type Fakes,
  META_TOKEN,
  pieceItem,
  pushEnv,
  removeStores,
  SHOPTET_TOKEN,
  sellOut,
  startFakes,
  startPushApp,
  storeUrl,
} from '../helpers/push-kit.js';

/**
 * The channel push end to end (docs/channel-push.md): the real app on the sandbox, Meta and Shoptet as the fake
 * servers that validate every request; a sale of an item's last pieces reaches both.
 */

/** The app on the sandbox (60 articles) pushing to both fakes. */
function start(fakes: Fakes, lines: Record<string, unknown>[], extra: Record<string, string> = {}): Promise<RunningApp> {
  return startPushApp(pushEnv(fakes, storeUrl(), { SANDBOX_ARTICLES: '60', ...extra }), lines);
}

describe('channel push against the sandbox and the fake Meta and Shoptet', () => {
  let app: RunningApp | undefined;
  let fakes: Fakes | undefined;
  const lines: Record<string, unknown>[] = [];

  afterEach(async () => {
    await app?.stop();
    await closeFakes(fakes);
    app = undefined;
    fakes = undefined;
    lines.length = 0;
  });

  afterAll(removeStores);

  it('pushes a sell-out to both channels: Meta out of stock, Shoptet stock 0', async () => {
    fakes = await startFakes();
    const { meta, shoptet } = fakes;
    app = await start(fakes, lines);
    const item = pieceItem(app);
    const code = productCode(item);
    // The shop holds the product (others answer unknown-product), with the stock it had before the sale.
    shoptet.stock.set(code, { realStock: 99 });
    // The shop and the Meta catalog hold the item (made from the feeds; unknown ones are refused).
    meta.items.set(item.id, { availability: 'in stock' });
    await sellOut(app, item);

    expect(await eventually(() => meta.items.get(item.id)?.['availability'], 'out of stock')).toBe('out of stock');
    expect(await eventually(() => shoptet.stock.get(code)?.realStock, 0)).toBe(0);
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as {
      push: Record<string, { enabled: boolean; mode: string; lastSuccessAt?: string }>;
    };
    expect(ready.push['meta']).toMatchObject({ enabled: true, mode: 'live' });
    expect(ready.push['shoptet']).toMatchObject({ enabled: true, mode: 'live' });
    // The counters follow the workers' status, refreshed in the background.
    const metrics = () => fetch(`${app?.url}/metrics`).then((response) => response.text());
    const sent = /catalog_bridge_push_requests_total\{channel="meta",outcome="ok"\} [1-9]/;
    expect(await eventually(async () => sent.test(await metrics()), true)).toBe(true);
    expect(await metrics()).toMatch(/catalog_bridge_push_pending\{channel="shoptet"\} \d+/);
    // The credentials never reach the logs.
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(META_TOKEN);
    expect(logged).not.toContain(SHOPTET_TOKEN);
  });

  it('in dry run sends nothing and logs what it would send', async () => {
    fakes = await startFakes();
    const { meta, shoptet } = fakes;
    app = await start(fakes, lines, { PUSH_DRY_RUN: 'true' });
    const item = pieceItem(app);
    const dryRuns = () => lines.filter((line) => line['msg'] === 'push dry run: not sent');
    const channels = () => new Set(dryRuns().map((line) => line['channel'])).size;
    expect(await eventually(channels, 2)).toBe(2);
    await sellOut(app, item);
    const logged = dryRuns().length;
    expect(await eventually(() => dryRuns().length > logged, true)).toBe(true);
    expect(meta.requests).toHaveLength(0);
    expect(shoptet.requests).toHaveLength(0);
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as { push: Record<string, { mode: string }> };
    expect(ready.push['meta']?.mode).toBe('dry-run');
  });

  it('sends nothing to a paused channel, and keeps its changes pending', async () => {
    fakes = await startFakes();
    const { meta, shoptet } = fakes;
    app = await start(fakes, lines, { PUSH_PAUSED: 'shoptet' });
    const item = pieceItem(app);
    shoptet.stock.set(productCode(item), { realStock: 99 });
    meta.items.set(item.id, { availability: 'in stock' });
    await sellOut(app, item);
    // Meta is live: once it has the sell-out, Shoptet had every chance to be sent it too.
    expect(await eventually(() => meta.items.get(item.id)?.['availability'], 'out of stock')).toBe('out of stock');
    const status = async () =>
      ((await (await fetch(`${app?.url}/readyz`)).json()) as { push: Record<string, { mode: string; pending: number }> }).push;
    expect(await eventually(async () => ((await status())['shoptet']?.pending ?? 0) > 0, true)).toBe(true);
    expect((await status())['shoptet']?.mode).toBe('paused');
    expect(shoptet.requests).toHaveLength(0);
    expect(shoptet.stock.get(productCode(item))?.realStock).toBe(99);
  });

  it('changes nothing when no channel is configured: no push status, no push metrics', async () => {
    app = await startPushApp({ STORE_URL: storeUrl(), SANDBOX_ARTICLES: '20', SANDBOX_SALES_PER_MINUTE: '0' }, lines);
    const ready = (await (await fetch(`${app.url}/readyz`)).json()) as Record<string, unknown>;
    expect(ready['push']).toBeUndefined();
    expect(await (await fetch(`${app.url}/metrics`)).text()).not.toMatch(/catalog_bridge_push_pending\{/);
  });
});
