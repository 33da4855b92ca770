import { parse } from 'csv-parse/sync';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { parsePriceListXml } from '../../../../src/adapters/pos/price-list-xml.js';
import { type CollectedFeed, collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { CompiledFeed } from '../../../../src/core/feeds/compiled-feed.js';
import type { FeedContext, FeedItem } from '../../../../src/core/feeds/feed-item.js';
import { loadTemplates } from '../../../../src/core/feeds/load-templates.js';
import { productCode } from '../../../../src/core/feeds/to-feed-item.js';
import { FIXTURE_CONTEXT, FIXTURE_ITEMS, readTemplateFiles } from './feed-fixture.js';
import { exactXmlParser, strictXmlErrors } from './xml-test-helpers.js';

/**
 * The e-shop platform imports (templates/shoptet.json, woocommerce.json, prestashop.json,
 * shopify-inventory.json) checked against what each platform documents: the rendered files are parsed
 * back as the platform would read them, and every header, element and value format is compared with the
 * lists below, written out from the platforms' own sources (not from the templates).
 */

/**
 * Shoptet's update import: the SHOPITEM children this feed writes, in the order the POS's own Shoptet-form
 * price list writes them (docs/pos-interface.md, "The price-list XML"; the bridge reads the same names in
 * src/adapters/pos/price-list-xml.ts). Source: https://developers.shoptet.com/shoptet-tools/shoptet-xml-specification/
 * (the products feed's Relax NG) and https://podpora.shoptet.cz/automaticke-importy-produktu/ (update imports
 * update stock, availability and prices of items paired by code).
 */
const SHOPTET_ITEM_ELEMENTS = [
  'CODE',
  'EAN',
  'PRICE_VAT',
  'STANDARD_PRICE',
  'ACTION_PRICE',
  'CURRENCY',
  'STOCK',
  'AVAILABILITY_IN_STOCK',
  'AVAILABILITY_OUT_OF_STOCK',
] as const;

/**
 * WooCommerce's core product CSV importer: the column labels it maps (English, as its exporter writes them).
 * Source: https://github.com/woocommerce/woocommerce/blob/trunk/plugins/woocommerce/includes/admin/importers/class-wc-product-csv-importer-controller.php
 * (auto_map_columns() and get_mapping_options(); 'GTIN, UPC, EAN, or ISBN' is the global_unique_id option,
 * WooCommerce 9.5, PR https://github.com/woocommerce/woocommerce/pull/52240) and
 * https://github.com/woocommerce/woocommerce/wiki/Product-CSV-Import-Schema.
 */
const WOOCOMMERCE_IMPORTER_COLUMNS = [
  'ID',
  'Type',
  'SKU',
  'GTIN, UPC, EAN, or ISBN',
  'Name',
  'Published',
  'Is featured?',
  'Visibility in catalog',
  'Short description',
  'Description',
  'Date sale price starts',
  'Date sale price ends',
  'Tax status',
  'Tax class',
  'In stock?',
  'Stock',
  'Backorders allowed?',
  'Low stock amount',
  'Sold individually?',
  'Allow customer reviews?',
  'Purchase note',
  'Sale price',
  'Regular price',
  'Categories',
  'Tags',
  'Shipping class',
  'Images',
  'Parent',
  'Upsells',
  'Cross-sells',
  'Grouped products',
  'External URL',
  'Button text',
  'Position',
] as const;

/** What an update by SKU needs, in the exporter's relative order. */
const WOOCOMMERCE_HEADER = ['SKU', 'GTIN, UPC, EAN, or ISBN', 'In stock?', 'Stock', 'Sale price', 'Regular price'];

/**
 * PrestaShop 1.7/8's product import fields, by the labels of its sample file
 * https://github.com/PrestaShop/PrestaShop/blob/develop/docs/csv_import/products_import.csv (`;`-separated) and of
 * the fields it declares (controllers/admin/AdminImportController.php, src/Core/Import/EntityField/Provider/ProductFieldsProvider.php:
 * 'Price tax included' is the price_tin field). Default field separator `;`, multiple-value separator `,`.
 */
const PRESTASHOP_PRODUCT_FIELDS = [
  'Product ID',
  'Active (0/1)',
  'Name *',
  'Categories (x,y,z...)',
  'Price tax excluded',
  'Price tax included',
  'Tax rules ID',
  'Wholesale price',
  'On sale (0/1)',
  'Discount amount',
  'Discount percent',
  'Discount from (yyyy-mm-dd)',
  'Discount to (yyyy-mm-dd)',
  'Reference #',
  'Supplier reference #',
  'Supplier',
  'Manufacturer',
  'EAN13',
  'UPC',
  'MPN',
  'Quantity',
  'Minimal quantity',
] as const;

const PRESTASHOP_HEADER = ['Active (0/1)', 'Name *', 'Price tax included', 'Reference #', 'EAN13', 'Quantity'];

/**
 * Shopify's inventory CSV, every column as its Inventory export writes them (all quantity types); only
 * "On hand (new)" is imported as a quantity, one row per variant and location. Source:
 * https://help.shopify.com/en/manual/products/inventory/getting-started-with-inventory/inventory-csv
 */
const SHOPIFY_INVENTORY_COLUMNS = [
  'Handle',
  'Title',
  'Option1 Name',
  'Option1 Value',
  'Option2 Name',
  'Option2 Value',
  'Option3 Name',
  'Option3 Value',
  'SKU',
  'HS Code',
  'COO',
  'Location',
  'Bin name',
  'Incoming (not editable)',
  'Unavailable (not editable)',
  'Committed (not editable)',
  'Available (not editable)',
  'On hand (current)',
  'On hand (new)',
];

/** Money as every platform reads it: digits, a dot, two decimals; no currency, no thousands separator. */
const MONEY = /^\d+\.\d{2}$/;
/** Whole pieces. */
const WHOLE = /^\d+$/;
/** Shoptet amounts: the POS's stock, fractional or negative as it has it. */
const AMOUNT = /^-?\d+(?:\.\d+)?$/;
const GTIN = /^(?:\d{8}|\d{12,14})$/;

const feeds = loadTemplates(readTemplateFiles());

function feed(name: string): CompiledFeed {
  const found = feeds.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no feed ${name}`);
  return found;
}

function render(name: string, items: readonly FeedItem[] = FIXTURE_ITEMS, context: FeedContext = FIXTURE_CONTEXT): CollectedFeed {
  return collectFeed(feed(name).render(context, items));
}

/** A CSV as the platform reads it: an array of records keyed by header, and the header itself. */
function csv(rendered: CollectedFeed, delimiter: string): { header: string[]; rows: Record<string, string>[] } {
  const records: string[][] = parse(rendered.body, { delimiter, bom: true, relax_column_count: false });
  const [header = [], ...rest] = records;
  return { header, rows: rest.map((record) => Object.fromEntries(header.map((name, index) => [name, record[index] ?? '']))) };
}

interface ShopItem {
  [element: string]: string | { AMOUNT?: string } | undefined;
}

/** Element children only: the exact parser also gives the indentation between them as `#text`. */
function elements<T>(node: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(node).filter(([name]) => !name.startsWith('#')));
}

function shoptetItems(rendered: CollectedFeed): ShopItem[] {
  const xml = rendered.body.toString('utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  expect(strictXmlErrors(xml)).toEqual([]);
  const parsed = (exactXmlParser.parse(xml).SHOP?.SHOPITEM ?? []) as ShopItem[];
  return parsed.map((item) => {
    const stock = item['STOCK'];
    const clean = elements(item);
    return typeof stock === 'object' ? { ...clean, STOCK: elements(stock) } : clean;
  });
}

function byCode(code: string): FeedItem {
  const found = FIXTURE_ITEMS.find((item) => productCode(item) === code);
  if (found === undefined) throw new Error(`no fixture item with code ${code}`);
  return found;
}

/** Items whose every code is lost to cleaning (control characters only): none may get a row or element. */
const CODELESS: readonly FeedItem[] = [
  {
    id: '\u0001\u0002',
    name: 'Bez kódu',
    ean: '8594000000013',
    price: 10,
    stock: 3,
    availability: 'in_stock',
    isStockItem: true,
    offers: [{ unit: 'PRG', storeCode: 'PRG-1', unitName: 'Praha', price: 10, stock: 3, availability: 'in_stock' }],
  },
  {
    id: 'a-2',
    name: 'Kód jen z řídicích znaků',
    internalIdentifier: '\u0003',
    price: 10,
    stock: 3,
    availability: 'in_stock',
    isStockItem: true,
    offers: [{ unit: 'PRG', storeCode: 'PRG-1', unitName: 'Praha', price: 10, stock: 3, availability: 'in_stock' }],
  },
];

describe('platform imports: Shoptet update import (shoptet.xml)', () => {
  const items = shoptetItems(render('shoptet'));

  it('writes SHOP/SHOPITEM with only the documented elements, in the POS price list order', () => {
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      const names = Object.keys(item);
      expect(
        names.every((name) => (SHOPTET_ITEM_ELEMENTS as readonly string[]).includes(name)),
        names.join(),
      ).toBe(true);
      const order = names.map((name) => SHOPTET_ITEM_ELEMENTS.indexOf(name as (typeof SHOPTET_ITEM_ELEMENTS)[number]));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(item['CODE']).toBeTruthy();
      expect(item['CURRENCY']).toBe('CZK');
    }
  });

  it('carries the whole catalogue, paired on the code rule, with money, stock and EAN formats Shoptet reads', () => {
    expect(items.map((item) => item['CODE'])).toEqual(FIXTURE_ITEMS.map((item) => productCode(item)));
    for (const item of items) {
      for (const name of ['PRICE_VAT', 'STANDARD_PRICE', 'ACTION_PRICE'] as const) {
        if (item[name] !== undefined) expect(item[name]).toMatch(MONEY);
      }
      if (item['EAN'] !== undefined) expect(item['EAN']).toMatch(GTIN);
      const stock = item['STOCK'];
      if (stock !== undefined) expect(typeof stock === 'object' ? stock.AMOUNT : stock).toMatch(AMOUNT);
    }
  });

  it('writes the sale price only while one applies, the "was" price only above the price', () => {
    const coffee = items.find((item) => item['CODE'] === 'KAV-1');
    expect(coffee).toMatchObject({ PRICE_VAT: '129.00', ACTION_PRICE: '99.00', STANDARD_PRICE: '149.00' });
    const tea = items.find((item) => item['CODE'] === '0042');
    expect(tea?.['ACTION_PRICE']).toBeUndefined();
    expect(tea?.['STANDARD_PRICE']).toBeUndefined();
  });

  it('leaves STOCK out when the stock is unknown, never 0, and keeps sold-out items with 0', () => {
    const service = items.find((item) => item['CODE'] === 'a-1005');
    expect(service).toBeDefined();
    expect(service?.['STOCK']).toBeUndefined();
    expect(items.find((item) => item['CODE'] === 'a-1006')?.['STOCK']).toEqual({ AMOUNT: '0' });
    // Fractional stock is the POS's (Shoptet keeps three decimals), not rounded to pieces.
    expect(items.find((item) => item['CODE'] === 'a-1008')?.['STOCK']).toEqual({ AMOUNT: '0.5' });
  });

  it("writes the view's own availability labels, escaped, and none when the price list gave none", () => {
    expect(items.find((item) => item['CODE'] === 'KAV-1')).toMatchObject({
      AVAILABILITY_IN_STOCK: 'Skladem na prodejně',
      AVAILABILITY_OUT_OF_STOCK: 'Na objednávku',
    });
    expect(items.find((item) => item['CODE'] === 'a-1006')?.['AVAILABILITY_OUT_OF_STOCK']).toBe(
      'Vyprodáno – <do 14 dnů> & "víc"',
    );
    expect(items.find((item) => item['CODE'] === '0042')?.['AVAILABILITY_IN_STOCK']).toBeUndefined();
  });

  it('is read back by the bridge own price-list parser as the same prices, stock and labels (a unit view)', () => {
    const coffee = byCode('KAV-1');
    const brnoOffer = coffee.offers[1];
    if (brnoOffer === undefined) throw new Error('no Brno offer');
    // The Brno view of the coffee, as toFeedItem builds it: that unit's own prices, stock and labels.
    const brnoView: FeedItem = {
      id: coffee.id,
      name: coffee.name,
      ...(coffee.ean === undefined ? {} : { ean: coffee.ean }),
      ...(coffee.internalIdentifier === undefined ? {} : { internalIdentifier: coffee.internalIdentifier }),
      ...(brnoOffer.price === undefined ? {} : { price: brnoOffer.price }),
      ...(brnoOffer.standardPrice === undefined ? {} : { standardPrice: brnoOffer.standardPrice }),
      ...(brnoOffer.stock === undefined ? {} : { stock: brnoOffer.stock }),
      availability: brnoOffer.availability,
      ...(brnoOffer.availabilityTexts === undefined ? {} : { availabilityTexts: brnoOffer.availabilityTexts }),
      isStockItem: true,
      offers: [brnoOffer],
    };
    const { rows, summary } = parsePriceListXml(
      render('shoptet', [brnoView], { ...FIXTURE_CONTEXT, unit: 'BRN', unitName: 'Brno' }).body,
    );
    expect(summary.skippedCount).toBe(0);
    expect(rows).toEqual([
      {
        code: 'KAV-1',
        ean: '8594000000013',
        priceVat: 129,
        standardPrice: 149,
        currency: 'CZK',
        stock: 5,
        availabilityInStock: 'Skladem',
        availabilityOutOfStock: 'Dočasně vyprodáno',
        position: 1,
      },
    ]);
  });

  it('writes no SHOPITEM for an item without a code, and reports it', () => {
    const rendered = render('shoptet', CODELESS);
    expect(shoptetItems(rendered)).toEqual([]);
    expect(rendered.report.warnings.byAttribute).toEqual({ CODE: 2 });
  });
});

describe('platform imports: WooCommerce product CSV (woocommerce.csv)', () => {
  const rendered = render('woocommerce');
  const { header, rows } = csv(rendered, ',');

  it('has the exact header, every column one the importer maps, SKU (its key) among them', () => {
    expect(header).toEqual(WOOCOMMERCE_HEADER);
    for (const column of header) expect(WOOCOMMERCE_IMPORTER_COLUMNS).toContain(column);
    expect(rendered.body.subarray(0, 3).toString('latin1')).not.toBe('\xEF\xBB\xBF');
  });

  it('writes prices with a dot and two decimals, whole stock, 1/0 for In stock?, valid GTINs only', () => {
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row['Regular price']).toMatch(MONEY);
      if (row['Sale price'] !== '') expect(row['Sale price']).toMatch(MONEY);
      if (row['Stock'] !== '') expect(row['Stock']).toMatch(WHOLE);
      expect(row['In stock?']).toMatch(/^[01]$/);
      if (row['GTIN, UPC, EAN, or ISBN'] !== '') expect(row['GTIN, UPC, EAN, or ISBN']).toMatch(GTIN);
      expect(row['SKU']).not.toBe('');
    }
  });

  it('carries sold-out items (In stock? 0, Stock 0) and leaves Stock empty when unknown, never 0', () => {
    expect(rows.find((row) => row['SKU'] === 'a-1006')).toMatchObject({ 'In stock?': '0', Stock: '0' });
    expect(rows.find((row) => row['SKU'] === 'a-1005')).toMatchObject({ 'In stock?': '1', Stock: '' });
    expect(rows.find((row) => row['SKU'] === 'KAV-1')).toMatchObject({ 'Regular price': '129.00', 'Sale price': '99.00' });
  });

  it('leaves out items without a price (an empty Regular price would erase the shop price) or without a code', () => {
    expect(rows.map((row) => row['SKU'])).not.toContain('a-1007');
    expect(rendered.report.warnings.byAttribute).toEqual({ 'Regular price': 1 });
    const codeless = render('woocommerce', CODELESS);
    expect(csv(codeless, ',').rows).toEqual([]);
    expect(codeless.report.warnings.byAttribute).toEqual({ SKU: 2 });
  });
});

describe('platform imports: PrestaShop product import (prestashop.csv)', () => {
  const rendered = render('prestashop');
  const { header, rows } = csv(rendered, ';');

  it("is ';'-separated with the exact header, every column one of PrestaShop's product fields", () => {
    expect(header).toEqual(PRESTASHOP_HEADER);
    for (const column of header) expect(PRESTASHOP_PRODUCT_FIELDS).toContain(column);
    expect(rendered.body.toString('utf8').split('\r\n')[0]).toBe(PRESTASHOP_HEADER.join(';'));
  });

  it('writes prices with a dot and two decimals, whole quantities, 1 for Active, EAN13 of at most 13 digits', () => {
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row['Price tax included']).toMatch(MONEY);
      if (row['Quantity'] !== '') expect(row['Quantity']).toMatch(WHOLE);
      expect(row['Active (0/1)']).toBe('1');
      if (row['EAN13'] !== '') expect(row['EAN13']).toMatch(/^\d{8,13}$/);
      expect(row['Reference #']).toMatch(/^[^<>;={}]{1,64}$/);
      expect(row['Name *']).toMatch(/^[^<>;=#{}]{1,128}$/);
    }
  });

  it('sends the price a buyer pays, sold-out items with 0, and an empty Quantity (kept by PrestaShop) when unknown', () => {
    expect(rows.find((row) => row['Reference #'] === 'KAV-1')).toMatchObject({ 'Price tax included': '99.00', Quantity: '12' });
    expect(rows.find((row) => row['Reference #'] === 'a-1006')).toMatchObject({ Quantity: '0' });
    expect(rows.find((row) => row['Reference #'] === 'a-1005')).toMatchObject({ Quantity: '' });
  });

  it('leaves out, with a warning, names PrestaShop would refuse, items without a price and items without a code', () => {
    expect(rendered.report.warnings.byAttribute).toEqual({ 'Name *': 4, 'Price tax included': 1 });
    expect(rendered.report.warnings.byCode).toEqual({ 'no-match': 4, missing: 1 });
    const codeless = render('prestashop', CODELESS);
    expect(csv(codeless, ';').rows).toEqual([]);
    expect(codeless.report.warnings.byAttribute).toEqual({ 'Reference #': 2 });
  });
});

describe('platform imports: Shopify inventory CSV (shopify-inventory.csv)', () => {
  const rendered = render('shopify-inventory');
  const { header, rows } = csv(rendered, ',');

  it("has exactly the columns of Shopify's inventory export, and is served for the all view only", () => {
    expect(header).toEqual(SHOPIFY_INVENTORY_COLUMNS);
    expect(feed('shopify-inventory').servesView('all')).toBe(true);
    expect(feed('shopify-inventory').servesView('PRG')).toBe(false);
  });

  it('writes one row per stock item and unit, the unit name as location, whole On hand (new)', () => {
    const expected = FIXTURE_ITEMS.filter((item) => item.isStockItem && item.id !== 'a-1008').flatMap((item) =>
      item.offers.map((offer) => [productCode(item), offer.unitName]),
    );
    expect(rows.map((row) => [row['SKU'], row['Location']])).toEqual(expected);
    for (const row of rows) {
      expect(row['On hand (new)']).toMatch(WHOLE);
      expect(row['Handle']).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(row).toMatchObject({ 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'On hand (current)': '' });
      for (const column of header.filter((name) => name.endsWith('(not editable)'))) expect(row[column]).toBe('');
    }
    expect(rows.filter((row) => row['SKU'] === 'KAV-1').map((row) => [row['Location'], row['On hand (new)']])).toEqual([
      ['Praha, Na Příkopě', '7'],
      ['Brno', '5'],
    ]);
    // Sold out in a unit is 0 there; a negative unit stock is 0 too.
    expect(rows.filter((row) => row['SKU'] === 'a-1006').map((row) => row['On hand (new)'])).toEqual(['0', '0']);
  });

  it('leaves On hand (new) empty for a unit whose stock is unknown, and lists no services', () => {
    const item: FeedItem = {
      id: 'x-1',
      name: 'Káva',
      price: 10,
      availability: 'in_stock',
      isStockItem: true,
      offers: [
        { unit: 'PRG', storeCode: 'PRG-1', unitName: 'Praha', price: 10, availability: 'in_stock' },
        { unit: 'BRN', storeCode: 'BRNO-2', unitName: 'Brno', price: 10, stock: 2, availability: 'in_stock' },
      ],
    };
    const unknown = csv(render('shopify-inventory', [item]), ',').rows;
    expect(unknown.map((row) => [row['Handle'], row['Location'], row['On hand (new)']])).toEqual([
      ['kava', 'Praha', ''],
      ['kava', 'Brno', '2'],
    ]);
    expect(rows.map((row) => row['SKU'])).not.toContain('a-1005');
  });

  it('writes no row for an item without a code, and reports each unit', () => {
    const codeless = render('shopify-inventory', CODELESS);
    expect(csv(codeless, ',').rows).toEqual([]);
    expect(codeless.report.warnings.byAttribute).toEqual({ SKU: 2 });
    expect(codeless.report.warnings.examples.every((example) => example.unit === 'PRG')).toBe(true);
  });
});
