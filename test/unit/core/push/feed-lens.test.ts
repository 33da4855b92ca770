import { describe, expect, it } from 'vitest';
import { csvRowValues, xmlAmountOf } from '../../../../src/core/push/feed-lens.js';
import { buildMetaRequestFromRow } from '../../../../src/core/push/payloads/meta.js';

const HEAD = 'id,title,description,availability,condition,price,sale_price,link,image_link,brand,gtin\r\n';
const ROW = {
  title: 'Káva "Extra", 1 kg',
  description: 'Káva',
  availability: 'out of stock',
  condition: 'new',
  price: '15.99 CZK',
  link: 'https://shop.example/p/1',
  image_link: 'https://shop.example/i/1.jpg',
  brand: 'Acme',
};

describe('core/push/feed-lens values', () => {
  it("reads a CSV feed's row by header: quotes, commas and empty cells (left out)", () => {
    const text =
      '1,"Káva ""Extra"", 1 kg",Káva,out of stock,new,15.99 CZK,,https://shop.example/p/1,https://shop.example/i/1.jpg,Acme,\r\n';
    expect(csvRowValues(HEAD, text)).toEqual({ id: '1', ...ROW });
    expect(csvRowValues(HEAD, '')).toBeUndefined();
  });

  it("reads an XML item's AMOUNT; none (unknown stock) or an unreadable one is undefined", () => {
    expect(xmlAmountOf('<SHOPITEM><CODE>7</CODE><STOCK><AMOUNT>2.5</AMOUNT></STOCK></SHOPITEM>')).toBe(2.5);
    expect(xmlAmountOf('<SHOPITEM><CODE>7</CODE></SHOPITEM>')).toBeUndefined();
    expect(xmlAmountOf('<AMOUNT>x</AMOUNT>')).toBeUndefined();
  });
});

describe('core/push/payloads/meta from the feed row', () => {
  it('FULL: an upsert UPDATE of every feed column Meta takes, an absent sale cleared', () => {
    expect(buildMetaRequestFromRow('1', ROW, { kind: 'full' })).toEqual({
      kind: 'send',
      payload: { method: 'UPDATE', upsert: true, data: { id: '1', ...ROW, sale_price: '' } },
    });
  });

  it('ADDED: a CREATE; a row lacking a required column is skipped, never half-created', () => {
    expect(buildMetaRequestFromRow('1', ROW, { kind: 'create' })).toEqual({
      kind: 'send',
      payload: { method: 'CREATE', data: { id: '1', ...ROW } },
    });
    const { image_link: _, ...noImage } = ROW;
    expect(buildMetaRequestFromRow('1', noImage, { kind: 'create' })).toEqual({
      kind: 'skip',
      reason: 'the feed row lacks image_link',
    });
  });

  it("a field update takes only those fields' cells; a removal is a DELETE", () => {
    expect(buildMetaRequestFromRow('1', ROW, { kind: 'update', fields: ['availability', 'salePrice', 'stock'] })).toEqual({
      kind: 'send',
      payload: { method: 'UPDATE', data: { id: '1', availability: 'out of stock', sale_price: '' } },
    });
    expect(buildMetaRequestFromRow('1', ROW, { kind: 'update', fields: ['stock'] }).kind).toBe('skip');
    const { price: _, ...noPrice } = ROW;
    expect(buildMetaRequestFromRow('1', noPrice, { kind: 'update', fields: ['price'] }).kind).toBe('skip');
    expect(buildMetaRequestFromRow('1', ROW, { kind: 'remove' })).toEqual({
      kind: 'send',
      payload: { method: 'DELETE', data: { id: '1' } },
    });
  });
});
