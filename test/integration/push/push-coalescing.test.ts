import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app/start-app.js';
import { productCode } from '../../../src/core/feeds/to-feed-item.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import {
  eventually,
  externalPosEnv,
  type Fakes,
  holdCatalog,
  metaEntries,
  pieceItem,
  products,
  pushEnv,
  pushStatus,
  removeStores,
  sell,
  settled,
  shoptetItems,
  startExternalSandbox,
  startFakes,
  startPushApp,
  stockIn,
  storeUrl,
  wholePieces,
} from '../../helpers/push-kit.js';

/**
 * Issue 13, "Done when": coalescing (100 sales of one item → one update per channel, with the final state)
 * and a restart with updates pending sends each once (docs/decisions/0013-channel-push.md, sections 3 and 4).
 */

describe('push coalescing and restarts (Meta, Shoptet)', () => {
  let app: RunningApp | undefined;
  let fakes: Fakes | undefined;
  let sandbox: RunningSandbox | undefined;
  const releases: (() => void)[] = [];

  afterEach(async () => {
    for (const release of releases.splice(0)) release();
    await app?.stop();
    await sandbox?.stop();
    await fakes?.meta.close();
    await fakes?.shoptet.close();
    app = undefined;
    fakes = undefined;
    sandbox = undefined;
  });
  afterAll(removeStores);

  it('100 sales of one item while the channels are busy send one update per channel, with the final state', async () => {
    fakes = await startFakes();
    const { meta: metaServer, shoptet: shoptetServer } = fakes;
    // Both channels hang on their first request (the start's reconciliation): each worker waits for its answer.
    const meta = metaServer.faults.hold();
    const shoptet = shoptetServer.faults.hold();
    releases.push(meta.release, shoptet.release);
    app = await startPushApp(pushEnv(fakes, storeUrl(), { SANDBOX_ARTICLES: '30' }));
    const running = app;
    holdCatalog(app, fakes);
    await eventually(
      () => metaServer.requests.length > 0 && shoptetServer.requests.length > 0,
      (both) => both,
    );
    const item = pieceItem(app, 100);

    // 99 sales of one piece each, then one sale per unit of what is left there: at least 100 sales, out of stock.
    const left = new Map(item.offers.map((offer) => [offer.unit, offer.stock ?? 0]));
    let sales = 0;
    for (; sales < 99; sales++) {
      const [unit] = [...left].reduce((most, entry) => (entry[1] > most[1] ? entry : most));
      await sell(running, item, unit, 1);
      left.set(unit, (left.get(unit) ?? 0) - 1);
    }
    for (const [unit, stock] of left) {
      if (stock <= 0) continue;
      await sell(running, item, unit, stock);
      sales += 1;
    }
    expect(sales).toBeGreaterThanOrEqual(100);
    expect(
      await eventually(
        () => stockIn(running, item.id, 'all'),
        (stock) => stock === 0,
      ),
    ).toBe(0);
    // The change is enqueued once the version is served; a status refresh later it shows as pending.
    const pending = async () => {
      const push = await pushStatus(running);
      return (push['meta']?.pending ?? 0) > 0 && (push['shoptet']?.pending ?? 0) > 0;
    };
    expect(await eventually(pending, (yes) => yes)).toBe(true);
    meta.release();
    shoptet.release();
    await settled(app);

    // After the held request (the reconciliation, from before the sales), the item went out once per channel.
    const code = productCode(item);
    const metaOfItem = metaEntries(metaServer.requests.slice(1)).filter((entry) => entry.data['id'] === item.id);
    const shoptetOfItem = shoptetItems(shoptetServer.requests.slice(1)).filter((entry) => entry['productCode'] === code);
    // The row merged into the reconciliation's while it was in flight keeps its FULL bit (decision 0013, "Ack"):
    // the one update also re-sends price and sale price, of the same final state.
    expect(metaOfItem).toHaveLength(1);
    expect(metaOfItem[0]).toMatchObject({ method: 'UPDATE', data: { id: item.id, availability: 'out of stock' } });
    expect(shoptetOfItem).toEqual([{ productCode: code, realStock: 0 }]);
    // 100 sales go through the webhook receiver one by one: about 10 s alone, more on a loaded machine.
  }, 45_000);

  it('a restart with updates pending sends each pending target exactly once', async () => {
    fakes = await startFakes();
    sandbox = await startExternalSandbox();
    const store = storeUrl();
    // Links and a brand, so every item is in the Meta feed (a reconciliation skips the ones it leaves out).
    const links = {
      FEED_PRODUCT_URL: 'https://shop.example/p/{id}',
      FEED_IMAGE_URL: 'https://shop.example/i/{id}.jpg',
      FEED_BRAND: 'Bridge Test',
    };
    const env = { ...pushEnv(fakes, store), ...externalPosEnv(sandbox), ...links };
    const pos = sandbox;
    async function boot(extra: Record<string, string> = {}): Promise<RunningApp> {
      const started = await startPushApp({ ...env, ...extra });
      pos.setWebhookUrl(`${started.url}/webhooks/pos`);
      return started;
    }

    // First run, both channels paused: the start's reconciliation of every target, a sell-out and a partial sale
    // stay pending; then a clean stop.
    app = await boot({ PUSH_PAUSED: 'meta,shoptet' });
    const paused = app;
    holdCatalog(app, fakes);
    const soldOut = pieceItem(app, 1);
    const partly = products(app).find((product) => product.id !== soldOut.id && (wholePieces(product) ?? 0) >= 3);
    if (partly === undefined) throw new Error('a second item with pieces expected');
    for (const offer of soldOut.offers) {
      if ((offer.stock ?? 0) > 0)
        await pos.makeSale({ unitCode: offer.unit, lines: [{ localId: soldOut.id, count: offer.stock ?? 0 }] });
    }
    const unit = partly.offers.find((offer) => (offer.stock ?? 0) >= 1)?.unit ?? 'U1';
    await pos.makeSale({ unitCode: unit, lines: [{ localId: partly.id, count: 1 }] });
    const partlyLeft = (partly.aggregate.stock ?? 0) - 1;
    await eventually(
      () => [stockIn(paused, soldOut.id, 'all'), stockIn(paused, partly.id, 'all')].join(),
      (stocks) => stocks === `0,${partlyLeft}`,
    );
    const targets = products(app).length;
    const shoptetTargets = products(app).filter((product) => product.offers.length > 0).length;
    // A service or an unknown stock sends nothing to Shoptet (its row is settled without a request).
    const shoptetSent = products(app).filter(
      (product) => product.isStockItem !== false && product.aggregate.stock !== undefined,
    ).length;
    // Everything is enqueued once the sales are served; a status refresh later it shows as pending.
    const pending = await eventually(
      () => pushStatus(paused),
      (push) => push['meta']?.pending === targets && push['shoptet']?.pending === shoptetTargets,
    );
    expect(pending['meta']).toMatchObject({ mode: 'paused', pending: targets });
    expect(pending['shoptet']).toMatchObject({ mode: 'paused', pending: shoptetTargets });
    expect(fakes.meta.requests.length + fakes.shoptet.requests.length).toBe(0);
    await app.stop();

    // Third run, not paused, channels healthy: each pending target is sent once.
    app = await boot();
    await eventually(
      () => shoptetItems(fakes?.shoptet.requests ?? []).length,
      (count) => count >= shoptetSent,
    );
    await settled(app);
    const meta = metaEntries(fakes.meta.requests);
    const shoptet = shoptetItems(fakes.shoptet.requests);
    // Every pending target exactly once: no duplicate, none lost.
    expect(meta.map((entry) => entry.data['id']).sort()).toEqual(
      products(app)
        .map((product) => product.id)
        .sort(),
    );
    expect(new Set(shoptet.map((entry) => entry['productCode'])).size).toBe(shoptet.length);
    expect(shoptet).toHaveLength(shoptetSent);
    // With the state the POS holds now (the sales of the paused run).
    expect(meta.find((entry) => entry.data['id'] === soldOut.id)?.data['availability']).toBe('out of stock');
    expect(shoptet).toContainEqual({ productCode: productCode(soldOut), realStock: 0 });
    expect(shoptet).toContainEqual({ productCode: productCode(partly), realStock: partlyLeft });
    // Two starts of the app and their syncs: more than the project's 30 s on a loaded machine.
  }, 60_000);
});
