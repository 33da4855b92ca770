import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDecimal } from '../../../../src/adapters/pos/parse-number.js';

describe('adapters/pos/parse-number', () => {
  it.each([
    ['1234.5', 1234.5],
    ['1234,5', 1234.5],
    ['1 234,50', 1234.5],
    ['1\u00A0234,50', 1234.5],
    ['1\u202F234,50', 1234.5],
    ['1 234 567.25', 1234567.25],
    ['1.234,50', 1234.5],
    ['1.234.567', 1234567],
    ['1,234,567.5', 1234567.5],
    ['-3', -3],
    ['\u22123', -3],
    ['+2', 2],
    ['12.000', 12],
    ['12,000', 12],
    ['0.250', 0.25],
    ['-1.500', -1.5],
    ['.5', 0.5],
    [',5', 0.5],
    ['5.', 5],
    ['007', 7],
    ['  42  ', 42],
    ['-0', 0],
    ['0', 0],
  ])('reads %j as %d', (text, expected) => {
    expect(parseDecimal(text)).toBe(expected);
  });

  it.each([
    [''],
    ['   '],
    ['abc'],
    ['12 ks'],
    ['12 34'],
    ['1.23.4'],
    ['1,234.567,8'],
    ['1.234.5'],
    ['1e3'],
    ['--1'],
    ['+-1'],
    ['- 1'],
    ['.'],
    [','],
    ['NaN'],
    ['Infinity'],
    ['0x10'],
    ['1'.repeat(400)],
  ])('rejects %j', (text) => {
    expect(parseDecimal(text)).toBeUndefined();
  });

  it('reads back every number it is given in any of the accepted spellings', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }),
        fc.constantFrom('.', ','),
        fc.constantFrom('', ' ', '\u00A0', '\u202F'),
        (thousandths, decimal, group) => {
          const [integer = '', fraction = ''] = Math.abs(thousandths / 1000)
            .toFixed(3)
            .split('.');
          const grouped = group === '' ? integer : integer.replace(/\B(?=(\d{3})+$)/g, group);
          const text = `${thousandths < 0 ? '-' : ''}${grouped}${decimal}${fraction}`;

          expect(parseDecimal(text)).toBe(thousandths / 1000);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads plain digits with one dot (its fast path) as the general path reads them', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{0,30}(\.[0-9]{0,30})?$/), (text) => {
        // A leading space keeps the text off the fast path: the general path trims it and reads the rest.
        const general = parseDecimal(` ${text}`);

        expect(parseDecimal(text)).toBe(general);
        if (general !== undefined) expect(Object.is(parseDecimal(text), -0)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
