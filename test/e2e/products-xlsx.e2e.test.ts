import ExcelJS from 'exceljs';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/app/start-app.js';
import { PRODUCT_COLUMNS } from '../../src/core/feeds/product-columns.js';
import { MONEY_FORMAT, TEXT_FORMAT } from '../../src/core/feeds/spreadsheet-rows.js';
import { createTestConfig } from '../helpers/test-config.js';

const logger = pino({ level: 'silent' });
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Raw HTTP (no automatic decoding), so the bytes on the wire are what is checked. */
async function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  const response = await request(url, { method, headers });
  const body = Buffer.from(await response.body.arrayBuffer());
  const header = (name: string): string | undefined => {
    const value = response.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  return { status: response.statusCode, header, body };
}

async function openSheet(body: Buffer): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as unknown as ExcelJS.Buffer);
  const sheet = workbook.worksheets[0];
  if (sheet === undefined) throw new Error('the workbook has no sheet');
  return sheet;
}

interface JsonItem {
  readonly id: string;
  readonly ean?: string;
  readonly plu?: number;
  readonly price?: number;
  readonly stock?: number;
}

describe('products.xlsx over HTTP from the sandbox', () => {
  let app: RunningApp;
  let items: readonly JsonItem[];

  beforeAll(async () => {
    app = await startApp(createTestConfig({ SANDBOX_ARTICLES: '200', SANDBOX_SALES_PER_MINUTE: '0' }), { logger });
    await app.initialSync;
    const json = await get(`${app.url}/feeds/all/products.json`);
    items = (JSON.parse(json.body.toString('utf8')) as { items: JsonItem[] }).items;
  });
  afterAll(() => app?.stop());

  it('downloads a workbook, sent as it is (a zip is never compressed again), with validators and a file name', async () => {
    const response = await get(`${app.url}/feeds/all/products.xlsx`, { 'accept-encoding': 'gzip, deflate, br' });

    expect(response.status).toBe(200);
    expect(response.header('content-type')).toBe(XLSX_TYPE);
    expect(response.header('content-encoding')).toBeUndefined();
    expect(Number(response.header('content-length'))).toBe(response.body.length);
    expect(response.header('content-disposition')).toBe('inline; filename="products-all.xlsx"');
    expect(response.header('etag')).toMatch(/^"v-[^"]+"$/);
    expect(response.header('x-catalog-version')).toBe(app.catalog.current()?.version);
    expect(response.body.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
  });

  it('keeps EANs with a leading zero and PLUs as text, prices as numbers with two decimals, under a frozen header', async () => {
    const sheet = await openSheet((await get(`${app.url}/feeds/all/products.xlsx`)).body);
    const header = sheet.getRow(1).values as unknown[];
    const column = (name: string): number => header.indexOf(name);
    const rowOf = (id: string): ExcelJS.Row => sheet.getRow(items.findIndex((item) => item.id === id) + 2);
    // The sandbox gives imported goods their maker's UPC-A, an EAN-13 with a leading zero.
    const imported = items.filter((item) => item.ean?.startsWith('0'));
    const withPlu = items.find((item) => item.plu !== undefined);
    const priced = items.find((item) => item.price !== undefined && !Number.isInteger(item.price));

    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    expect(imported.length).toBeGreaterThan(0);
    for (const item of imported) {
      const ean = rowOf(item.id).getCell(column('ean'));
      expect(ean.type).toBe(ExcelJS.ValueType.String);
      expect(ean.value).toBe(item.ean);
      expect(ean.numFmt).toBe(TEXT_FORMAT);
    }
    if (withPlu === undefined || priced === undefined)
      throw new Error('the sandbox catalog has no PLU or no price with decimals');
    const plu = rowOf(withPlu.id).getCell(column('plu'));
    expect(plu.type).toBe(ExcelJS.ValueType.String);
    expect(plu.value).toBe(String(withPlu.plu));
    const price = rowOf(priced.id).getCell(column('price'));
    expect(price.type).toBe(ExcelJS.ValueType.Number);
    expect(price.value).toBe(priced.price);
    expect(price.numFmt).toBe(MONEY_FORMAT);
    const id = rowOf(priced.id).getCell(column('id'));
    expect(id.type).toBe(ExcelJS.ValueType.String);
  });

  it('has the columns and rows of products.csv, and no purchase price', async () => {
    const sheet = await openSheet((await get(`${app.url}/feeds/all/products.xlsx`)).body);
    const csv = (await get(`${app.url}/feeds/all/products.csv`)).body.toString('utf8').split('\r\n');
    const units = app.catalog.current()?.units.map((unit) => `stock:${unit.code}`) ?? [];

    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(csv[0]?.split(','));
    expect(csv[0]?.split(',')).toEqual([...PRODUCT_COLUMNS.map((column) => column.header), ...units]);
    expect(sheet.actualRowCount).toBe(items.length + 1);
    for (const [index, item] of items.entries()) expect(sheet.getRow(index + 2).getCell(1).value).toBe(item.id);
    expect(csv[0]).not.toMatch(/purchase/i);
  });

  it('answers 304 to its ETag, and HEAD with the headers of GET and no body', async () => {
    const url = `${app.url}/feeds/U1/products.xlsx`;
    const first = await get(url, { 'accept-encoding': 'br' });
    const etag = first.header('etag') ?? '';

    const again = await get(url, { 'accept-encoding': 'br', 'if-none-match': etag });
    const head = await get(url, { 'accept-encoding': 'br' }, 'HEAD');

    expect(first.status).toBe(200);
    expect(first.header('content-disposition')).toBe('inline; filename="products-U1.xlsx"');
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.header('etag')).toBe(etag);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.header('content-length')).toBe(first.header('content-length'));
    expect(head.header('content-encoding')).toBeUndefined();
    expect(head.header('etag')).toBe(etag);
  });

  it('is listed in /feeds for every view and offered on the status page beside the CSVs, with the locales said', async () => {
    const index = JSON.parse((await get(`${app.url}/feeds`)).body.toString('utf8')) as {
      feeds: { feed: string; format: string; unit: string; url: string }[];
    };
    const workbooks = index.feeds.filter((feed) => feed.format === 'xlsx');
    const page = (await get(`${app.url}/`)).body.toString('utf8');

    expect(workbooks.map((feed) => feed.unit)).toEqual(['all', ...(app.catalog.current()?.units.map((unit) => unit.code) ?? [])]);
    expect(
      workbooks.every((feed) => feed.feed === 'products-xlsx' && feed.url.endsWith(`/feeds/${feed.unit}/products.xlsx`)),
    ).toBe(true);
    expect(page).toContain('/feeds/all/products.xlsx');
    expect(page).toContain('products.csv?profile=excel');
    expect(page).toMatch(
      /Excel CSV[^<]*<\/strong> \(<code>products\.csv\?profile=excel<\/code>\) assumes a <strong>Czech<\/strong> locale/,
    );
    expect(page).toContain('opens right in Excel, LibreOffice and Google Sheets in any language or region');
  });
});
