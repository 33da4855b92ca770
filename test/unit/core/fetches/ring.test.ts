import { describe, expect, it } from 'vitest';
import { createRing } from '../../../../src/core/fetches/ring.js';

describe('createRing', () => {
  it('keeps the last `capacity` items, newest first', () => {
    const ring = createRing<number>(3);
    for (let i = 1; i <= 7; i++) ring.push(i);
    expect(ring.size).toBe(3);
    expect(ring.newest()).toEqual([7, 6, 5]);
    expect(ring.newest(2)).toEqual([7, 6]);
  });

  it('answers what it has before it is full', () => {
    const ring = createRing<string>(5);
    ring.push('a');
    ring.push('b');
    expect(ring.newest()).toEqual(['b', 'a']);
    expect(ring.newest(10)).toEqual(['b', 'a']);
  });

  it('refuses a capacity below one', () => {
    expect(() => createRing(0)).toThrow(RangeError);
  });
});
