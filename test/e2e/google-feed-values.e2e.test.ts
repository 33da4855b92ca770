import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleParts } from '../../src/app/push-channel-parts.js';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import type { Config } from '../../src/config/load-config.js';
import type { CatalogSnapshot } from '../../src/core/catalog/catalog.js';
import { toFeedItem } from '../../src/core/feeds/to-feed-item.js';
import { toAmountMicros } from '../../src/core/push/money-micros.js';
import { PUSH_MASK } from '../../src/core/push/outbox.js';
import type { GooglePayload } from '../../src/core/push/target-payloads.js';
import { createTestConfig } from '../helpers/test-config.js';

/**
 * What the bridge pushes to Google is what its served feeds say (decision 0013, section 1): with a stock
 * policy that changes availability (`google:outOfStockBelow=25`), the product payloads built for sandbox
 * items carry the served `google.xml` item's price, sale price and availability (money as exact micros of the
 * feed's text), and the local inventory payloads the `local-inventory.tsv` row of their store.
 */

const SILENT = pino({ level: 'silent' });
const STORE_OF: Record<string, string> = { U1: 'praha-1', U2: 'brno', U3: 'ostrava' };
const dir = mkdtempSync(join(tmpdir(), 'google-feed-values-'));

let app: RunningApp;
let config: Config;
let snapshot: CatalogSnapshot;

async function served(path: string): Promise<string> {
  const response = await fetch(`${app.url}${path}`);
  expect(response.status).toBe(200);
  return response.text();
}

/** `"129.00 CZK"` as the Merchant API's price. */
function micros(text: string | undefined) {
  if (text === undefined) return undefined;
  const [amount = '', currencyCode] = text.split(' ');
  return { amountMicros: toAmountMicros(Number(amount)), currencyCode };
}

const AVAILABILITY: Record<string, string> = {
  in_stock: 'IN_STOCK',
  out_of_stock: 'OUT_OF_STOCK',
  'in stock': 'IN_STOCK',
  'out of stock': 'OUT_OF_STOCK',
  'limited availability': 'LIMITED_AVAILABILITY',
};

beforeAll(async () => {
  const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
  const keyFile = join(dir, 'key.json');
  writeFileSync(
    keyFile,
    JSON.stringify({ type: 'service_account', client_email: 'a@b.iam.gserviceaccount.com', private_key: pem }),
  );
  config = createTestConfig({
    SANDBOX_ARTICLES: '60',
    SANDBOX_SALES_PER_MINUTE: '0',
    STOCK_SYNC_CRON: '0 0 1 1 *',
    CATALOG_SYNC_CRON: '0 0 1 1 *',
    FEED_STOCK_POLICY: 'google:outOfStockBelow=25',
    UNIT_STORE_CODES: 'U1=praha-1,U2=brno,U3=ostrava',
    // Dry run: the payload builders exist, nothing leaves the machine.
    PUSH_DRY_RUN: 'true',
    GOOGLE_MERCHANT_ACCOUNT_ID: '123',
    GOOGLE_MERCHANT_DATA_SOURCE_ID: '456',
    GOOGLE_APPLICATION_CREDENTIALS: keyFile,
    GOOGLE_MERCHANT_API_URL: 'http://127.0.0.1:1',
  });
  app = await startApp(config, { logger: SILENT });
  await app.initialSync;
  const current = app.catalog.current();
  if (current === undefined) throw new Error('no catalog');
  snapshot = current;
});

afterAll(async () => {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
});

function parts() {
  const google = googleParts(config.push, config, {}, SILENT, app.feeds);
  if (google === undefined) throw new Error('Google not configured');
  return google;
}

describe('pushed Google values equal the served Google feeds', () => {
  it('an insert carries the google.xml item: price, sale price, availability (under the feed policy), title', async () => {
    const parser = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'item' });
    const rss = parser.parse(await served('/feeds/all/google.xml')) as { rss: { channel: { item: Record<string, string>[] } } };
    const items = rss.rss.channel.item;
    const google = parts();
    expect(items.length).toBeGreaterThan(5);
    let policyMattered = 0;
    let onSale = 0;
    for (const item of items) {
      const id = item['g:id'] ?? '';
      const result = google.buildPayload({ target: `p:${id}`, mask: PUSH_MASK.FULL }, snapshot);
      expect(result.kind).toBe('send');
      const payload = result.kind === 'send' ? (result.payload as GooglePayload) : undefined;
      if (payload?.kind !== 'product' || payload.request.method !== 'insert') throw new Error(`no insert for ${id}`);
      const attributes = payload.request.body.productAttributes;
      expect(attributes.price).toEqual(micros(item['g:price']));
      expect(attributes.salePrice).toEqual(micros(item['g:sale_price']));
      expect(attributes.availability).toBe(AVAILABILITY[item['g:availability'] ?? '']);
      expect(attributes.title).toBe(item['title']);
      if (item['g:sale_price'] !== undefined) onSale += 1;
      // A price patch reads the same feed values.
      const patch = google.buildPayload({ target: `p:${id}`, mask: PUSH_MASK.PRICE | PUSH_MASK.AVAIL }, snapshot);
      if (patch.kind === 'send' && (patch.payload as GooglePayload).kind === 'product') {
        const request = (patch.payload as Extract<GooglePayload, { kind: 'product' }>).request;
        if (request.method === 'patch') {
          expect(request.body.productAttributes.price).toEqual(micros(item['g:price']));
          expect(request.body.productAttributes.availability).toBe(AVAILABILITY[item['g:availability'] ?? '']);
        }
      }
      const product = snapshot.products.find((candidate) => candidate.id === id);
      const plain = product === undefined ? undefined : toFeedItem(product, 'all', { storeCodes: {}, unitNames: new Map() });
      if (plain?.availability === 'in_stock' && attributes.availability === 'OUT_OF_STOCK') policyMattered += 1;
    }
    // The sandbox has items with 1 to 24 pieces: the policy made a difference the plain item does not see.
    expect(policyMattered).toBeGreaterThan(0);
    expect(onSale).toBeGreaterThan(0);
    // An item the feed leaves out is not inserted (skipped, counted as such by the worker).
    const inFeed = new Set(items.map((item) => item['g:id']));
    const leftOut = snapshot.products.filter((candidate) => !inFeed.has(candidate.id));
    for (const product of leftOut.slice(0, 5)) {
      expect(google.buildPayload({ target: `p:${product.id}`, mask: PUSH_MASK.FULL }, snapshot).kind).toBe('skip');
    }
  });

  it('local inventory carries the local-inventory.tsv row of its store (availability, quantity, prices)', async () => {
    const text = await served('/feeds/local-inventory.tsv');
    const [head = '', ...lines] = text.split('\n').filter((line) => line !== '');
    const headers = head.replace(/^\uFEFF/, '').split('\t');
    const rows = lines.map((line) => Object.fromEntries(line.split('\t').map((cell, index) => [headers[index] ?? '', cell])));
    const unitOf = Object.fromEntries(Object.entries(STORE_OF).map(([unit, store]) => [store, unit]));
    const google = parts();
    expect(rows.length).toBeGreaterThan(5);
    const kinds = new Set<string>();
    for (const row of rows) {
      const unit = unitOf[row['store_code'] ?? ''];
      const result = google.buildPayload({ target: `l:${row['id']}:${unit}`, mask: PUSH_MASK.STOCK }, snapshot);
      const payload = result.kind === 'send' ? (result.payload as GooglePayload) : undefined;
      if (payload?.kind !== 'local') throw new Error(`no local inventory for ${row['id']} at ${row['store_code']}`);
      const attributes = payload.inventory.localInventoryAttributes;
      expect(payload.inventory.storeCode).toBe(row['store_code']);
      expect(attributes.availability).toBe(AVAILABILITY[row['availability'] ?? '']);
      expect(attributes.quantity).toBe(row['quantity'] === '' ? undefined : row['quantity']);
      expect(attributes.price).toEqual(micros(row['price'] === '' ? undefined : row['price']));
      expect(attributes.salePrice).toEqual(micros(row['sale_price'] === '' ? undefined : row['sale_price']));
      kinds.add(attributes.availability);
    }
    // The local feed's own policy (1-2 pieces: limited availability) shows in the payloads.
    expect(kinds.has('LIMITED_AVAILABILITY') || kinds.has('OUT_OF_STOCK')).toBe(true);
  });
});
