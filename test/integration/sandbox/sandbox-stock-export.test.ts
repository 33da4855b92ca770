import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../../src/sandbox/start-sandbox.js';
import { csvCells } from '../../helpers/csv-cells.js';
import { type Article, call, readAllArticles, startTestSandbox } from './sandbox-test-kit.js';

let sandbox: RunningSandbox;
let articles: Article[];

beforeAll(async () => {
  sandbox = await startTestSandbox({ articles: 300, units: 3 });
  articles = await readAllArticles(sandbox.url);
});
afterAll(async () => {
  await sandbox.stop();
});

async function fetchExport(path: string) {
  const result = await call(`${sandbox.url}${path}`);
  expect(result.status).toBe(200);
  expect(result.headers['content-type']).toMatch(/^text\/plain/);
  return result;
}

describe('sandbox/stock export (4.6, 4.7)', () => {
  it('csv: UTF-8 BOM, CRLF, `;`, Czech header, decimal comma, Kód = internalIdentifier else PLU', async () => {
    const { bytes, text } = await fetchExport('/warehouse/stock/export/csv/U1');
    const lines = text.slice(1).split('\r\n');
    const rows = lines.slice(1, -1).map((line) => csvCells(line, ';'));
    const stockItems = articles.filter((article) => article.isStockItem !== false);
    const byLocalCode = new Map(articles.map((article) => [article.internalIdentifier ?? String(article.plu), article]));

    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(text).not.toMatch(/[^\r]\n/);
    expect(lines[0]).toBe('Kód;PLU;EAN;Název;Množství;MJ');
    expect(lines.at(-1)).toBe('');
    expect(rows).toHaveLength(stockItems.length);
    const quantities = rows.map((row) => row[4] ?? '');
    expect(quantities.every((value) => /^-?\d+(,\d{3})?$/.test(value))).toBe(true);
    expect(quantities.some((value) => value.includes(','))).toBe(true);
    expect(quantities).toContain('0');
    expect(quantities.some((value) => value.startsWith('-'))).toBe(true);
    for (const row of rows) {
      const article = byLocalCode.get(row[0] ?? '');
      expect(article, `row ${row.join(';')}`).toBeDefined();
      expect(row[3]).toBe(article?.name);
      expect(row[5]).toBe(article?.measureUnit);
      if (article?.measureUnit === 'kg') expect(row[4]).toMatch(/,\d{3}$/);
    }
    // A name with a double quote is quoted in the CSV.
    expect(text).toMatch(/;"[^;]*""/);
  });

  it.each(['txt', 'tsv'])('%s: tab, LF, English header, dot decimal, code = article localId', async (type) => {
    const { text } = await fetchExport(`/warehouse/stock/export/${type}/U2`);
    const lines = text.split('\n');
    const rows = lines.slice(1, -1).map((line) => line.split('\t'));
    const localIds = new Set(articles.map((article) => article.localId));

    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    expect(text).not.toContain('\r');
    expect(lines[0]).toBe('code\tplu\tean\tname\tquantity\tunit');
    expect(rows.every((row) => row.length === 6 && localIds.has(row[0] ?? ''))).toBe(true);
    expect(rows.every((row) => /^-?\d+(\.\d{3})?$/.test(row[4] ?? ''))).toBe(true);
    expect(rows.some((row) => row[4]?.includes('.'))).toBe(true);
  });

  it('lists no services and every stock item once per unit', async () => {
    const { text } = await fetchExport('/warehouse/stock/export/txt/U1');
    const codes = text
      .split('\n')
      .slice(1, -1)
      .map((line) => line.split('\t')[0]);
    const services = articles.filter((article) => article.isStockItem === false).map((article) => article.localId);

    expect(services.length).toBeGreaterThan(0);
    for (const service of services) expect(codes).not.toContain(service);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('all units: one extra unit column in front, every unit listed, same quantities as the per-unit export', async () => {
    const all = (await fetchExport('/warehouse/stock/export/csv')).text.slice(1).split('\r\n');
    const perUnit = (await fetchExport('/ext/warehouse/stock/export/csv/U3')).text.slice(1).split('\r\n');
    const txt = (await fetchExport('/ext/warehouse/stock/export/txt')).text.split('\n');

    expect(all[0]).toBe('Středisko;Kód;PLU;EAN;Název;Množství;MJ');
    expect(txt[0]).toBe('unit_code\tcode\tplu\tean\tname\tquantity\tunit');
    expect(new Set(all.slice(1, -1).map((line) => line.split(';')[0]))).toEqual(new Set(['U1', 'U2', 'U3']));
    expect(all.filter((line) => line.startsWith('U3;')).map((line) => line.slice(3))).toEqual(perUnit.slice(1, -1));
  });

  it('answers 400 text for an unknown type and 404 for an unknown unit', async () => {
    const unknownType = await call(`${sandbox.url}/warehouse/stock/export/xlsx/U1`);
    const unknownTypeAll = await call(`${sandbox.url}/warehouse/stock/export/xlsx`);
    const unknownUnit = await call(`${sandbox.url}/warehouse/stock/export/csv/NOPE`);

    expect(unknownType.status).toBe(400);
    expect(unknownType.headers['content-type']).toMatch(/^text\/plain/);
    expect(unknownType.text).toContain('xlsx');
    expect(unknownTypeAll.status).toBe(400);
    expect(unknownUnit.status).toBe(404);
  });

  it('unit identifier may be the localId or the code', async () => {
    const units = await call(`${sandbox.url}/ext/unit/list`, {
      method: 'POST',
      headers: { 'x-api-key': 'test-key-123', 'content-type': 'application/json' },
      body: '{}',
    });
    const localId = (JSON.parse(units.text) as { data: { items: { localId: string }[] } }).data.items[1]?.localId;

    expect((await fetchExport(`/warehouse/stock/export/csv/${localId}`)).text).toBe(
      (await fetchExport('/warehouse/stock/export/csv/U2')).text,
    );
  });
});
