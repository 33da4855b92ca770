import { describe, expect, it } from 'vitest';
import { adminCsvHeader, adminCsvLine, adminJsonItem, adminRowOf } from '../../../../src/core/catalog/admin-catalog-rows.js';
import type { Product } from '../../../../src/core/catalog/catalog.js';
import { CSV_DIALECTS } from '../../../../src/core/feeds/csv-dialect.js';

const product: Product = {
  id: 'a-1',
  name: 'Káva "Arabica", 1 kg',
  ean: '0012345678905',
  plu: 1001,
  internalIdentifier: 'KAV-1',
  isStockItem: true,
  offers: [{ unit: 'U1', price: 129, availability: 'in_stock' }],
  aggregate: { unit: 'all', price: 129, availability: 'in_stock' },
};

describe('admin catalog rows', () => {
  it('joins a product with its purchase prices, money with two decimals', () => {
    const row = adminRowOf(product, { id: 'a-1', purchasePrice: 80.5, avgPurchasePrice: 79.123 });

    expect(JSON.parse(adminJsonItem(row))).toEqual({
      id: 'a-1',
      name: 'Káva "Arabica", 1 kg',
      ean: '0012345678905',
      plu: 1001,
      internalIdentifier: 'KAV-1',
      price: 129,
      purchasePrice: 80.5,
      avgPurchasePrice: 79.12,
    });
    expect(adminJsonItem(row)).toContain('"purchasePrice":80.50');
  });

  it('omits what is unknown', () => {
    const { ean: _ean, plu: _plu, internalIdentifier: _code, ...bare } = product;
    const row = adminRowOf({ ...bare, aggregate: { unit: 'all', availability: 'in_stock' } }, undefined);

    expect(JSON.parse(adminJsonItem(row))).toEqual({ id: 'a-1', name: product.name });
    expect(Object.keys(row)).toEqual(['id', 'name']);
  });

  it('writes RFC 4180 and the Excel profile', () => {
    const row = adminRowOf(product, { id: 'a-1', purchasePrice: 80.5 });

    expect(adminCsvHeader(CSV_DIALECTS.rfc4180)).toBe(
      'id,name,ean,plu,internalIdentifier,price,purchasePrice,avgPurchasePrice,currency\r\n',
    );
    expect(adminCsvLine(row, 'CZK', CSV_DIALECTS.rfc4180)).toBe(
      'a-1,"Káva ""Arabica"", 1 kg",0012345678905,1001,KAV-1,129.00,80.50,,CZK\r\n',
    );
    expect(adminCsvHeader(CSV_DIALECTS.excel).startsWith('\uFEFFid;name;')).toBe(true);
    expect(adminCsvLine(row, 'CZK', CSV_DIALECTS.excel)).toBe(
      'a-1;"Káva ""Arabica"", 1 kg";"=""0012345678905""";"=""1001""";KAV-1;129,00;80,50;;CZK\r\n',
    );
  });
});
