import { describe, expect, it } from 'vitest';
import type { MetaBatchRequest } from '../../../../../src/core/push/payloads/meta.js';
import {
  buildMetaBatchBody,
  buildMetaRequest,
  cutMetaBatches,
  encodeMetaBatchForm,
} from '../../../../../src/core/push/payloads/meta.js';
import { MetaBatchBodySchema, parseMetaBatchForm } from '../../../../fakes/channels/meta-schema.js';
import { CASES, feedItem } from './push-fixtures.js';

const OPTIONS = { currency: 'CZK', brand: 'Pražírna' };
const ALL = { kind: 'update', fields: ['price', 'salePrice', 'availability'] } as const;

function sent(result: ReturnType<typeof buildMetaRequest>): MetaBatchRequest {
  if (result.kind !== 'send') throw new Error(`skipped: ${result.reason}`);
  return result.payload;
}

function valid(requests: MetaBatchRequest[]) {
  const form = encodeMetaBatchForm(buildMetaBatchBody(requests));
  return parseMetaBatchForm(form);
}

describe('core/push/payloads/meta', () => {
  it('a sale of the last piece: UPDATE to out of stock, passing the schema', () => {
    const request = sent(buildMetaRequest('a-1/2', CASES.sale(), { kind: 'update', fields: ['availability'] }, OPTIONS));
    expect(request).toEqual({ method: 'UPDATE', data: { id: 'a-1/2', availability: 'out of stock' } });
    expect(valid([request]).success).toBe(true);
  });

  it('a price change: price and sale price as text with currency, two decimals', () => {
    const request = sent(buildMetaRequest('a-1/2', CASES.priceChange(), ALL, OPTIONS));
    expect(request.data).toEqual({ id: 'a-1/2', price: '0.10 CZK', sale_price: '0.09 CZK', availability: 'in stock' });
    expect(valid([request]).success).toBe(true);
  });

  it('an ended sale sends sale_price empty so Meta clears it', () => {
    const request = sent(buildMetaRequest('a-1/2', feedItem(), { kind: 'update', fields: ['salePrice'] }, OPTIONS));
    expect(request.data).toEqual({ id: 'a-1/2', sale_price: '' });
    expect(valid([request]).success).toBe(true);
  });

  it('a new item: CREATE with the template required fields', () => {
    const request = sent(buildMetaRequest('a-1/2', CASES.newItem(), { kind: 'create' }, OPTIONS));
    expect(request).toEqual({
      method: 'CREATE',
      data: {
        id: 'a-1/2',
        title: 'Káva',
        description: 'Káva',
        availability: 'in stock',
        condition: 'new',
        price: '15.99 CZK',
        link: 'https://shop.example/p/a-1%2F2',
        image_link: 'https://img.example/1001.jpg',
        brand: 'Pražírna',
        gtin: '8594000000013',
      },
    });
    expect(valid([request]).success).toBe(true);
  });

  it('a removed item: DELETE with the id only, no item needed', () => {
    const request = sent(buildMetaRequest('a-1/2', undefined, { kind: 'remove' }, OPTIONS));
    expect(request).toEqual({ method: 'DELETE', data: { id: 'a-1/2' } });
    expect(valid([request]).success).toBe(true);
  });

  it('the body carries item_type and allow_upsert=false', () => {
    const body = buildMetaBatchBody([sent(buildMetaRequest('x', undefined, { kind: 'remove' }, OPTIONS))]);
    expect(body.item_type).toBe('PRODUCT_ITEM');
    expect(body.allow_upsert).toBe(false);
    expect(MetaBatchBodySchema.safeParse(body).success).toBe(true);
  });

  it.each([
    ['no price', { aggregate: { unit: 'all', stock: 1, availability: 'in_stock' as const } }],
    ['neither brand nor GTIN', { ean: '123' }],
  ])('skips a new item the Meta feed drops: %s', (reason, overrides) => {
    const result = buildMetaRequest('a-1/2', feedItem(overrides), { kind: 'create' }, { currency: 'CZK' });
    expect(result).toEqual({ kind: 'skip', reason });
  });

  it('skips an update of fields Meta does not carry and an id over 100 characters', () => {
    expect(buildMetaRequest('a-1/2', feedItem(), { kind: 'update', fields: ['stock'] }, OPTIONS).kind).toBe('skip');
    expect(buildMetaRequest('x'.repeat(101), feedItem(), ALL, OPTIONS).kind).toBe('skip');
  });

  it('cuts batches at the configured size, 3000 by default, keeping order', () => {
    const requests = Array.from({ length: 7001 }, (_, i) => ({ method: 'DELETE' as const, data: { id: `i${i}` } }));
    expect(cutMetaBatches(requests).map((batch) => batch.length)).toEqual([3000, 3000, 1001]);
    expect(cutMetaBatches(requests, 5000).map((batch) => batch.length)).toEqual([5000, 2001]);
    expect(cutMetaBatches(requests, 2).length).toBe(3501);
    expect(cutMetaBatches(requests).flat()).toEqual(requests);
    for (const batch of cutMetaBatches(requests, 5000)) expect(valid(batch).success).toBe(true);
  });

  it('refuses a batch size outside 1..5000', () => {
    expect(() => cutMetaBatches([], 5001)).toThrow(RangeError);
    expect(() => cutMetaBatches([], 0)).toThrow(RangeError);
  });

  it('cuts by encoded bytes too, and a single oversized request travels alone', () => {
    const requests = Array.from({ length: 10 }, (_, i) => ({
      method: 'DELETE' as const,
      data: { id: `${i}`.padStart(50, '0') },
    }));
    const one = encodeURIComponent(JSON.stringify(requests[0])).length + 3;
    expect(cutMetaBatches(requests, 3000, 6 + one * 3).map((batch) => batch.length)).toEqual([3, 3, 3, 1]);
    expect(cutMetaBatches(requests.slice(0, 2), 3000, 10).map((batch) => batch.length)).toEqual([1, 1]);
  });

  it('a batch cut at the byte limit stays under it once form-encoded (Czech text triples)', () => {
    const long = { method: 'UPDATE' as const, data: { id: 'a', price: '1.00 CZK', title: 'Žluťoučký kůň'.repeat(100) } };
    const limit = 100_000;
    for (const batch of cutMetaBatches(
      Array.from({ length: 200 }, () => long),
      3000,
      limit,
    )) {
      const form = encodeMetaBatchForm(buildMetaBatchBody(batch));
      expect(new URLSearchParams(form).get('requests')?.length).toBeGreaterThan(0);
      expect(encodeURIComponent(JSON.stringify(batch)).length).toBeLessThanOrEqual(limit);
    }
  });
});
