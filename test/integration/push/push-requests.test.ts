import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RunningApp } from '../../../src/app/start-app.js';
import { productCode } from '../../../src/core/feeds/to-feed-item.js';
import {
  closeFakes,
  eventually,
  type Fakes,
  holdCatalog,
  metaEntries,
  pieceItem,
  products,
  pushEnv,
  removeStores,
  sandboxCall,
  sell,
  served,
  settled,
  shoptetItems,
  startFakes,
  startPushApp,
  stockIn,
  storeUrl,
  wholePieces,
} from '../../helpers/push-kit.js';

/**
 * Issue 13, "Done when": the exact requests Meta and Shoptet receive for a sale and a price change, through
 * the real app on the sandbox POS (docs/channel-push.md). The fakes validate every request against the
 * channel's documented shape; these tests pin what is in them.
 */

describe('push requests for a sale and a price change (Meta, Shoptet)', () => {
  let app: RunningApp | undefined;
  let fakes: Fakes | undefined;
  let shared: Promise<{ app: RunningApp; fakes: Fakes }> | undefined;

  afterEach(async () => {
    await app?.stop();
    await closeFakes(fakes);
    app = undefined;
    fakes = undefined;
  });
  afterAll(async () => {
    const started = await shared;
    await started?.app.stop();
    await closeFakes(started?.fakes);
    removeStores();
  });

  async function startOn(extra: Record<string, string>): Promise<{ app: RunningApp; fakes: Fakes }> {
    const started = await startFakes();
    const running = await startPushApp(pushEnv(started, storeUrl(), extra));
    // The first start reconciles every target; the tests look at what comes after.
    await settled(running);
    return { app: running, fakes: started };
  }

  /** A test with settings of its own: its app and fakes, stopped after it. */
  async function start(extra: Record<string, string>): Promise<{ app: RunningApp; fakes: Fakes }> {
    ({ app, fakes } = await startOn(extra));
    return { app, fakes };
  }

  /**
   * The sale, the sell-out and the removed item share one app (a brand, so every item is in the Meta feed):
   * each picks its items from the catalog as it is now, looks only at the requests after its own action, and
   * ends settled. The price change has its own: it checks the whole item the fake Meta holds.
   */
  function sharedApp(): Promise<{ app: RunningApp; fakes: Fakes }> {
    shared ??= startOn({ FEED_BRAND: 'Bridge Test' });
    return shared;
  }

  it('a sale: Shoptet gets the new total as realStock; Meta, whose fields did not change, gets nothing', async () => {
    const { app, fakes } = await sharedApp();
    const item = pieceItem(app, 3);
    const unit = item.offers.find((offer) => (offer.stock ?? 0) >= 1)?.unit ?? 'U1';
    const total = stockIn(app, item.id, 'all') ?? 0;
    const from = holdCatalog(app, fakes);

    await sell(app, item, unit, 1);

    const code = productCode(item);
    const sent = () => shoptetItems(fakes.shoptet.requests.slice(from.shoptet));
    expect(await eventually(sent, (items) => items.length > 0)).toEqual([{ productCode: code, realStock: total - 1 }]);
    await settled(app);
    expect(sent()).toEqual([{ productCode: code, realStock: total - 1 }]);
    // Both channels' rows are enqueued together: Meta had its chance, and a stock count is not its field.
    expect(metaEntries(fakes.meta.requests.slice(from.meta))).toEqual([]);
    expect(fakes.shoptet.stock.get(code)).toEqual({ realStock: total - 1 });
  });

  it('a sell-out: Meta gets availability "out of stock" only, Shoptet realStock 0', async () => {
    const { app, fakes } = await sharedApp();
    const item = pieceItem(app, 2);
    const stocked = item.offers.filter((offer) => (offer.stock ?? 0) > 0);
    const last = stocked.at(-1);
    if (last === undefined) throw new Error('no stocked unit');
    // Every unit but the last is emptied first (its own updates), so the one sale under test sells out.
    for (const offer of stocked.slice(0, -1)) await sell(app, item, offer.unit, offer.stock ?? 0);
    await eventually(
      () => stockIn(app, item.id, 'all'),
      (stock) => stock === last.stock,
    );
    await settled(app);
    const from = holdCatalog(app, fakes);

    await sell(app, item, last.unit, last.stock ?? 0);

    const meta = () => metaEntries(fakes.meta.requests.slice(from.meta));
    expect(await eventually(meta, (entries) => entries.length > 0)).toEqual([
      { method: 'UPDATE', data: { id: item.id, availability: 'out of stock' } },
    ]);
    await settled(app);
    expect(meta()).toHaveLength(1);
    expect(shoptetItems(fakes.shoptet.requests.slice(from.shoptet))).toEqual([{ productCode: productCode(item), realStock: 0 }]);
    expect(fakes.meta.items.get(item.id)).toMatchObject({ id: item.id, availability: 'out of stock' });
  });

  it('a stock policy threshold (meta:outOfStockBelow=3): a sale from 3 to 2 pieces sends Meta "out of stock"', async () => {
    const { app, fakes } = await start({ FEED_STOCK_POLICY: 'meta:outOfStockBelow=3' });
    // An item the Meta feed lists as in stock (3 pieces or more), with the fewest pieces.
    const csv = await (await fetch(`${app.url}/feeds/all/meta.csv`)).text();
    const inStock = new Set(
      (parse(csv, { columns: true, bom: true }) as Record<string, string>[])
        .filter((row) => row['availability'] === 'in stock')
        .map((row) => row['id']),
    );
    const item = products(app)
      .filter((product) => inStock.has(product.id) && (wholePieces(product) ?? 0) >= 3)
      .sort((a, b) => (wholePieces(a) ?? 0) - (wholePieces(b) ?? 0))[0];
    if (item === undefined) throw new Error('no item in stock in the Meta feed');
    const from = holdCatalog(app, fakes);
    // Sold down to 2 pieces: still in stock in the catalog, out of stock in the Meta feed.
    let toSell = (wholePieces(item) ?? 0) - 2;
    for (const offer of item.offers) {
      const count = Math.min(toSell, Math.floor(offer.stock ?? 0));
      if (count <= 0) continue;
      await sell(app, item, offer.unit, count);
      toSell -= count;
    }
    await eventually(
      () => stockIn(app, item.id, 'all'),
      (stock) => stock !== undefined && Math.floor(stock) === 2,
    );
    expect(served(app, item.id).aggregate.availability).toBe('in_stock');
    const sent = () => metaEntries(fakes.meta.requests.slice(from.meta)).filter((entry) => entry.data['id'] === item.id);
    await eventually(sent, (entries) => entries.some((entry) => entry.data['availability'] === 'out of stock'));
    await settled(app);
    expect(sent().at(-1)).toEqual({ method: 'UPDATE', data: { id: item.id, availability: 'out of stock' } });
  });

  it('a price change: Meta gets the exact price ("15.99 CZK", "0.10 CZK"), Shoptet nothing', async () => {
    const { app, fakes } = await start({});
    // Items without a sale price anywhere: the new price is the only Meta field that changes.
    const [first, second] = products(app).filter((product) => product.offers.every((offer) => offer.salePrice === undefined));
    if (first === undefined || second === undefined) throw new Error('two items without a sale price expected');
    const from = holdCatalog(app, fakes);

    // The POS's assortment import changes the price; the next catalog sync publishes it.
    await sandboxCall(app, 'POST', '/assortment/import', [
      { localId: first.id, salesPrice: 15.99 },
      { localId: second.id, salesPrice: 0.1 },
    ]);
    await app.jobs.runNow('sync-catalog');

    const meta = () => metaEntries(fakes.meta.requests.slice(from.meta));
    await eventually(meta, (entries) => entries.length >= 2);
    await settled(app);
    const byId = (a: { data: Record<string, string> }, b: { data: Record<string, string> }) =>
      (a.data['id'] ?? '').localeCompare(b.data['id'] ?? '');
    expect(meta().sort(byId)).toEqual(
      [
        { method: 'UPDATE', data: { id: first.id, price: '15.99 CZK' } },
        { method: 'UPDATE', data: { id: second.id, price: '0.10 CZK' } },
      ].sort(byId),
    );
    expect(fakes.meta.items.get(first.id)).toEqual({ id: first.id, price: '15.99 CZK' });
    expect(shoptetItems(fakes.shoptet.requests.slice(from.shoptet))).toEqual([]);
  });

  it('SHOPTET_STOCK_UNIT=U2 with SHOPTET_STOCK_FIELD=quantity: only a U2 sale is sent, as quantity', async () => {
    const { app, fakes } = await start({ SHOPTET_STOCK_UNIT: 'U2', SHOPTET_STOCK_FIELD: 'quantity' });
    const item = products(app).find(
      (product) =>
        product.isStockItem !== false &&
        ['U1', 'U2'].every((unit) => {
          const stock = product.offers.find((offer) => offer.unit === unit)?.stock;
          return stock !== undefined && Number.isInteger(stock) && stock >= 2;
        }),
    );
    if (item === undefined) throw new Error('no item with pieces in U1 and U2');
    const code = productCode(item);
    const u2 = stockIn(app, item.id, 'U2') ?? 0;
    const from = holdCatalog(app, fakes);

    // A U1 sale changes U1 and `all`, not the U2 view Shoptet is told about.
    await sell(app, item, 'U1', 1);
    await eventually(
      () => stockIn(app, item.id, 'U1'),
      (stock) => stock === (item.offers.find((offer) => offer.unit === 'U1')?.stock ?? 0) - 1,
    );
    await sell(app, item, 'U2', 1);

    const sent = () => shoptetItems(fakes.shoptet.requests.slice(from.shoptet));
    expect(await eventually(sent, (items) => items.length > 0)).toEqual([{ productCode: code, quantity: u2 - 1 }]);
    await settled(app);
    expect(sent()).toEqual([{ productCode: code, quantity: u2 - 1 }]);
    expect(fakes.shoptet.stock.get(code)).toEqual({ quantity: u2 - 1 });
  });

  it('a removed item: Meta gets DELETE, Shoptet nothing; back again, a new item: Meta gets CREATE, Shoptet its stock', async () => {
    const { app, fakes } = await sharedApp();
    const item = pieceItem(app, 1);
    const code = productCode(item);
    let from = holdCatalog(app, fakes);

    // The sandbox takes the article out of its list (deleted in the POS); the next catalog sync publishes it.
    await sandboxCall(app, 'DELETE', `/sandbox/articles/${item.id}`);
    await app.jobs.runNow('sync-catalog');
    const meta = () => metaEntries(fakes.meta.requests.slice(from.meta));
    expect(await eventually(meta, (entries) => entries.length > 0)).toEqual([{ method: 'DELETE', data: { id: item.id } }]);
    await settled(app);
    expect(meta()).toHaveLength(1);
    // Shoptet's stock endpoint cannot delete a product: the shop owns it.
    expect(shoptetItems(fakes.shoptet.requests.slice(from.shoptet))).toEqual([]);
    expect(fakes.meta.items.has(item.id)).toBe(false);

    from = holdCatalog(app, fakes);
    await sandboxCall(app, 'PUT', `/sandbox/articles/${item.id}`);
    await app.jobs.runNow('sync-catalog');
    const created = await eventually(meta, (entries) => entries.length > 0);
    await settled(app);
    const product = served(app, item.id);
    const price = product.aggregate.price ?? 0;
    expect(created).toEqual([
      {
        method: 'CREATE',
        data: {
          id: item.id,
          title: item.name,
          description: item.name,
          availability: 'in stock',
          condition: 'new',
          price: `${price.toFixed(2)} CZK`,
          ...(product.aggregate.salePrice === undefined ? {} : { sale_price: `${product.aggregate.salePrice.toFixed(2)} CZK` }),
          link: expect.stringContaining(`/sandbox/products/${item.id}`),
          image_link: expect.stringContaining(`/sandbox/images/${item.id}.png`),
          brand: 'Bridge Test',
          ...(item.ean === undefined ? {} : { gtin: item.ean }),
        },
      },
    ]);
    expect(meta()).toHaveLength(1);
    expect(shoptetItems(fakes.shoptet.requests.slice(from.shoptet))).toEqual([
      { productCode: code, realStock: stockIn(app, item.id, 'all') },
    ]);
  });
});
