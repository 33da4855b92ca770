import { describe, expect, it } from 'vitest';
import {
  GoogleDataSourceSchema,
  GoogleDeleteRequestSchema,
  GoogleLocalInventorySchema,
  GooglePatchRequestSchema,
  GoogleProductInputSchema,
} from '../../../../fakes/channels/google-schema.js';
import { MetaBatchBodySchema, parseMetaBatchForm } from '../../../../fakes/channels/meta-schema.js';
import {
  ShoptetRequestHeadersSchema,
  ShoptetStockMovementsRequestSchema,
  ShoptetStockMovementsResponseSchema,
} from '../../../../fakes/channels/shoptet-schema.js';

/**
 * The fake servers' schemas must refuse what the channels refuse, or the builders' tests prove nothing: one
 * valid baseline per schema, then one case per rule that must fail (docs/decisions/0013-channel-push.md, "Test plan").
 */

describe('fakes/channels/shoptet-schema', () => {
  const ok = { data: [{ productCode: '43/BIL', realStock: 10 }] };
  it('accepts the documented example and each of the three oneOf forms', () => {
    expect(ShoptetStockMovementsRequestSchema.safeParse(ok).success).toBe(true);
    for (const item of [
      { productCode: 'a', amountChange: -1 },
      { productCode: 'a', quantity: 2.5 },
    ]) {
      expect(ShoptetStockMovementsRequestSchema.safeParse({ data: [item] }).success).toBe(true);
    }
  });
  it.each([
    ['data missing (required: [data])', {}],
    ['productCode missing', { data: [{ realStock: 1 }] }],
    ['no amount at all', { data: [{ productCode: 'a' }] }],
    ['two amounts (oneOf)', { data: [{ productCode: 'a', realStock: 1, quantity: 1 }] }],
    ['unknown property (additionalProperties: false)', { data: [{ productCode: 'a', realStock: 1, stockId: 1 }] }],
    ['amount as text (type: number)', { data: [{ productCode: 'a', realStock: '1' }] }],
    ['productCode as number (type: string)', { data: [{ productCode: 43, realStock: 1 }] }],
    ['301 items (max. 300)', { data: Array.from({ length: 301 }, (_, i) => ({ productCode: `${i}`, realStock: 1 })) }],
  ])('rejects %s', (_rule, body) => {
    expect(ShoptetStockMovementsRequestSchema.safeParse(body).success).toBe(false);
  });
  it('requires the token and the JSON content type', () => {
    expect(
      ShoptetRequestHeadersSchema.safeParse({ 'shoptet-private-api-token': 't', 'content-type': 'application/json' }).success,
    ).toBe(true);
    expect(ShoptetRequestHeadersSchema.safeParse({ 'content-type': 'application/json' }).success).toBe(false);
    expect(
      ShoptetRequestHeadersSchema.safeParse({ 'shoptet-private-api-token': 't', 'content-type': 'text/plain' }).success,
    ).toBe(false);
  });
  it('checks the response shape (Errors items closed, Metadata.requestId required)', () => {
    const body = {
      data: null,
      errors: [{ errorCode: 'unknown-product', message: 'm', instance: '82' }],
      metadata: { requestId: 'r' },
    };
    expect(ShoptetStockMovementsResponseSchema.safeParse(body).success).toBe(true);
    expect(ShoptetStockMovementsResponseSchema.safeParse({ ...body, metadata: {} }).success).toBe(false);
    expect(ShoptetStockMovementsResponseSchema.safeParse({ ...body, errors: [{ errorCode: 'x', message: 'm' }] }).success).toBe(
      false,
    );
  });
});

describe('fakes/channels/meta-schema', () => {
  const update = { method: 'UPDATE', data: { id: 'a', price: '12.34 CZK', availability: 'in stock' } };
  const create = {
    method: 'CREATE',
    data: {
      id: 'a',
      title: 't',
      description: 'd',
      availability: 'in stock',
      condition: 'new',
      price: '1.00 CZK',
      link: 'https://s.example/a',
      image_link: 'https://s.example/a.jpg',
      brand: 'b',
    },
  };
  const body = (requests: unknown[]) => ({ item_type: 'PRODUCT_ITEM', allow_upsert: false, requests });
  it('accepts an UPDATE, a CREATE and a DELETE', () => {
    expect(MetaBatchBodySchema.safeParse(body([update, create, { method: 'DELETE', data: { id: 'a' } }])).success).toBe(true);
  });
  it.each([
    ['item_type missing', { requests: [update] }],
    ['requests missing', { item_type: 'PRODUCT_ITEM' }],
    ['an empty requests array', body([])],
    ['5001 requests (up to 5000)', body(Array.from({ length: 5001 }, () => update))],
    ['an unknown method', body([{ ...update, method: 'UPSERT' }])],
    ['data.id missing', body([{ method: 'UPDATE', data: { price: '1.00 CZK' } }])],
    ['price without currency', body([{ method: 'UPDATE', data: { id: 'a', price: '12.34' } }])],
    ['price with a decimal comma', body([{ method: 'UPDATE', data: { id: 'a', price: '12,34 CZK' } }])],
    ['an availability outside the enum', body([{ method: 'UPDATE', data: { id: 'a', availability: 'in_stock' } }])],
    ['an UPDATE that changes nothing', body([{ method: 'UPDATE', data: { id: 'a' } }])],
    ['a CREATE without a required field (link)', body([{ ...create, data: { ...create.data, link: undefined } }])],
    ['a CREATE with neither brand nor gtin', body([{ ...create, data: { ...create.data, brand: undefined } }])],
    ['an unknown data field', body([{ method: 'UPDATE', data: { id: 'a', prize: '1.00 CZK' } }])],
  ])('rejects %s', (_rule, candidate) => {
    expect(MetaBatchBodySchema.safeParse(JSON.parse(JSON.stringify(candidate))).success).toBe(false);
  });
  it('decodes the form encoding and refuses a payload over 28 MB', () => {
    const form = new URLSearchParams({ item_type: 'PRODUCT_ITEM', allow_upsert: 'false', requests: JSON.stringify([update]) });
    expect(parseMetaBatchForm(form.toString()).success).toBe(true);
    expect(parseMetaBatchForm(new URLSearchParams({ item_type: 'PRODUCT_ITEM', requests: '[{' }).toString()).success).toBe(false);
    expect(parseMetaBatchForm(`${form.toString()}&pad=${'x'.repeat(28 * 1024 * 1024)}`).success).toBe(false);
  });
});

describe('fakes/channels/google-schema', () => {
  const price = { amountMicros: '15990000', currencyCode: 'CZK' };
  const input = { offerId: 'a', contentLanguage: 'cs', feedLabel: 'CZ', productAttributes: { price, availability: 'IN_STOCK' } };
  const name = `accounts/1/productInputs/${Buffer.from('cs~CZ~a').toString('base64url')}`;
  it('accepts an insert, a patch, a delete and a local inventory', () => {
    expect(GoogleProductInputSchema.safeParse(input).success).toBe(true);
    const patch = { name, updateMask: 'productAttributes.price,productAttributes.availability', body: input };
    expect(GooglePatchRequestSchema.safeParse(patch).success).toBe(true);
    expect(
      GooglePatchRequestSchema.safeParse({ ...patch, updateMask: 'product_attributes.price,product_attributes.availability' })
        .success,
    ).toBe(true);
    expect(GoogleDeleteRequestSchema.safeParse({ name }).success).toBe(true);
    expect(GoogleLocalInventorySchema.safeParse({ storeCode: 's', localInventoryAttributes: { quantity: '0' } }).success).toBe(
      true,
    );
    expect(GoogleDataSourceSchema.safeParse('accounts/1/dataSources/2').success).toBe(true);
  });
  it.each([
    ['offerId missing', { ...input, offerId: undefined }],
    ['feedLabel missing', { ...input, feedLabel: undefined }],
    ['contentLanguage not ISO 639-1', { ...input, contentLanguage: 'cze' }],
    ['an offerId over 50 characters', { ...input, offerId: 'x'.repeat(51) }],
    [
      'price as a number (int64 is text)',
      { ...input, productAttributes: { price: { amountMicros: 15990000, currencyCode: 'CZK' } } },
    ],
    ['price in units, not micros', { ...input, productAttributes: { price: { amountMicros: '15.99', currencyCode: 'CZK' } } }],
    ['the Content API price shape', { ...input, productAttributes: { price: { value: '15.99', currency: 'CZK' } } }],
    ['a lower-case availability', { ...input, productAttributes: { availability: 'in_stock' } }],
    ['an unknown name (Google refuses unknown JSON names)', { ...input, channel: 'ONLINE' }],
    ['an unknown attribute', { ...input, productAttributes: { prices: price } }],
  ])('rejects an input with %s', (_rule, candidate) => {
    expect(GoogleProductInputSchema.safeParse(JSON.parse(JSON.stringify(candidate))).success).toBe(false);
  });
  it.each([
    ['a name of another offer', { name: name.replace(/[^/]+$/, Buffer.from('cs~CZ~b').toString('base64url')) }],
    [
      'a v1beta name with the channel prefix',
      { name: name.replace(/[^/]+$/, Buffer.from('online~cs~CZ~a').toString('base64url')) },
    ],
    ['a nested mask path', { updateMask: 'productAttributes.price.amountMicros' }],
    ['a mask outside productAttributes', { updateMask: 'offerId' }],
    ['a body attribute not in the mask', { updateMask: 'productAttributes.price' }],
  ])('rejects a patch with %s', (_rule, change) => {
    const patch = { name, updateMask: 'productAttributes.price,productAttributes.availability', body: input, ...change };
    expect(GooglePatchRequestSchema.safeParse(patch).success).toBe(false);
  });
  it.each([
    ['storeCode missing', { localInventoryAttributes: { quantity: '1' } }],
    ['a negative quantity', { storeCode: 's', localInventoryAttributes: { quantity: '-1' } }],
    ['a fractional quantity', { storeCode: 's', localInventoryAttributes: { quantity: '1.5' } }],
    ['quantity as a number', { storeCode: 's', localInventoryAttributes: { quantity: 1 } }],
    ['an availability outside the local enum', { storeCode: 's', localInventoryAttributes: { availability: 'PREORDER' } }],
  ])('rejects a local inventory with %s', (_rule, candidate) => {
    expect(GoogleLocalInventorySchema.safeParse(candidate).success).toBe(false);
  });
  it('rejects a data source that is not accounts/{a}/dataSources/{d}', () => {
    expect(GoogleDataSourceSchema.safeParse('dataSources/2').success).toBe(false);
  });
});
