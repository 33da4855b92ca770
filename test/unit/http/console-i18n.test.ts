import { describe, expect, it } from 'vitest';
import { formatAgo, formatDuration, formatMoney, formatNumber, plural } from '../../../src/core/text/local-text.js';
import { preferredLang } from '../../../src/http/console/i18n.js';

describe('console languages', () => {
  it('takes the preferred language of Accept-Language by q-value, Slovak as Czech, else none', () => {
    expect(preferredLang('cs-CZ,cs;q=0.9,en;q=0.8')).toBe('cs');
    expect(preferredLang('en-US,en;q=0.9,cs;q=0.8')).toBe('en');
    expect(preferredLang('de-DE,en;q=0.5,cs;q=0.7')).toBe('cs');
    expect(preferredLang('sk')).toBe('cs');
    expect(preferredLang('de, fr')).toBeUndefined();
    expect(preferredLang('cs;q=0, en')).toBe('en');
    expect(preferredLang(undefined)).toBeUndefined();
  });

  it('chooses Czech plural forms: 1 / 2–4 / 5+ and 0', () => {
    const forms = { one: '# produkt', few: '# produkty', other: '# produktů' };
    expect([0, 1, 2, 4, 5, 22, 1000].map((n) => plural('cs', n, forms))).toEqual([
      '0 produktů',
      '1 produkt',
      '2 produkty',
      '4 produkty',
      '5 produktů',
      '22 produktů',
      '1\u00a0000 produktů',
    ]);
    expect(plural('en', 1, { one: '# product', other: '# products' })).toBe('1 product');
    expect(plural('en', 3, { one: '# product', other: '# products' })).toBe('3 products');
  });

  it('formats numbers, money, durations and times in the reader’s locale', () => {
    expect(formatNumber('cs', 12345.5)).toBe('12\u00a0345,5');
    expect(formatNumber('en', 12345.5)).toBe('12,345.5');
    expect(formatMoney('cs', 1299, 'CZK')).toBe('1\u00a0299,00\u00a0Kč');
    expect(formatMoney('en', 1299, 'CZK')).toBe('CZK\u00a01,299.00');
    expect(formatMoney('en', 1.5, 'Kč')).toBe('1.50 Kč');
    expect(formatDuration('cs', 850)).toBe('850 ms');
    expect(formatDuration('cs', 12_440)).toBe('12,4 s');
    expect(formatDuration('en', 185_000)).toBe('3 min 5 s');
    const now = new Date('2026-11-26T12:00:00Z');
    expect(formatAgo('en', '2026-11-26T10:00:00Z', now)).toBe('2 hours ago');
    expect(formatAgo('cs', '2026-11-26T10:00:00Z', now)).toBe('před 2 hodinami');
  });
});
