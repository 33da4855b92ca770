import { describe, expect, it } from 'vitest';
import { createSlicer, forEachSliced } from '../../../../src/core/async/create-slicer.js';

describe('core/async/create-slicer', () => {
  it('yields to the event loop only once the slice is spent', async () => {
    const slicer = createSlicer(1_000);
    expect(slicer.next()).toBeUndefined();

    const spent = createSlicer(0);
    const start = performance.now();
    while (performance.now() - start < 1) {
      // spend the budget
    }
    let timerRan = false;
    setImmediate(() => {
      timerRan = true;
    });
    await spent.next();

    expect(timerRan).toBe(true);
  });

  it('visits every index in order, letting other work run between slices', async () => {
    const seen: number[] = [];
    let interleaved = false;
    const ticker = setInterval(() => {
      interleaved = true;
    }, 0);

    await forEachSliced(
      20_000,
      (index) => {
        seen.push(index);
        const until = performance.now() + 0.001;
        while (performance.now() < until) {
          // a little work per index
        }
      },
      { budgetMs: 1, stride: 64 },
    );
    clearInterval(ticker);

    expect(seen).toEqual(Array.from({ length: 20_000 }, (_, index) => index));
    expect(interleaved).toBe(true);
  });
});
