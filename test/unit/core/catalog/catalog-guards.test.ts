import { describe, expect, it } from 'vitest';
import { type CatalogSize, checkPublishable } from '../../../../src/core/catalog/catalog-guards.js';

describe('core/catalog/catalog-guards', () => {
  it.each<[string, CatalogSize | undefined, number, number, true | 'empty' | 'shrink']>([
    ['first catalog', undefined, 10, 0.5, true],
    ['first catalog, empty', undefined, 0, 0.5, 'empty'],
    ['previous empty, next non-empty', { count: 0 }, 5, 0.5, true],
    ['empty after a non-empty one', { count: 1000 }, 0, 0.5, 'empty'],
    ['empty even when any shrink is allowed', { count: 1000 }, 0, 1, 'empty'],
    ['growth', { count: 1000 }, 1500, 0.5, true],
    ['same size', { count: 1000 }, 1000, 0, true],
    ['shrink within the limit', { count: 1000 }, 600, 0.5, true],
    ['shrink of exactly the limit', { count: 1000 }, 500, 0.5, true],
    ['shrink beyond the limit', { count: 1000 }, 400, 0.5, 'shrink'],
    ['shrink by one with no shrink allowed', { count: 1000 }, 999, 0, 'shrink'],
    ['float edge: 57 of 100 with 0.57', { count: 100 }, 43, 0.57, true],
    ['any shrink but empty with 1', { count: 1000 }, 1, 1, true],
  ])('%s', (_name, previous, count, maxShrink, expected) => {
    const result = checkPublishable(previous, { count }, maxShrink);

    expect(result.ok ? true : result.reason).toBe(expected);
  });

  it('explains a refusal', () => {
    const result = checkPublishable({ count: 1000 }, { count: 400 }, 0.5);

    expect(result).toEqual({
      ok: false,
      reason: 'shrink',
      message: 'the catalog would shrink from 1000 to 400 products (60 %), more than the allowed 50 %',
    });
  });

  it.each([-0.1, 1.1, Number.NaN])('rejects maxShrink %d', (maxShrink) => {
    expect(() => checkPublishable(undefined, { count: 1 }, maxShrink)).toThrow(RangeError);
  });
});
