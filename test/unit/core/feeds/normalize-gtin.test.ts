import { describe, expect, it } from 'vitest';
import { gtinProblemOf } from '../../../../src/core/feeds/normalize-gtin.js';

describe('gtinProblemOf', () => {
  it('names why a code is not sent as a GTIN, and nothing for a valid one', () => {
    expect(gtinProblemOf('8594000000013')).toBeUndefined();
    expect(gtinProblemOf('8594000000014')).toBe('check-digit');
    expect(gtinProblemOf('85940000000')).toBe('length');
    expect(gtinProblemOf('0000000000000')).toBe('zeros');
    expect(gtinProblemOf('2000000000008')).toBe('restricted');
  });
});
