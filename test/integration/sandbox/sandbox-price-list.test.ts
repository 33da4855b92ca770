import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidEan13 } from '../../../src/sandbox/ean13.js';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { type Article, call, readAllArticles, startTestSandbox } from './sandbox-test-kit.js';

type ShopItem = Record<string, unknown>;

let sandbox: RunningSandbox;
let articles: Article[];

beforeAll(async () => {
  sandbox = await startTestSandbox({ articles: 400, units: 3 });
  articles = await readAllArticles(sandbox.url);
});
afterAll(async () => {
  await sandbox.stop();
});

/** Parses the feed keeping text as text, so codes like 0012 and prices like 10.00 stay as written. */
function parseFeed(xml: string): { root: string; items: ShopItem[] } {
  expect(XMLValidator.validate(xml)).toBe(true);
  const parser = new XMLParser({ parseTagValue: false, ignoreDeclaration: true, isArray: (name) => name === 'SHOPITEM' });
  const document = parser.parse(xml) as Record<string, { SHOPITEM?: ShopItem[] } | string>;
  const [root] = Object.keys(document);
  const body = document[root ?? ''];
  return { root: root ?? '', items: typeof body === 'object' ? (body.SHOPITEM ?? []) : [] };
}

async function fetchFeed(path: string): Promise<string> {
  const result = await call(`${sandbox.url}${path}`);
  expect(result.status).toBe(200);
  expect(result.headers['content-type']).toMatch(/^application\/xml/);
  return result.text;
}

function text(item: ShopItem, name: string): string | undefined {
  const value = item[name];
  return typeof value === 'string' ? value : undefined;
}

function amount(item: ShopItem): string | undefined {
  const stock = item.STOCK as { AMOUNT?: string } | undefined;
  return stock?.AMOUNT;
}

describe('sandbox/price list XML (4.5, Shoptet update-import form)', () => {
  it('is a well-formed SHOP document of SHOPITEMs keyed by internalIdentifier, else plu', async () => {
    const { root, items } = parseFeed(await fetchFeed('/unit/U1/price-list/export/eshop-update'));
    const byCode = new Map<string, Article>();
    for (const article of articles) byCode.set(article.internalIdentifier ?? String(article.plu), article);
    const sold = articles.filter((article) => article.isSalesItem !== false);
    const codes = items.map((item) => text(item, 'CODE'));
    const unmatched = codes.filter((code) => code === undefined || !byCode.has(code));

    expect(root).toBe('SHOP');
    expect(new Set(codes).size).toBe(codes.length);
    expect(unmatched).toHaveLength(2);
    expect(items.length).toBe(sold.length + 2);
    // Keys are mixed in one document: some items use the PLU because the article has no internalIdentifier.
    expect(codes.some((code) => code !== undefined && /^\d+$/.test(code) && byCode.has(code))).toBe(true);
    expect(codes.some((code) => code !== undefined && /^[A-Z]{3}-\d+$/.test(code))).toBe(true);
    // isSalesItem:false articles are not in the price list.
    for (const article of articles.filter((candidate) => candidate.isSalesItem === false)) {
      expect(codes).not.toContain(article.internalIdentifier ?? String(article.plu));
    }
  });

  it('has the EANs of the matched article (valid but for the few mistyped), and action < price < standard wherever present', async () => {
    const { items } = parseFeed(await fetchFeed('/unit/U2/price-list/export/eshop-update'));
    const byCode = new Map(articles.map((article) => [article.internalIdentifier ?? String(article.plu), article]));
    let actions = 0;
    let standards = 0;

    for (const item of items) {
      const ean = text(item, 'EAN');
      const article = byCode.get(text(item, 'CODE') ?? '');
      if (ean !== undefined) {
        expect(ean).toBe(article?.ean);
        // Mistyped at the till: every 97th article from the 12th (localIds count from a-100001).
        if (!isValidEan13(ean)) expect((Number(article?.localId.slice(2)) - 100_001) % 97, ean).toBe(11);
      }
      const price = Number(text(item, 'PRICE_VAT'));
      const action = text(item, 'ACTION_PRICE');
      const standard = text(item, 'STANDARD_PRICE');
      if (action !== undefined && action !== '') {
        actions += 1;
        expect(Number(action)).toBeLessThan(price);
      }
      if (standard !== undefined && standard !== '') {
        standards += 1;
        expect(Number(standard)).toBeGreaterThan(price);
      }
      for (const value of [text(item, 'PRICE_VAT'), text(item, 'PRICE'), action, standard]) {
        if (value !== undefined && value !== '') expect(value).toMatch(/^\d+\.\d{2}$/);
      }
    }
    expect(actions).toBeGreaterThan(0);
    expect(standards).toBeGreaterThan(0);
  });

  it('includes empty elements, net-only items, currency, 3-decimal stock, availability texts and varied child order', async () => {
    const xml = await fetchFeed('/unit/U1/price-list/export/eshop-update');
    const { items } = parseFeed(xml);
    const matched = items.filter((item) => text(item, 'NAME') !== undefined);

    expect(xml).toMatch(/<ACTION_PRICE\/>/);
    expect(xml).toMatch(/<STANDARD_PRICE\/>/);
    expect(items.some((item) => text(item, 'PRICE') !== undefined && text(item, 'PRICE_VAT') === undefined)).toBe(true);
    expect(items.every((item) => text(item, 'CURRENCY') === 'CZK')).toBe(true);
    const amounts = items.map(amount).filter((value) => value !== undefined);
    expect(amounts.every((value) => /^-?\d+\.\d{3}$/.test(value))).toBe(true);
    expect(amounts.some((value) => value.startsWith('-'))).toBe(true);
    expect(amounts.some((value) => !value.endsWith('.000'))).toBe(true);
    // Services have no stock element.
    expect(items.some((item) => text(item, 'NAME') !== undefined && item.STOCK === undefined)).toBe(true);
    expect(matched.every((item) => text(item, 'AVAILABILITY_IN_STOCK') && text(item, 'AVAILABILITY_OUT_OF_STOCK'))).toBe(true);
    const firstChildren = [...xml.matchAll(/<SHOPITEM>\s*<([A-Z_]+)/g)].map((match) => match[1]);
    expect(new Set(firstChildren).size).toBeGreaterThan(1);
  });

  it('escapes names with & < > " \' so they round-trip', async () => {
    const xml = await fetchFeed('/unit/U1/price-list/export/eshop-update');
    const { items } = parseFeed(xml);
    const decoder = new XMLParser({ parseTagValue: false, processEntities: true, isArray: (name) => name === 'SHOPITEM' });
    const decoded = (decoder.parse(xml) as { SHOP: { SHOPITEM: ShopItem[] } }).SHOP.SHOPITEM;
    const tricky = articles.filter((article) => article.isSalesItem !== false && /[&<>"']/.test(article.name));

    expect(items.length).toBe(decoded.length);
    expect(tricky.length).toBeGreaterThan(0);
    expect(xml).toContain('&amp;');
    const names = new Set(decoded.map((item) => text(item, 'NAME')));
    for (const article of tricky) expect(names).toContain(article.name);
  });

  it('gives each unit its own prices and stock', async () => {
    const first = parseFeed(await fetchFeed('/unit/U1/price-list/export/eshop-update')).items;
    const second = parseFeed(await fetchFeed('/unit/U2/price-list/export/eshop-update')).items;
    const secondByCode = new Map(second.map((item) => [text(item, 'CODE'), item]));
    let priceDiffers = 0;
    let stockDiffers = 0;

    for (const item of first) {
      const other = secondByCode.get(text(item, 'CODE'));
      if (other === undefined || text(item, 'PRICE_VAT') === undefined || text(other, 'PRICE_VAT') === undefined) continue;
      if (text(item, 'PRICE_VAT') !== text(other, 'PRICE_VAT')) priceDiffers += 1;
      if (amount(item) !== amount(other)) stockDiffers += 1;
    }
    expect(priceDiffers).toBeGreaterThan(0);
    expect(priceDiffers).toBeLessThan(first.length / 2);
    expect(stockDiffers).toBeGreaterThan(first.length / 2);
    // The first unit sells at the articles' salesPrice.
    const byCode = new Map(articles.map((article) => [article.internalIdentifier ?? String(article.plu), article]));
    for (const item of first) {
      const article = byCode.get(text(item, 'CODE') ?? '');
      if (article !== undefined && text(item, 'PRICE_VAT') !== undefined)
        expect(Number(text(item, 'PRICE_VAT'))).toBe(article.salesPrice);
    }
  });

  it('accepts the unit localId or code, with or without /ext, and the shoptet-update alias', async () => {
    const units = (
      await call(`${sandbox.url}/ext/unit/list`, {
        method: 'POST',
        headers: { 'x-api-key': 'test-key-123', 'content-type': 'application/json' },
        body: '{}',
      })
    ).text;
    const localId = (JSON.parse(units) as { data: { items: { localId: string }[] } }).data.items[0]?.localId;
    const byCode = await fetchFeed('/unit/U1/price-list/export/eshop-update');

    expect(await fetchFeed(`/unit/${localId}/price-list/export/eshop-update`)).toBe(byCode);
    expect(await fetchFeed('/ext/unit/U1/price-list/export/eshop-update')).toBe(byCode);
    expect(await fetchFeed('/unit/U1/price-list/export/shoptet-update')).toBe(byCode);
  });

  it('answers 404 for an unknown unit', async () => {
    const result = await call(`${sandbox.url}/unit/U99/price-list/export/eshop-update`);

    expect(result.status).toBe(404);
    expect(JSON.parse(result.text)).toMatchObject({ isValid: false, errors: [expect.stringContaining('U99')] });
  });
});
