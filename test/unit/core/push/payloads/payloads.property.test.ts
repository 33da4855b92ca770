import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildGoogleProductRequest } from '../../../../../src/core/push/payloads/google.js';
import { buildMetaRequest, cutMetaBatches } from '../../../../../src/core/push/payloads/meta.js';
import { cutShoptetBatches } from '../../../../../src/core/push/payloads/shoptet.js';
import { GoogleProductInputSchema } from '../../../../fakes/channels/google-schema.js';
import { MetaBatchRequestSchema } from '../../../../fakes/channels/meta-schema.js';
import { feedItem } from './push-fixtures.js';

describe('core/push/payloads (properties)', () => {
  it('Meta cutting: every batch within the size, order and items kept', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 5000 }), (count, size) => {
        const requests = Array.from({ length: count }, (_, i) => ({ method: 'DELETE' as const, data: { id: `${i}` } }));
        const batches = cutMetaBatches(requests, size);
        expect(batches.every((batch) => batch.length >= 1 && batch.length <= size)).toBe(true);
        expect(batches.flat()).toEqual(requests);
        expect(batches.length).toBe(Math.ceil(count / size));
      }),
    );
  });

  it('Shoptet cutting: every body within the size, order and items kept', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 300 }), (count, size) => {
        const items = Array.from({ length: count }, (_, i) => ({ productCode: `${i}`, quantity: i }));
        const bodies = cutShoptetBatches(items, size);
        expect(bodies.every((body) => body.data.length >= 1 && body.data.length <= size)).toBe(true);
        expect(bodies.flatMap((body) => body.data)).toEqual(items);
      }),
    );
  });

  it('new items with any price and enrichment text pass both channels schemas', () => {
    const cents = fc.integer({ min: 0, max: 10_000_000 });
    const text = fc.string({ minLength: 1, maxLength: 400, unit: 'grapheme-ascii' }).filter((value) => value.trim() !== '');
    fc.assert(
      fc.property(cents, text, text, (priceCents, title, description) => {
        const item = feedItem({
          enrichment: { title, description, brand: 'B' },
          aggregate: { unit: 'all', price: priceCents / 100, stock: 1, availability: 'in_stock' },
        });
        const meta = buildMetaRequest(item.id, item, { kind: 'create' }, { currency: 'CZK' });
        expect(meta.kind === 'send' && MetaBatchRequestSchema.safeParse(meta.payload).success).toBe(true);
        const options = { account: '1', contentLanguage: 'cs', feedLabel: 'CZ', currency: 'CZK' };
        const google = buildGoogleProductRequest(item.id, item, { kind: 'create' }, options);
        expect(google.kind === 'send' && google.payload.method === 'insert').toBe(true);
        if (google.kind === 'send' && google.payload.method === 'insert') {
          expect(GoogleProductInputSchema.safeParse(google.payload.body).success).toBe(true);
          expect(google.payload.body.productAttributes.price?.amountMicros).toBe(String(priceCents * 10_000));
        }
      }),
    );
  });
});
