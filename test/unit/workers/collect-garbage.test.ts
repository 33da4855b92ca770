import { describe, expect, it } from 'vitest';
import { collectOnGrowth, createGarbageCollector } from '../../../src/workers/collect-garbage.js';

describe('workers/collect-garbage', () => {
  it('collects only once the heap has grown by the given bytes since the last collection', () => {
    // A baseline of live objects only: garbage left by earlier tests would count against the growth.
    createGarbageCollector()();
    let collections = 0;
    const collect = collectOnGrowth(
      () => {
        collections += 1;
      },
      16 * 1024 * 1024,
    );
    collect();
    expect(collections).toBe(0);
    // ~40 MB of live objects (kept referenced until the calls are made).
    const held = Array.from({ length: 400_000 }, (_, index) => ({ index, text: `item ${index}`.repeat(4) }));
    collect();
    expect(collections).toBe(1);
    // Nothing much allocated since: no second collection.
    collect();
    expect(collections).toBe(1);
    expect(held.length).toBe(400_000);
  });
});
