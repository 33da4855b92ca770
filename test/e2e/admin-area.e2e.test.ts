import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { createTestConfig } from '../helpers/test-config.js';

const ADMIN = 'admin-token-for-the-admin-e2e';
const bearer = { authorization: `Bearer ${ADMIN}` };

interface AdminItem {
  id: string;
  name: string;
  ean?: string;
  plu?: number;
  internalIdentifier?: string;
  price?: number;
  purchasePrice?: number;
  avgPurchasePrice?: number;
}

interface AdminCatalog {
  version: string;
  internalVersion: string | null;
  currency: string;
  count: number;
  items: AdminItem[];
}

/** A money value as any public document could write it: `12.30`, `12,30`, `12.3`, not inside a longer number. */
function moneyPattern(value: number): RegExp {
  const [whole, cents = '00'] = value.toFixed(2).split('.');
  const short = cents.endsWith('0') ? `(?:${cents}|${cents[0]})` : cents;
  return new RegExp(`(?<![\\d.,])${whole}[.,]${short}(?![\\d])`);
}

describe('admin area against the sandbox POS', () => {
  let app: RunningApp;
  let catalog: AdminCatalog;

  beforeAll(async () => {
    app = await startApp(createTestConfig({ ADMIN_TOKEN: ADMIN, SANDBOX_ARTICLES: '150', SANDBOX_SALES_PER_MINUTE: '0' }), {
      logger: pino({ level: 'silent' }),
    });
    await app.initialSync;
    const res = await fetch(`${app.url}/admin/catalog.json`, { headers: bearer });
    expect(res.status).toBe(200);
    catalog = (await res.json()) as AdminCatalog;
  });

  afterAll(async () => {
    await app?.stop();
  });

  it('lists every served product with its purchase prices, privately', async () => {
    const res = await fetch(`${app.url}/admin/catalog.json`, { headers: bearer });
    await res.arrayBuffer();
    const snapshot = app.catalog.current();

    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(catalog.version).toBe(snapshot?.version);
    expect(catalog.internalVersion).toEqual(expect.any(String));
    expect(catalog.count).toBe(snapshot?.products.length);
    expect(catalog.items.map((item) => item.id)).toEqual(snapshot?.products.map((product) => product.id));
    const priced = catalog.items.filter((item) => item.purchasePrice !== undefined && item.purchasePrice > 0);
    expect(priced.length).toBeGreaterThan(catalog.count / 2);
    for (const item of catalog.items) {
      expect(
        Object.keys(item).every((key) =>
          ['id', 'name', 'ean', 'plu', 'internalIdentifier', 'price', 'purchasePrice', 'avgPurchasePrice'].includes(key),
        ),
      ).toBe(true);
    }
    const first = snapshot?.products[0];
    expect(catalog.items[0]).toMatchObject({ id: first?.id, name: first?.name, price: first?.aggregate.price });
  });

  it('gives the same as CSV (RFC 4180) and as the Excel download', async () => {
    const csv = await fetch(`${app.url}/admin/catalog.csv`, { headers: bearer });
    const text = await csv.text();
    const excelBytes = Buffer.from(
      await (await fetch(`${app.url}/admin/catalog.csv?profile=excel`, { headers: bearer })).arrayBuffer(),
    );
    const excel = excelBytes.toString('utf8');
    const bad = await fetch(`${app.url}/admin/catalog.csv?profile=pdf`, { headers: bearer });

    expect(csv.status).toBe(200);
    expect(csv.headers.get('cache-control')).toBe('private, no-store');
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('id,name,ean,plu,internalIdentifier,price,purchasePrice,avgPurchasePrice,currency');
    expect(lines.at(-1)).toBe('');
    expect(lines.length).toBe(catalog.count + 2);
    const item = catalog.items.find((entry) => entry.purchasePrice !== undefined && !/[",\r\n]/.test(entry.name));
    expect(item).toBeDefined();
    const row = lines.find((line) => line.startsWith(`${item?.id},`))?.split(',');
    expect(row?.[1]).toBe(item?.name);
    expect(row?.[6]).toBe(item?.purchasePrice?.toFixed(2));
    expect(excel.startsWith('\uFEFFid;name;')).toBe(true);
    expect(excel.split('\r\n').length).toBe(catalog.count + 2);
    expect(excel).toContain(`;${item?.purchasePrice?.toFixed(2).replace('.', ',')};`);
    expect(bad.status).toBe(400);
  });

  it('needs the admin token for the internal catalog', async () => {
    const none = await fetch(`${app.url}/admin/catalog.json`);
    const wrong = await fetch(`${app.url}/admin/catalog.csv`, { headers: { authorization: 'Bearer wrong' } });
    await Promise.all([none.arrayBuffer(), wrong.arrayBuffer()]);

    expect(none.status).toBe(401);
    expect(wrong.status).toBe(401);
  });

  it('never shows a purchase price on a public page, feed or API', async () => {
    const snapshot = app.catalog.current();
    const publicPrices = new Set(
      snapshot?.products.flatMap((product) =>
        [product.aggregate, ...product.offers].flatMap((offer) => [offer.price, offer.salePrice, offer.standardPrice]),
      ),
    );
    // Values no public price has by chance: those must then appear nowhere public.
    const secret = catalog.items
      .flatMap((item) => [item.purchasePrice, item.avgPurchasePrice])
      .filter((value): value is number => value !== undefined && value > 0 && !publicPrices.has(value))
      .filter((value) => !Number.isInteger(value))
      .slice(0, 20);
    expect(secret.length).toBeGreaterThan(5);
    // The check can fail: the admin's own document shows every one of them.
    const adminBody = await (await fetch(`${app.url}/admin/catalog.csv?profile=excel`, { headers: bearer })).text();
    for (const value of secret) expect(adminBody).toMatch(moneyPattern(value));
    const name = snapshot?.products[0]?.name ?? '';
    const paths = [
      '/',
      '/feeds',
      `/products?q=${encodeURIComponent(name)}`,
      `/api/products?q=${encodeURIComponent(name)}`,
      `/api/products/${encodeURIComponent(snapshot?.products[0]?.id ?? '')}`,
      '/feeds/all/products.json',
      '/feeds/all/products.csv',
      '/feeds/all/products.csv?profile=excel',
      '/feeds/U1/products.json',
      '/feeds/all/google.xml',
      '/feeds/all/heureka.xml',
      '/feeds/all/zbozi.xml',
      '/feeds/all/meta.csv',
      '/feeds/all/shoptet.xml',
      '/feeds/all/woocommerce.csv',
      '/readyz',
    ];
    let checked = 0;
    for (const path of paths) {
      const res = await fetch(`${app.url}${path}`, { headers: { accept: 'text/html,application/json;q=0.9,*/*;q=0.8' } });
      const body = await res.text();
      // Pages another part of the console adds may not exist on every branch; what exists is checked.
      if (res.status === 404) continue;
      checked += 1;
      expect(res.status, path).toBeLessThan(400);
      expect(body, path).not.toMatch(/purchase|nákupní/i);
      expect(body, path).not.toMatch(/\/admin\/(?:sync|catalog)/);
      for (const value of secret) expect(body, `${path} shows ${value}`).not.toMatch(moneyPattern(value));
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('runs a sync from a browser session and shows its report on the progress page', async () => {
    const login = await fetch(`${app.url}/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
      body: new URLSearchParams({ token: ADMIN }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const home = await (await fetch(`${app.url}/admin`, { headers: { cookie, accept: 'text/html' } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(home)?.[1] ?? '';
    expect(home).toContain('/admin/catalog.csv');

    const run = await fetch(`${app.url}/admin/sync?wait=true`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
      body: new URLSearchParams({ csrf }),
    });
    const report = (await run.json()) as { outcome: string; version: string };
    const progress = await fetch(`${app.url}/admin/sync/progress?job=catalog`, { headers: { cookie, accept: 'text/html' } });
    const page = await progress.text();
    const status = (await (await fetch(`${app.url}/admin/sync/status`, { headers: bearer })).json()) as {
      jobs: Record<string, { running: boolean; run?: { outcome?: string }; last?: { version?: string } }>;
    };

    expect(run.status).toBe(200);
    expect(report.outcome).toBe('unchanged');
    expect(progress.status).toBe(200);
    expect(page).toContain('unchanged');
    expect(page).toContain(report.version);
    expect(page).not.toContain('http-equiv="refresh"');
    expect(status.jobs['sync-catalog']).toMatchObject({
      running: false,
      run: { outcome: 'unchanged' },
      last: { version: report.version },
    });
  });
});
