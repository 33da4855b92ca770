import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  dataSourceName,
  decodeProductId,
  GOOGLE_OFFER_ID_MAX,
  GoogleNameError,
  productId,
  productInputName,
  productName,
} from '../../../../src/core/push/google-offer-id.js';

const cz = (offerId: string) => ({ contentLanguage: 'cs', feedLabel: 'CZ', offerId });
const fromB64 = (segment: string) => Buffer.from(segment, 'base64url').toString('utf8');

describe('core/push/google-offer-id productId', () => {
  it("encodes Google's own example: en~US~sku/123 is ZW5-VVN-c2t1LzEyMw", () => {
    expect(productId({ contentLanguage: 'en', feedLabel: 'US', offerId: 'sku/123' })).toBe('ZW5-VVN-c2t1LzEyMw');
  });

  it('encodes every id, plain ones too, as unpadded base64url of cs~CZ~id', () => {
    const id = productId(cz('12345'));
    expect(id).toBe('Y3N-Q1p-MTIzNDU');
    expect(fromB64(id)).toBe('cs~CZ~12345');
    expect(id).not.toContain('=');
  });

  it('keeps ids with ~, /, %, diacritics and emoji intact and URL-safe', () => {
    for (const offerId of ['a~b', '~', 'a~~b~', '43/BIL', '100%', 'žluťoučký-kůň', 'Čaj ÚČTENKA', '🍺-1', 'a+b?c=d#e']) {
      const id = productId(cz(offerId));
      expect(id, offerId).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(fromB64(id)).toBe(`cs~CZ~${offerId}`);
      expect(decodeProductId(id)).toEqual(cz(offerId));
    }
  });

  it('encodes text as UTF-8, so composed and decomposed diacritics stay distinct ids', () => {
    const composed = productId(cz('kůň'));
    const decomposed = productId(cz('ku\u030An\u030C'));
    expect(composed).toBe(Buffer.from('cs~CZ~kůň', 'utf8').toString('base64url'));
    expect(composed).not.toBe(decomposed);
  });

  it('refuses ids Google would not take, with a clear message', () => {
    expect(() => productId(cz(''))).toThrow(GoogleNameError);
    expect(() => productId(cz(''))).toThrow('offerId must not be empty');
    expect(() => productId(cz('x'.repeat(GOOGLE_OFFER_ID_MAX + 1)))).toThrow('51 characters, more than the 50');
    expect(productId(cz('ž'.repeat(GOOGLE_OFFER_ID_MAX)))).toMatch(/^[A-Za-z0-9_-]+$/); // 50 code points, 100 bytes
    expect(() => productId(cz('ab\uD800'))).toThrow('well-formed');
    expect(() => productId({ ...cz('1'), contentLanguage: 'CS' })).toThrow('contentLanguage');
    expect(() => productId({ ...cz('1'), contentLanguage: 'ces' })).toThrow('contentLanguage');
    expect(() => productId({ ...cz('1'), feedLabel: 'C~Z' })).toThrow('feedLabel');
    expect(() => productId({ ...cz('1'), feedLabel: '' })).toThrow('feedLabel');
  });
});

describe('core/push/google-offer-id names', () => {
  it('builds the v1 product input, product and data source names', () => {
    expect(productInputName('123', cz('sku/1'))).toBe(`accounts/123/productInputs/${productId(cz('sku/1'))}`);
    expect(productName('123', cz('sku/1'))).toBe(`accounts/123/products/${productId(cz('sku/1'))}`);
    expect(dataSourceName('123', '456')).toBe('accounts/123/dataSources/456');
  });

  it('never puts an online~ prefix (v1beta only) in a v1 name', () => {
    expect(fromB64(productId(cz('1')))).not.toMatch(/^online~/);
  });

  it('refuses account and data source ids that are not digits', () => {
    expect(() => productInputName('12a', cz('1'))).toThrow('accountId must be digits only');
    expect(() => productName('', cz('1'))).toThrow(GoogleNameError);
    expect(() => dataSourceName('1', '../2')).toThrow('dataSourceId must be digits only');
    expect(() => dataSourceName('1'.repeat(21), '2')).toThrow('accountId');
  });
});

describe('core/push/google-offer-id decodeProductId', () => {
  it('refuses segments Google would not read as this structure', () => {
    expect(decodeProductId('cs~CZ~123')).toBeUndefined(); // the plain form: we always send encoded
    expect(decodeProductId('Y3N-Q1p-MTIzNDU=')).toBeUndefined(); // padded
    expect(decodeProductId(Buffer.from('cs~CZ~1?>').toString('base64'))).toBeUndefined(); // +/ alphabet
    expect(decodeProductId(Buffer.from('cs~CZ').toString('base64url'))).toBeUndefined(); // no offer id part
    expect(decodeProductId(Buffer.from('online~cs~CZ~1').toString('base64url'))).toBeUndefined(); // v1beta form
    expect(decodeProductId(Buffer.from([0x63, 0x73, 0x7e, 0x43, 0x5a, 0x7e, 0xff]).toString('base64url'))).toBeUndefined();
    expect(decodeProductId('Y3N-Q1p-MTIzNDV')).toBeUndefined(); // non-canonical trailing bits
    expect(decodeProductId('')).toBeUndefined();
  });

  it('reads back any valid key it encoded', () => {
    const offerIdArb = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: GOOGLE_OFFER_ID_MAX })
      .filter((s) => [...s].length <= GOOGLE_OFFER_ID_MAX);
    const keyArb = fc.record({
      contentLanguage: fc.stringMatching(/^[a-z]{2}$/),
      feedLabel: fc.stringMatching(/^[A-Z0-9_-]{1,20}$/),
      offerId: offerIdArb,
    });
    fc.assert(
      fc.property(keyArb, (key) => {
        const id = productId(key);
        expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeProductId(id)).toEqual(key);
      }),
      { numRuns: 500 },
    );
  });
});
