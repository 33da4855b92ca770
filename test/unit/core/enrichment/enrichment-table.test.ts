import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Product } from '../../../../src/core/catalog/catalog.js';
import { decodeChunk, serializeItemsMade } from '../../../../src/core/catalog/catalog-chunks.js';
import { applyEnrichment, planEnrichment } from '../../../../src/core/enrichment/apply-enrichment.js';
import { compileEnrichmentSheet } from '../../../../src/core/enrichment/compile-enrichment.js';
import { checkOf } from '../../../../src/core/enrichment/enrichment-check.js';
import { readEnrichmentSheet } from '../../../../src/core/enrichment/enrichment-sheet.js';
import { tableKey, tableLine, tableOf, tableValues } from '../../../../src/core/enrichment/enrichment-table.js';
import { product, readSheet, utf8 } from './enrichment-fixtures.js';

const FIXTURE = new URL('../../../fixtures/enrichment/excel-semicolon-bom.csv', import.meta.url);

describe('core/enrichment/enrichment-table', () => {
  it('reads a sheet straight into a shared table with the same rows and the same check as reading it into rows', async () => {
    const bytes = new Uint8Array(await readFile(FIXTURE));
    const read = await readEnrichmentSheet(bytes, { name: 'sheet.csv' });
    const compiled = await compileEnrichmentSheet(bytes, { name: 'sheet.csv' });
    if (!read.ok || compiled.table === undefined) throw new Error('the fixture must be readable');

    const { table } = compiled;
    expect(compiled.check).toEqual(checkOf(read));
    for (const part of [table.keys, table.blocks, table.keyOffsets, table.blockOffsets, table.valueOffsets, table.lines]) {
      expect(part.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
    expect(table.rowCount).toBe(read.rows.length);
    const rows = Array.from({ length: table.rowCount }, (_, row) => ({
      line: tableLine(table, row),
      key: tableKey(table, row),
      values: tableValues(table, row),
    }));
    expect(rows).toEqual(read.rows);
    expect(table.groups).toEqual(read.groups);
    expect(table.problemCounts).toEqual(read.problemCounts);
  });

  it('gives back every row of a large sheet in any order, from blocks far smaller than the values', async () => {
    const text = [
      'id;title;description',
      ...Array.from({ length: 1_001 }, (_, n) => `a-${n};Čokoláda ${n};Hořká čokoláda ${n % 7}, 100 g`),
    ];
    const sheet = await readSheet(text.join('\n'));
    const table = tableOf(sheet);
    const order = fc.sample(fc.shuffledSubarray([...sheet.rows.keys()], { minLength: sheet.rows.length }), {
      numRuns: 1,
      seed: 7,
    })[0];
    for (const row of order ?? []) {
      expect({ key: tableKey(table, row), line: tableLine(table, row), values: tableValues(table, row) }).toEqual(
        sheet.rows[row],
      );
    }
    const plain = sheet.rows.reduce((sum, row) => sum + Buffer.byteLength(JSON.stringify(row.values)), 0);
    expect(table.blocks.byteLength).toBeLessThan(plain / 2);
  });

  it('gives no table for a sheet that cannot be used', async () => {
    const compiled = await compileEnrichmentSheet(utf8('name;title\nx;y\n'), { name: 'sheet.csv' });
    expect(compiled.table).toBeUndefined();
    expect(compiled.check).toMatchObject({ ok: false, error: expect.stringContaining('no key column') });
  });

  it('lists the exclude names of group rows before those of product rows, as a sheet read into rows does', async () => {
    const text = ['id;exclude', 'a-1;heureka', 'group:G;google', 'a-2;zbozi, heureka'].join('\n');
    const compiled = await compileEnrichmentSheet(utf8(text), { name: 'sheet.csv' });
    expect(compiled.check.excludeNames).toEqual(['google', 'heureka', 'zbozi']);
    const read = await readEnrichmentSheet(utf8(text), { name: 'sheet.csv' });
    expect(compiled.check).toEqual(checkOf(read));
  });

  it('enriches each product by its own row over its group row, for any sheet of ids, groups and Czech text', async () => {
    const cell = fc.stringMatching(/^[a-zA-Z0-9čřžýáíéěůú ]{0,12}$/).map((value) => value.trim());
    const row = fc.record({ id: fc.integer({ min: 1, max: 12 }), title: cell, brand: cell, group: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 20 }), async (rows) => {
        const lines = rows.map((r) => `${r.group ? `group:G${r.id % 3}` : `a-${r.id}`};${r.title};${r.brand}`);
        const sheet = await readSheet(['id;title;brand', ...lines].join('\n'));
        const products = Array.from({ length: 10 }, (_, index) => product(`a-${index + 1}`, { groupId: `G${index % 3}` }));
        const { products: enriched } = applyEnrichment(products, tableOf(sheet));
        // The rule, written plainly: the first row of the id over the first row of the group, field by field.
        const expected = products.map((item) => {
          const own = sheet.rows.find((r) => r.key === item.id)?.values;
          const group = sheet.groups.find((r) => r.key === item.groupId)?.values;
          const values = { ...group, ...own };
          return Object.keys(values).length === 0 ? undefined : values;
        });
        expect(enriched.map((item) => item.enrichment)).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('puts the values on each product as it is serialized, and reports once every product went through', async () => {
    const sheet = await readSheet(['id;title;brand', 'group:G;;Orion', 'a-2;Čokoláda;', 'a-9;Nic;'].join('\n'));
    const products: Product[] = [product('a-1', { groupId: 'G' }), product('a-2'), product('a-3')];
    const expected = applyEnrichment(products, sheet);

    const plan = planEnrichment(products, tableOf(sheet));
    const chunks = await serializeItemsMade(products.length, (position) => plan.enrich(products[position] as Product, position), {
      chunkBytes: 1,
    });

    expect(chunks.flatMap((chunk) => decodeChunk<Product>(chunk))).toEqual(expected.products);
    expect(plan.report()).toEqual(expected.report);
    expect(plan.report()).toMatchObject({ matched: 1, unmatched: 1, enrichedProducts: 2, fields: { title: 1, brand: 1 } });
  });
});
