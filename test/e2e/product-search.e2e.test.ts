import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { createTestConfig } from '../helpers/test-config.js';

const logger = pino({ level: 'silent' });

interface FeedItem {
  readonly id: string;
  readonly name: string;
  readonly ean?: string;
}

interface SearchItem {
  readonly id: string;
  readonly name: string;
  readonly matchedBy: string;
  readonly url: string;
}

/** The name as someone types it on a keyboard without Czech letters. */
const withoutDiacritics = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '');

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

describe('product search against the sandbox', () => {
  let app: RunningApp;
  let product: FeedItem & { readonly ean: string };

  beforeAll(async () => {
    app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '120', SANDBOX_SALES_PER_MINUTE: '0' }), { logger });
    await app.initialSync;
    const feed = (await (await fetch(`${app.url}/feeds/all/products.json`)).json()) as { items: FeedItem[] };
    // A Czech name with diacritics (the sandbox's names are), and an EAN.
    const found = feed.items.find((item) => item.ean !== undefined && withoutDiacritics(item.name) !== item.name);
    if (found?.ean === undefined) throw new Error('the sandbox catalog has no product with diacritics in its name and an EAN');
    product = { ...found, ean: found.ean };
  });
  afterAll(() => app?.stop());

  async function search(q: string): Promise<{ status: number; body: { total: number; items: SearchItem[] } }> {
    const res = await fetch(`${app.url}/api/products?q=${encodeURIComponent(q)}&limit=100`);
    return { status: res.status, body: (await res.json()) as { total: number; items: SearchItem[] } };
  }

  it('finds a product by its name typed without diacritics, in lower case', async () => {
    const query = withoutDiacritics(product.name).toLowerCase();

    const { status, body } = await search(query);

    expect(query).not.toBe(product.name.toLowerCase());
    expect(status).toBe(200);
    expect(body.items).toContainEqual(
      expect.objectContaining({ id: product.id, name: product.name, matchedBy: 'name', url: `/api/products/${product.id}` }),
    );
  });

  it('finds a product by its EAN, first', async () => {
    const { body } = await search(product.ean);

    expect(body.items[0]).toMatchObject({ id: product.id, matchedBy: 'ean' });
  });

  it('shows both on the console page, each product linked to its page', async () => {
    const byName = await fetch(`${app.url}/products?q=${encodeURIComponent(withoutDiacritics(product.name))}&lang=en`);
    const byEan = await fetch(`${app.url}/products?q=${product.ean}&lang=en`);
    const link = `<a href="/products/${product.id}">${escapeHtml(product.name)}</a>`;

    expect(byName.status).toBe(200);
    expect(await byName.text()).toContain(link);
    expect(byEan.status).toBe(200);
    const eanPage = await byEan.text();
    expect(eanPage).toContain(`${link} <span class="muted">(found by EAN)</span>`);
    expect(eanPage).toMatch(/<p role="status">1 product found\.|<p role="status">\d+ products found\./);
  });
});
