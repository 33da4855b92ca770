import { describe, expect, it } from 'vitest';
import {
  feedMoney,
  googleItemValues,
  localAvailabilityOf,
  productAvailabilityOf,
  tsvRows,
} from '../../../../src/core/push/google-feed-values.js';
import { attributesFromFeed, localInventoryFromFeed } from '../../../../src/core/push/payloads/google.js';

/** Google's pushed values read from the served feeds' text (src/core/push/google-feed-values.ts). */

const ITEM = `<item>
  <g:id>0042</g:id>
  <title>Čaj &amp; med &lt;bio&gt;</title>
  <description>Čaj &amp; med</description>
  <link>https://shop.example/p/42?a=1&amp;b=2</link>
  <g:image_link>https://shop.example/i/42.jpg</g:image_link>
  <g:additional_image_link>https://shop.example/i/42-1.jpg</g:additional_image_link>
  <g:additional_image_link>https://shop.example/i/42-2.jpg</g:additional_image_link>
  <g:availability>out_of_stock</g:availability>
  <g:price>15.99 CZK</g:price>
  <g:sale_price>9.90 CZK</g:sale_price>
  <g:gtin>0012345678905</g:gtin>
  <g:condition>new</g:condition>
</item>`;

describe('Google feed values', () => {
  it('reads an item: entities decoded, values kept as text (a GTIN keeps its leading zero)', () => {
    expect(googleItemValues(ITEM)).toEqual({
      title: 'Čaj & med <bio>',
      description: 'Čaj & med',
      link: 'https://shop.example/p/42?a=1&b=2',
      imageLink: 'https://shop.example/i/42.jpg',
      availability: 'out_of_stock',
      price: '15.99 CZK',
      salePrice: '9.90 CZK',
      gtin: '0012345678905',
    });
    expect(googleItemValues('<rss/>')).toBeUndefined();
  });

  it('money: the exact amount of the two-decimal text, never through float multiplication', () => {
    expect(feedMoney('15.99 CZK')).toEqual({ amount: 15.99, currency: 'CZK' });
    expect(feedMoney('129 EUR')).toEqual({ amount: 129, currency: 'EUR' });
    expect(feedMoney('1,50 CZK')).toBeUndefined();
    expect(feedMoney(undefined)).toBeUndefined();
    const attributes = attributesFromFeed(googleItemValues(ITEM) ?? {}, 'CZK');
    expect(attributes).toMatchObject({
      price: { amountMicros: '15990000', currencyCode: 'CZK' },
      salePrice: { amountMicros: '9900000', currencyCode: 'CZK' },
      availability: 'OUT_OF_STOCK',
      gtins: ['0012345678905'],
      condition: 'NEW',
    });
    expect(attributesFromFeed({ availability: 'in_stock' }, 'CZK')).toMatch(/price/);
  });

  it('availability names: the product feed and the local feed (limited availability)', () => {
    expect(productAvailabilityOf('in_stock')).toBe('IN_STOCK');
    expect(productAvailabilityOf('preorder')).toBeUndefined();
    expect(localAvailabilityOf('limited availability')).toBe('LIMITED_AVAILABILITY');
    expect(localAvailabilityOf('out of stock')).toBe('OUT_OF_STOCK');
  });

  it('local inventory rows by header; a row becomes the localInventories body', () => {
    const head = 'store_code\tid\tquantity\tprice\tsale_price\tavailability\n';
    const rows = tsvRows(head, 'praha-1\t42\t2\t15.99 CZK\t\tlimited availability\nbrno\t42\t0\t15.99 CZK\t\tout of stock\n');
    expect(rows).toEqual([
      { store_code: 'praha-1', id: '42', quantity: '2', price: '15.99 CZK', availability: 'limited availability' },
      { store_code: 'brno', id: '42', quantity: '0', price: '15.99 CZK', availability: 'out of stock' },
    ]);
    expect(localInventoryFromFeed(rows[0] ?? {})).toEqual({
      storeCode: 'praha-1',
      localInventoryAttributes: {
        availability: 'LIMITED_AVAILABILITY',
        quantity: '2',
        price: { amountMicros: '15990000', currencyCode: 'CZK' },
      },
    });
    expect(localInventoryFromFeed({ store_code: 'x', availability: 'soon' })).toMatch(/availability/);
  });
});
