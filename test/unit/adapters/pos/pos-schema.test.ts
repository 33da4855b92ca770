import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PosClientRecordSchema } from '../../../../src/adapters/pos/pos-address-book-schema.js';
import { SourceArticleSchema, SourceUnitSchema } from '../../../../src/adapters/pos/pos-catalog-schema.js';
import { PosEnvelopeSchema, PosListDataSchema } from '../../../../src/adapters/pos/pos-envelope-schema.js';
import { parseLooseList } from '../../../../src/adapters/pos/pos-loose-list.js';
import { PosMovementSchema } from '../../../../src/adapters/pos/pos-movement-schema.js';
import { PosWebhookEventSchema } from '../../../../src/adapters/pos/pos-webhook-schema.js';

const fullArticle = {
  localId: 'a-1001',
  name: 'Káva zrnková 1 kg',
  localGroupId: 'g-7',
  ean: '8594000000017',
  plu: 1001,
  internalIdentifier: 'KAV-1',
  measureUnit: 'piece',
  isSalesItem: true,
  isStockItem: true,
  isQuick: false,
  salesPrice: 129,
  purchasePrice: 80,
  avgPurchasePrice: 81.35,
};

describe('adapters/pos/pos-schema', () => {
  describe('articles (2.2)', () => {
    it('turns a documented article into a domain article, localGroupId becoming groupId', () => {
      const parsed = SourceArticleSchema.parse(fullArticle);

      expect(parsed).toStrictEqual({
        localId: 'a-1001',
        name: 'Káva zrnková 1 kg',
        groupId: 'g-7',
        ean: '8594000000017',
        plu: 1001,
        internalIdentifier: 'KAV-1',
        measureUnit: 'piece',
        isSalesItem: true,
        isStockItem: true,
        isQuick: false,
        salesPrice: 129,
        purchasePrice: 80,
        avgPurchasePrice: 81.35,
      });
    });

    it('keeps absent optional fields absent (not undefined) and drops extra fields', () => {
      const parsed = SourceArticleSchema.parse({ localId: 'a-1', name: 'Čaj', salesPrice: 35, colour: 'green' });

      expect(parsed).toStrictEqual({ localId: 'a-1', name: 'Čaj', salesPrice: 35 });
      expect(Object.keys(parsed)).toEqual(['localId', 'name', 'salesPrice']);
    });

    it('treats null and blank optional values as absent', () => {
      const parsed = SourceArticleSchema.parse({ localId: 'a-2', name: 'Mléko', ean: '', localGroupId: null, plu: null });

      expect(parsed).toStrictEqual({ localId: 'a-2', name: 'Mléko' });
    });

    it.each([
      ['a decimal string price', { salesPrice: '129.90' }, { salesPrice: 129.9 }],
      ['a numeric string plu', { plu: '1001' }, { plu: 1001 }],
      ['an integer localId', { localId: 42 }, { localId: '42' }],
      ['an integer group id', { localGroupId: 7 }, { groupId: '7' }],
    ])('coerces %s', (_label, patch, expected) => {
      const parsed = SourceArticleSchema.parse({ localId: 'a-3', name: 'X', ...patch });

      expect(parsed).toMatchObject(expected);
    });

    it.each([
      ['a decimal comma', { salesPrice: '129,90' }, 'salesPrice: expected a number'],
      ['a numeric EAN (leading zeros lost)', { ean: 8594000000017 }, 'ean: expected text'],
      ['a string boolean', { isSalesItem: 'false' }, 'isSalesItem: expected true or false'],
      ['a missing name', { name: undefined }, 'name: is required'],
      ['a blank localId', { localId: '  ' }, 'localId: must not be blank'],
    ])('rejects %s', (_label, patch, issue) => {
      const result = parseLooseList([{ localId: 'a-4', name: 'X', ...patch }], SourceArticleSchema);

      expect(result.items).toEqual([]);
      expect(result.rejected[0]?.issues).toContain(issue);
    });
  });

  describe('units (2.3)', () => {
    it('turns a documented unit into a domain unit', () => {
      const parsed = SourceUnitSchema.parse({
        code: 'U1',
        name: 'Pobočka Brno',
        localId: 'u-1',
        priceLists: [{ localId: 'pl-1', externalId: 'ext-1', name: 'Základní' }, { localId: 'pl-2' }],
      });

      expect(parsed).toStrictEqual({
        localId: 'u-1',
        code: 'U1',
        name: 'Pobočka Brno',
        priceLists: [{ localId: 'pl-1', externalId: 'ext-1', name: 'Základní' }, { localId: 'pl-2' }],
      });
    });

    it('accepts priceLists as a single object or missing, and names a nameless unit by its code', () => {
      expect(SourceUnitSchema.parse({ code: 'U2', localId: 'u-2', priceLists: { localId: 'pl-9' } })).toStrictEqual({
        localId: 'u-2',
        code: 'U2',
        name: 'U2',
        priceLists: [{ localId: 'pl-9' }],
      });
      expect(SourceUnitSchema.parse({ code: 'U3', name: 'Praha', localId: 'u-3' }).priceLists).toEqual([]);
    });
  });

  describe('stock movements (2.4)', () => {
    it('parses the documented movement with its nested objects', () => {
      const movement = {
        _id: '65a1',
        count: -2,
        unit: { _id: 'u-1', code: 'U1', name: 'Brno' },
        article: { _id: 'a-1', name: 'Káva', plu: 1001, ean: '8594000000017', internalIdentifier: 'KAV-1', measureUnit: 'ks' },
        warehouseOperation: {
          _id: 'op-1',
          number: 'V-2026-0001',
          currency: 'CZK',
          price: { amount: 100, VAT: 21, amountVAT: 121 },
          createdAt: '2026-11-22T10:00:00Z',
          type: 2,
          receipt: { _id: 'r-1', number: 'R-1', cashier: { _id: 'c-1', name: 'Eva' } },
          supplier: { _id: 's-1', name: 'Dodavatel' },
        },
      };

      expect(PosMovementSchema.parse(movement)).toStrictEqual(movement);
    });

    it('requires only _id and count', () => {
      expect(PosMovementSchema.parse({ _id: 'm-1', count: '3', warehouseOperation: null })).toStrictEqual({
        _id: 'm-1',
        count: 3,
      });
      expect(PosMovementSchema.safeParse({ _id: 'm-2' }).success).toBe(false);
    });
  });

  describe('client (2.5)', () => {
    it('parses a documented client with addresses and keeps extra fields', () => {
      const address = { city: 'Brno', street: 'Husova', buildingNumber: '5', ZIP: '60200', country: 'CZ' };
      const client = {
        _id: 'c-1',
        externalId: 'x-1',
        clientCardIdentifier: 'CARD-1',
        email: 'eva@example.cz',
        phone: '+420777000111',
        address,
        company: { address, name: 'Firma s.r.o.', TIN: '12345678', VATID: 'CZ12345678' },
        clientPoints: 120,
        dateOfBirth: '1990-01-01',
        reverseChargeEU: false,
        note: 'VIP',
        benefits: { discountScope: 'none' },
      };

      expect(PosClientRecordSchema.parse(client)).toStrictEqual(client);
    });
  });

  describe('envelope (2.1) and list data', () => {
    it('accepts an envelope with only data, and one with all five fields', () => {
      expect(PosEnvelopeSchema.parse({ data: { items: [] } })).toStrictEqual({ data: { items: [] } });
      expect(
        PosEnvelopeSchema.parse({ data: {}, isValid: false, errors: ['Bad key'], warnings: [], messages: ['hi'] }),
      ).toStrictEqual({ data: {}, isValid: false, errors: ['Bad key'], warnings: [], messages: ['hi'] });
    });

    it('turns message entries of any shape into text', () => {
      const parsed = PosEnvelopeSchema.parse({ errors: [{ message: 'Unit not found' }, 42], warnings: 'single' });

      expect(parsed.errors).toEqual(['Unit not found', '42']);
      expect(parsed.warnings).toEqual(['single']);
    });

    it('accepts items as a single object (quirk 3) and requires items', () => {
      const single = PosListDataSchema.parse({ total: 1, items: { _id: 'm-1', count: 1 } });

      expect(single.items).toEqual({ _id: 'm-1', count: 1 });
      expect(parseLooseList(single.items, PosMovementSchema).items).toEqual([{ _id: 'm-1', count: 1 }]);
      expect(PosListDataSchema.safeParse({ total: 0 }).success).toBe(false);
    });
  });

  describe('parseLooseList', () => {
    it('keeps the good items and reports bad ones with id, index and reason', () => {
      const result = parseLooseList(
        [
          { localId: 'a-1', name: 'Good' },
          { localId: 'a-2', salesPrice: 'cheap' },
          'not an item',
          { localId: 'a-4', name: 'Also good' },
        ],
        SourceArticleSchema,
        { offset: 500 },
      );

      expect(result.items.map((item) => item.localId)).toEqual(['a-1', 'a-4']);
      expect(result.rejected).toEqual([
        { id: 'a-2', index: 501, issues: ['name: is required', 'salesPrice: expected a number'] },
        { index: 502, issues: [expect.stringContaining('expected object')] },
      ]);
    });

    it('reads null as an empty list and a primitive as one rejected entry', () => {
      expect(parseLooseList(null, SourceArticleSchema)).toEqual({ items: [], rejected: [] });
      expect(parseLooseList('oops', SourceArticleSchema).rejected).toEqual([
        { index: 0, issues: ['expected a list of items, got string'] },
      ]);
    });

    it('never throws on arbitrary JSON values', () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          for (const schema of [SourceArticleSchema, SourceUnitSchema, PosMovementSchema]) {
            const result = parseLooseList(value, schema);
            expect(result.items.length + result.rejected.length).toBeGreaterThanOrEqual(0);
          }
        }),
        { numRuns: 300 },
      );
    });

    it('never throws on lists of article-like JSON objects, and accounts for every item', () => {
      const articleLike = fc.record(
        {
          localId: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
          name: fc.oneof(fc.string(), fc.constant(null)),
          ean: fc.oneof(fc.string(), fc.integer()),
          salesPrice: fc.oneof(fc.double(), fc.string(), fc.constant(null)),
          isSalesItem: fc.oneof(fc.boolean(), fc.string()),
          extra: fc.jsonValue(),
        },
        { requiredKeys: [] },
      );
      fc.assert(
        fc.property(fc.array(articleLike, { maxLength: 20 }), (list) => {
          const result = parseLooseList(list, SourceArticleSchema);
          expect(result.items.length + result.rejected.length).toBe(list.length);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('webhook events (part 6)', () => {
    const receipt = {
      number: '2026-000123',
      total: { amount: 100, VAT: 21, amountVAT: 121 },
      localId: 'r-123',
      tip: 0,
      note: '',
      table: '4',
      state: 'open',
      paymentType: 'transfer',
      device: { localId: 'd-1', uuid: '5f0c…' },
      cashier: { localId: 'c-1' },
      client: { localId: 'cl-1' },
    };

    it('parses the sale event with unitId and accountId', () => {
      const parsed = PosWebhookEventSchema.parse({
        timestamp: '2026-11-22T10:00:00Z',
        event: 'accounting.receipt.sale',
        accountId: 'acc-1',
        unitId: 'u-1',
        data: receipt,
      });

      expect(parsed.kind).toBe('sale');
      expect(parsed).toMatchObject({ unitId: 'u-1', accountId: 'acc-1', data: { number: '2026-000123', state: 'open' } });
      // A blank note is "no note".
      expect(parsed.kind === 'sale' && 'note' in parsed.data).toBe(false);
    });

    it('parses the sale event without unitId and accountId', () => {
      const parsed = PosWebhookEventSchema.parse({
        timestamp: '2026-11-22T10:00:00Z',
        event: 'accounting.receipt.sale',
        data: receipt,
      });

      expect(parsed.kind).toBe('sale');
      expect('unitId' in parsed).toBe(false);
      expect('accountId' in parsed).toBe(false);
    });

    it('parses the client-points event', () => {
      const parsed = PosWebhookEventSchema.parse({
        timestamp: '2026-11-22T10:00:00Z',
        event: 'address-book.client.points',
        accountId: 'acc-1',
        data: {
          received: 12,
          spent: 0,
          balance: 132,
          client: { localId: 'cl-1' },
          receipt: { localId: 'r-123', number: '2026-000123' },
        },
      });

      expect(parsed).toStrictEqual({
        kind: 'client-points',
        timestamp: '2026-11-22T10:00:00Z',
        event: 'address-book.client.points',
        accountId: 'acc-1',
        data: {
          received: 12,
          spent: 0,
          balance: 132,
          client: { localId: 'cl-1' },
          receipt: { localId: 'r-123', number: '2026-000123' },
        },
      });
    });

    it('accepts unknown event kinds as kind "unknown"', () => {
      const parsed = PosWebhookEventSchema.parse({ timestamp: 't', event: 'accounting.cash.flow', data: { amount: 5 } });

      expect(parsed.kind).toBe('unknown');
    });

    it.each([
      ['missing timestamp', { event: 'accounting.receipt.sale', data: receipt }, 'timestamp'],
      ['data not an object', { timestamp: 't', event: 'accounting.receipt.sale', data: [1] }, 'data'],
      [
        'a wrongly typed nested field',
        { timestamp: 't', event: 'address-book.client.points', data: { balance: 'lots' } },
        'data.balance',
      ],
    ])('rejects a %s, naming the path', (_label, body, path) => {
      const parsed = PosWebhookEventSchema.safeParse(body);

      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(path);
    });
  });
});
