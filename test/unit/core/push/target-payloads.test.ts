import { describe, expect, it } from 'vitest';
import { type FeedItemOptions, toFeedItem } from '../../../../src/core/feeds/to-feed-item.js';
import type { FeedLens } from '../../../../src/core/push/feed-lens.js';
import { PUSH_MASK } from '../../../../src/core/push/outbox.js';
import { googlePayloads, metaPayloads, shoptetPayloads, splitLocalTarget } from '../../../../src/core/push/target-payloads.js';
import { snapshot } from '../../services/push/push-fixtures.js';

const FEED: FeedItemOptions = {
  productUrl: 'https://shop.example/p/{id}',
  imageUrl: 'https://shop.example/i/{id}.jpg',
  storeCodes: { A: 'store-a' },
  unitNames: new Map([['A', 'Unit A']]),
};
const GOOGLE = { account: '123', contentLanguage: 'cs', feedLabel: 'CZ', currency: 'CZK', brand: 'Acme' };
const served = snapshot('v1', [
  { id: '1', price: 15.99, stock: { A: 2.7 }, plu: 77 },
  { id: '2', price: 5, stock: { A: undefined } },
]);

describe('target payloads (served version through toFeedItem)', () => {
  const google = googlePayloads(GOOGLE, FEED);

  it('Google product: a price change is a patch of price only, in exact micros', () => {
    const result = google({ target: 'p:1', mask: PUSH_MASK.PRICE }, served);
    expect(result).toMatchObject({
      kind: 'send',
      payload: {
        kind: 'product',
        request: {
          method: 'patch',
          updateMask: 'productAttributes.price',
          body: { offerId: '1', productAttributes: { price: { amountMicros: '15990000', currencyCode: 'CZK' } } },
        },
      },
    });
  });

  it('Google product: added → insert, gone from the served version → delete', () => {
    expect(google({ target: 'p:1', mask: PUSH_MASK.ADDED }, served)).toMatchObject({
      kind: 'send',
      payload: { request: { method: 'insert', body: { offerId: '1' } } },
    });
    expect(google({ target: 'p:9', mask: PUSH_MASK.REMOVED }, served)).toEqual({
      kind: 'send',
      payload: {
        kind: 'product',
        request: { method: 'delete', name: `accounts/123/productInputs/${Buffer.from('cs~CZ~9').toString('base64url')}` },
      },
    });
  });

  it('Google local inventory: the store code, whole pieces, no quantity when the stock is unknown', () => {
    expect(google({ target: 'l:1:A', mask: PUSH_MASK.STOCK }, served)).toMatchObject({
      kind: 'send',
      payload: { kind: 'local', offerId: '1', inventory: { storeCode: 'store-a', localInventoryAttributes: { quantity: '2' } } },
    });
    const unknown = google({ target: 'l:2:A', mask: PUSH_MASK.PRICE }, served);
    expect(unknown.kind).toBe('send');
    if (unknown.kind === 'send' && unknown.payload.kind === 'local') {
      expect(unknown.payload.inventory.localInventoryAttributes.quantity).toBeUndefined();
    }
    // The unit no longer offers it (here: the product is gone): its local inventory is deleted by store code.
    expect(google({ target: 'l:9:A', mask: PUSH_MASK.REMOVED }, served)).toEqual({
      kind: 'send',
      payload: { kind: 'localDelete', offerId: '9', storeCode: 'store-a' },
    });
    expect(google({ target: 'l:9:A', mask: PUSH_MASK.REMOVED }, undefined).kind).toBe('skip');
    // Product 1 is served, but unit B does not offer it: B's local inventory goes (no store code: the unit's code).
    expect(google({ target: 'l:1:B', mask: PUSH_MASK.REMOVED }, served)).toEqual({
      kind: 'send',
      payload: { kind: 'localDelete', offerId: '1', storeCode: 'B' },
    });
  });

  it('Google supplemental data source: patches only; new and removed items are skipped, a full re-send patches', () => {
    const supplemental = googlePayloads(GOOGLE, FEED, () => 'supplemental');
    expect(supplemental({ target: 'p:1', mask: PUSH_MASK.ADDED }, served).kind).toBe('skip');
    expect(supplemental({ target: 'p:9', mask: PUSH_MASK.REMOVED }, served).kind).toBe('skip');
    expect(supplemental({ target: 'p:1', mask: PUSH_MASK.PRICE }, served)).toMatchObject({
      payload: { request: { method: 'patch', updateMask: 'productAttributes.price' } },
    });
    expect(supplemental({ target: 'p:1', mask: PUSH_MASK.FULL }, served)).toMatchObject({
      payload: {
        request: {
          method: 'patch',
          updateMask: 'productAttributes.price,productAttributes.salePrice,productAttributes.availability',
        },
      },
    });
  });

  it('splits a local target on the last colon (ids may hold one)', () => {
    expect(splitLocalTarget('l:a:b:A')).toEqual({ id: 'a:b', unit: 'A' });
  });

  it('Meta: FULL of a present item is an upsert UPDATE of the whole item; ADDED a CREATE; a removal a DELETE', () => {
    const meta = metaPayloads({ currency: 'CZK', brand: 'Acme' }, FEED);
    const whole = {
      id: '1',
      title: 'Item 1',
      description: 'Item 1',
      availability: 'in stock',
      condition: 'new',
      price: '15.99 CZK',
      link: 'https://shop.example/p/1',
      image_link: 'https://shop.example/i/1.jpg',
      brand: 'Acme',
    };
    expect(meta({ target: 'm:1', mask: PUSH_MASK.FULL }, served)).toEqual({
      kind: 'send',
      payload: { method: 'UPDATE', upsert: true, data: { ...whole, sale_price: '' } },
    });
    expect(meta({ target: 'm:1', mask: PUSH_MASK.ADDED }, served)).toEqual({
      kind: 'send',
      payload: { method: 'CREATE', data: whole },
    });
    expect(meta({ target: 'm:1', mask: PUSH_MASK.PRICE }, served)).toEqual({
      kind: 'send',
      payload: { method: 'UPDATE', data: { id: '1', price: '15.99 CZK' } },
    });
    expect(meta({ target: 'm:9', mask: PUSH_MASK.FULL }, served)).toEqual({
      kind: 'send',
      payload: { method: 'DELETE', data: { id: '9' } },
    });
  });

  it('Shoptet: the absolute stock by the product code; unknown stock and removed items send nothing', () => {
    const shoptet = shoptetPayloads('A', 'realStock', FEED);
    expect(shoptet({ target: 's:77', mask: PUSH_MASK.STOCK }, served)).toEqual({
      kind: 'send',
      payload: { productCode: '77', realStock: 2.7 },
    });
    expect(shoptet({ target: 's:2', mask: PUSH_MASK.STOCK }, served).kind).toBe('skip');
    expect(shoptet({ target: 's:404', mask: PUSH_MASK.STOCK }, served).kind).toBe('skip');
  });

  it("Shoptet with its feed template: the shoptet.xml AMOUNT as rendered (buffers applied), not the view's stock", () => {
    // A lens whose feed keeps 2 pieces back: the item's stock is 2.7, the feed's AMOUNT 0.7.
    const lens: FeedLens = (_snapshot, product, view) => {
      const item = toFeedItem(product, view, FEED);
      if (item === undefined) return { kind: 'not-offered' };
      return {
        kind: 'included',
        item,
        text: '<SHOPITEM><CODE>77</CODE><STOCK><AMOUNT>0.7</AMOUNT></STOCK></SHOPITEM>',
        head: '',
      };
    };
    const shoptet = shoptetPayloads('A', 'realStock', FEED, lens);
    expect(shoptet({ target: 's:77', mask: PUSH_MASK.STOCK }, served)).toEqual({
      kind: 'send',
      payload: { productCode: '77', realStock: 0.7 },
    });
  });
});
