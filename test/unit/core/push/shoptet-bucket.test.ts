import { describe, expect, it } from 'vitest';
import { SHOPTET_SLOW_LIMITS, shoptetBucketPacing } from '../../../../src/core/push/shoptet-bucket.js';

const NORMAL = { capacity: 2, refillPerSecond: 2, maxConcurrent: 2 };

describe('core/push/shoptet-bucket', () => {
  it('keeps the normal pace up to 80 % of the bucket', () => {
    expect(shoptetBucketPacing({ used: 0, max: 200 }, NORMAL)).toEqual({ slow: false, limits: NORMAL, waitMs: 0 });
    expect(shoptetBucketPacing({ used: 160, max: 200 }, NORMAL)).toEqual({ slow: false, limits: NORMAL, waitMs: 0 });
  });

  it('above 80 % slows to one call at a time and waits until 10 drops a second leaked it back to 80 %', () => {
    expect(shoptetBucketPacing({ used: 161, max: 200 }, NORMAL)).toEqual({
      slow: true,
      limits: SHOPTET_SLOW_LIMITS,
      waitMs: 100,
    });
    expect(shoptetBucketPacing({ used: 200, max: 200 }, NORMAL)).toEqual({
      slow: true,
      limits: SHOPTET_SLOW_LIMITS,
      waitMs: 4000,
    });
    expect(SHOPTET_SLOW_LIMITS.maxConcurrent).toBe(1);
  });

  it('a bucket of another size scales the same way; a zero size is ignored', () => {
    expect(shoptetBucketPacing({ used: 90, max: 100 }, NORMAL).waitMs).toBe(1000);
    expect(shoptetBucketPacing({ used: 5, max: 0 }, NORMAL).slow).toBe(false);
  });
});
