import { describe, expect, it } from 'vitest';
import type { GoogleProductRequest } from '../../../../../src/core/push/payloads/google.js';
import {
  buildGoogleLocalInventory,
  buildGoogleProductRequest,
  productInputName,
  productName,
} from '../../../../../src/core/push/payloads/google.js';
import {
  GoogleDeleteRequestSchema,
  GoogleLocalInventorySchema,
  GooglePatchRequestSchema,
  GoogleProductInputSchema,
} from '../../../../fakes/channels/google-schema.js';
import { CASES, feedItem } from './push-fixtures.js';

const OPTIONS = { account: '123', contentLanguage: 'cs', feedLabel: 'CZ', currency: 'CZK', brand: 'Pražírna' };

function sent(result: ReturnType<typeof buildGoogleProductRequest>): GoogleProductRequest {
  if (result.kind !== 'send') throw new Error(`skipped: ${result.reason}`);
  return result.payload;
}

function valid(request: GoogleProductRequest): boolean {
  const wire = JSON.parse(JSON.stringify(request)) as Record<string, unknown>;
  const { method, ...rest } = wire;
  if (method === 'insert') return GoogleProductInputSchema.safeParse(rest['body']).success;
  if (method === 'patch') return GooglePatchRequestSchema.safeParse(rest).success;
  return GoogleDeleteRequestSchema.safeParse(rest).success;
}

describe('core/push/payloads/google', () => {
  it('names the input by the unpadded base64url of contentLanguage~feedLabel~offerId (v1, no channel)', () => {
    const name = productInputName(OPTIONS, 'a-1/2');
    expect(name).toBe(`accounts/123/productInputs/${Buffer.from('cs~CZ~a-1/2').toString('base64url')}`);
    expect(name).not.toMatch(/=/);
    expect(productName(OPTIONS, 'a-1/2')).toBe(name.replace('productInputs', 'products'));
  });

  it('a sale of the last piece: patch of availability only', () => {
    const request = sent(
      buildGoogleProductRequest('a-1/2', CASES.sale(), { kind: 'update', fields: ['availability', 'stock'] }, OPTIONS),
    );
    expect(request).toEqual({
      method: 'patch',
      name: productInputName(OPTIONS, 'a-1/2'),
      updateMask: 'productAttributes.availability',
      body: { offerId: 'a-1/2', contentLanguage: 'cs', feedLabel: 'CZ', productAttributes: { availability: 'OUT_OF_STOCK' } },
    });
    expect(valid(request)).toBe(true);
  });

  it('a price change: exact micros for 0.10 and the sale price', () => {
    const request = sent(
      buildGoogleProductRequest('a-1/2', CASES.priceChange(), { kind: 'update', fields: ['price', 'salePrice'] }, OPTIONS),
    );
    expect(request.method === 'patch' && request.updateMask).toBe('productAttributes.price,productAttributes.salePrice');
    expect(request.method === 'patch' && request.body.productAttributes).toEqual({
      price: { amountMicros: '100000', currencyCode: 'CZK' },
      salePrice: { amountMicros: '90000', currencyCode: 'CZK' },
    });
    expect(valid(request)).toBe(true);
  });

  it('an ended sale: salePrice in the mask, absent from the body (Google deletes it)', () => {
    const request = sent(buildGoogleProductRequest('a-1/2', feedItem(), { kind: 'update', fields: ['salePrice'] }, OPTIONS));
    expect(request.method === 'patch' && request.updateMask).toBe('productAttributes.salePrice');
    expect(request.method === 'patch' && request.body.productAttributes).toEqual({});
    expect(valid(request)).toBe(true);
  });

  it('a new item: insert with exact micros for 15.99', () => {
    const request = sent(buildGoogleProductRequest('a-1/2', CASES.newItem(), { kind: 'create' }, OPTIONS));
    expect(request).toEqual({
      method: 'insert',
      body: {
        offerId: 'a-1/2',
        contentLanguage: 'cs',
        feedLabel: 'CZ',
        productAttributes: {
          title: 'Káva',
          description: 'Káva',
          link: 'https://shop.example/p/a-1%2F2',
          imageLink: 'https://img.example/1001.jpg',
          availability: 'IN_STOCK',
          price: { amountMicros: '15990000', currencyCode: 'CZK' },
          gtins: ['8594000000013'],
          brand: 'Pražírna',
          condition: 'NEW',
        },
      },
    });
    expect(valid(request)).toBe(true);
  });

  it('a removed item: delete by name, no item needed', () => {
    const request = sent(buildGoogleProductRequest('a-1/2', undefined, { kind: 'remove' }, OPTIONS));
    expect(request).toEqual({ method: 'delete', name: productInputName(OPTIONS, 'a-1/2') });
    expect(valid(request)).toBe(true);
  });

  it('skips what the Google feed drops: an id over 50 characters, a new item without a link', () => {
    expect(buildGoogleProductRequest('x'.repeat(51), feedItem(), { kind: 'create' }, OPTIONS).kind).toBe('skip');
    const { link: _link, ...withoutLink } = feedItem();
    const noLink = buildGoogleProductRequest('a', withoutLink, { kind: 'create' }, OPTIONS);
    expect(noLink).toEqual({ kind: 'skip', reason: 'no link' });
    expect(buildGoogleProductRequest('a', feedItem(), { kind: 'update', fields: ['stock'] }, OPTIONS).kind).toBe('skip');
  });

  it('counts an id in code points as the feed does, and skips one that is not well-formed Unicode', () => {
    // 50 emoji are 100 UTF-16 units but 50 characters: the Google feed keeps the item, so the push does too.
    expect(buildGoogleProductRequest('😀'.repeat(50), feedItem(), { kind: 'remove' }, OPTIONS).kind).toBe('send');
    expect(buildGoogleProductRequest('😀'.repeat(51), feedItem(), { kind: 'remove' }, OPTIONS).kind).toBe('skip');
    // A lone surrogate would reach Google as U+FFFD: another product's id.
    const lone = buildGoogleProductRequest('a\uD800', feedItem(), { kind: 'remove' }, OPTIONS);
    expect(lone).toMatchObject({ kind: 'skip', reason: expect.stringContaining('well-formed') as unknown });
  });

  it('local inventory per unit: store code, availability, whole-piece quantity as int64 text', () => {
    const [praha, brno] = feedItem().offers;
    if (praha === undefined || brno === undefined) throw new Error('fixture');
    const body = buildGoogleLocalInventory(praha, 'CZK');
    expect(body).toEqual({
      storeCode: 'praha-1',
      localInventoryAttributes: {
        availability: 'IN_STOCK',
        quantity: '3',
        price: { amountMicros: '15990000', currencyCode: 'CZK' },
      },
    });
    expect(GoogleLocalInventorySchema.safeParse(body).success).toBe(true);
    const sold = buildGoogleLocalInventory(brno, 'CZK');
    expect(sold.storeCode).toBe('U2');
    expect(sold.localInventoryAttributes).toMatchObject({ availability: 'OUT_OF_STOCK', quantity: '0' });
    expect(GoogleLocalInventorySchema.safeParse(sold).success).toBe(true);
  });

  it('local inventory leaves quantity out when the stock is unknown and floors fractions', () => {
    const offer = { unit: 'U1', storeCode: 's', unitName: 'P', availability: 'in_stock' as const };
    expect(buildGoogleLocalInventory(offer, 'CZK').localInventoryAttributes).toEqual({ availability: 'IN_STOCK' });
    expect(buildGoogleLocalInventory({ ...offer, stock: 2.7 }, 'CZK').localInventoryAttributes.quantity).toBe('2');
    expect(buildGoogleLocalInventory({ ...offer, stock: -1 }, 'CZK').localInventoryAttributes.quantity).toBe('0');
  });
});
