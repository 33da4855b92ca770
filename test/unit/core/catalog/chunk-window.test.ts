import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeItems } from '../../../../src/core/catalog/catalog-chunks.js';
import { createChunkWindow } from '../../../../src/core/catalog/chunk-window.js';

interface Item {
  readonly id: number;
}

const items: Item[] = Array.from({ length: 1000 }, (_, id) => ({ id }));
// About 50 items a chunk: 20 chunks.
const chunks = serializeItems(items, { chunkBytes: 500 });

describe('createChunkWindow', () => {
  it('reads every item in order, counting its position, and knows the length without parsing', () => {
    expect(chunks.length).toBeGreaterThan(10);
    const window = createChunkWindow<Item>(chunks, 4);
    expect(window.length).toBe(1000);
    expect(window.parses).toBe(0);
    const pass = window.pass();
    const seen: number[] = [];
    for (const item of pass) {
      seen.push(item.id);
      expect(pass.position).toBe(seen.length);
    }
    expect(seen).toEqual(items.map((item) => item.id));
    expect(window.parses).toBe(chunks.length);
  });

  it('parses each chunk once for passes that walk side by side', () => {
    const window = createChunkWindow<Item>(chunks, 2);
    const passes = [window.pass(), window.pass(), window.pass()].map((pass) => pass[Symbol.iterator]());
    for (let step = 0; step < items.length; step += 1) {
      for (const pass of passes) expect(pass.next().value).toEqual({ id: step });
    }
    expect(window.parses).toBe(chunks.length);
  });

  it('parses again only what a pass running ahead of the window left behind, and holds at most the window', () => {
    const window = createChunkWindow<Item>(chunks, 3);
    const ahead = [...window.pass()];
    expect(window.parses).toBe(chunks.length);
    // The three last chunks are still parsed; the first ones are parsed again for a second pass.
    const behind = [...window.pass()];
    expect(behind).toEqual(ahead);
    expect(window.parses).toBe(2 * chunks.length);
  });

  it('calls onParse with the count after each parse', () => {
    const counts: number[] = [];
    const window = createChunkWindow<Item>(chunks, 1, { onParse: (parses) => counts.push(parses) });
    for (const _item of window.pass()) {
      // read through
    }
    expect(counts).toEqual(chunks.map((_chunk, index) => index + 1));
  });

  it('reads a pass once: its position is what a lockstep render steers by', () => {
    const pass = createChunkWindow<Item>(chunks, 2).pass();
    expect([...pass]).toHaveLength(items.length);
    expect(() => [...pass]).toThrow('read once');
    expect(pass.position).toBe(items.length);
  });

  it('refuses a window of no chunks', () => {
    expect(() => createChunkWindow(chunks, 0)).toThrow(RangeError);
    expect(() => createChunkWindow(chunks, 1.5)).toThrow(RangeError);
  });

  it('gives every pass every item in order, however passes interleave and whatever the window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 25 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 400 }),
        (capacity, schedule) => {
          const window = createChunkWindow<Item>(chunks, capacity);
          const passes = Array.from({ length: 4 }, () => ({ iterator: window.pass()[Symbol.iterator](), next: 0 }));
          for (const which of schedule) {
            const pass = passes[which] as (typeof passes)[number];
            for (let step = 0; step < 37; step += 1) {
              const result = pass.iterator.next();
              if (result.done === true) {
                expect(pass.next).toBe(items.length);
                break;
              }
              expect(result.value.id).toBe(pass.next);
              pass.next += 1;
            }
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
