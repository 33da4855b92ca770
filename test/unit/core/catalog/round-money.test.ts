import { describe, expect, it } from 'vitest';
import { roundMoney, roundQuantity, toMoney } from '../../../../src/core/catalog/round-money.js';

describe('core/catalog/round-money', () => {
  it.each<[number, number]>([
    [129, 129],
    [129.9, 129.9],
    [1.005, 1.01],
    [1.004, 1],
    [0.1 + 0.2, 0.3],
    [15.215, 15.22],
    [-1.005, -1.01],
    [-0.001, 0],
    [1e-9, 0],
    [1e21, 1e21],
  ])('roundMoney(%d) = %d', (value, expected) => {
    const result = roundMoney(value);

    expect(result).toBe(expected);
  });

  it.each<[number, number]>([
    [0.1 + 0.2, 0.3],
    [1.0000004, 1],
    [-2.5, -2.5],
    [0.001, 0.001],
  ])('roundQuantity(%d) = %d', (value, expected) => {
    const result = roundQuantity(value);

    expect(result).toBe(expected);
  });

  it.each<[number | undefined, number | undefined]>([
    [undefined, undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [-0.01, undefined],
    [0, 0],
    [99.999, 100],
  ])('toMoney(%s) = %s', (value, expected) => {
    const result = toMoney(value);

    expect(result).toBe(expected);
  });
});
