import { describe, expect, it } from 'vitest';
import { createPriceListRowCollector, priceListRowsOf } from '../../../../src/core/catalog/price-list-rows.js';
import type { PriceListRow } from '../../../../src/core/catalog/source.js';

const FULL: PriceListRow = {
  code: 'KAV-1001',
  position: 7,
  ean: '8594000000017',
  plu: '1001',
  priceVat: 129.9,
  priceNet: 107.36,
  actionPrice: 99,
  standardPrice: 149,
  currency: 'CZK',
  stock: -2.5,
  availabilityInStock: 'Skladem',
  availabilityOutOfStock: 'Na dotaz',
};

/** `count` rows past one block: every third with an EAN, four distinct labels. */
function manyRows(count: number): PriceListRow[] {
  return Array.from(
    { length: count },
    (_, i): PriceListRow => ({
      code: `C-${i}`,
      position: i + 1,
      ...(i % 3 === 0 ? { ean: `859${String(i).padStart(10, '0')}` } : {}),
      priceVat: i + 0.5,
      availabilityInStock: `label ${i % 4}`,
    }),
  );
}

describe('core/catalog/price-list-rows', () => {
  it('gives back each row as pushed, with its absent fields absent and the parser key order', () => {
    const rows: PriceListRow[] = [
      FULL,
      { code: 'ZRUSENO-U1', position: 1 },
      { code: '8594000000024', position: 2, ean: '8594000000024', stock: 0 },
    ];
    const collector = createPriceListRowCollector();
    for (const row of rows) collector.push(row);

    expect(collector.length).toBe(3);
    for (const [index, row] of rows.entries()) {
      expect(collector.row(index)).toStrictEqual(row);
      expect(JSON.stringify(collector.row(index))).toBe(JSON.stringify(row));
    }
  });

  it('keeps numbers and texts exactly: zero, negative, fractional, non-ASCII, long codes', () => {
    const collector = createPriceListRowCollector();
    const row: PriceListRow = {
      code: `Č-${'x'.repeat(900)}`,
      position: 3,
      priceVat: 0,
      actionPrice: 0.1 + 0.2,
      stock: -0.001,
      availabilityInStock: 'Ihned k odběru',
      availabilityOutOfStock: '',
    };
    collector.push(row);

    expect(collector.row(0)).toStrictEqual(row);
  });

  it('grows past its initial capacity', () => {
    const collector = createPriceListRowCollector();
    const rows = manyRows(5_000);
    for (const row of rows) collector.push(row);

    expect(collector.length).toBe(5_000);
    expect(collector.row(4_999)).toStrictEqual(rows[4_999]);
    expect(collector.row(3)).toStrictEqual(rows[3]);
  });

  it('reads identity fields and positions alone, and nothing out of range', () => {
    const collector = createPriceListRowCollector();
    collector.push(FULL);

    expect(collector.identity(0)).toStrictEqual({ code: 'KAV-1001', ean: '8594000000017', plu: '1001' });
    expect(collector.position(0)).toBe(7);
    for (const index of [-1, 1]) {
      expect(collector.row(index)).toBeUndefined();
      expect(collector.identity(index)).toBeUndefined();
      expect(collector.position(index)).toBeUndefined();
    }
  });

  it('views an array of rows the same way', () => {
    const rows = priceListRowsOf([FULL]);

    expect(rows.length).toBe(1);
    expect(rows.row(0)).toBe(FULL);
    expect(rows.identity(0)).toBe(FULL);
    expect(rows.position(0)).toBe(7);
    expect(rows.row(1)).toBeUndefined();
  });

  it('gives the same rows from its state posted to another thread (a structured clone), and goes on collecting there', () => {
    const collector = createPriceListRowCollector();
    const rows = manyRows(5_000);
    for (const row of rows) collector.push(row);

    const there = createPriceListRowCollector(structuredClone(collector.state()));
    there.push({ ...FULL, availabilityInStock: 'label 2' });

    expect(there.length).toBe(5_001);
    for (const index of [0, 3, 4_095, 4_096, 4_999]) expect(there.row(index)).toStrictEqual(rows[index]);
    expect(there.row(5_000)).toStrictEqual({ ...FULL, availabilityInStock: 'label 2' });
    // A label seen before is the same entry of the text table, not a new one.
    expect(there.state().texts).toHaveLength(collector.state().texts.length + 2);
  });
});
