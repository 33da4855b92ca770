import { describe, expect, it } from 'vitest';
import type { FeedChunks, FeedReport } from '../../../../src/core/feeds/feed-report.js';
import { type LockstepFeed, renderInLockstep } from '../../../../src/services/feeds/render-in-lockstep.js';

const report = (name: string): FeedReport => ({ feed: name }) as unknown as FeedReport;

/** A render over `total` products that reads `perPart` of them for each part it gives back. */
function feed(name: string, total: number, perPart: number, log: number[][]): LockstepFeed & { readonly text: string[] } {
  let position = 0;
  const text: string[] = [];
  function* render(): FeedChunks {
    while (position < total) {
      const from = position;
      position = Math.min(total, position + perPart);
      log.push([from, position]);
      yield `${name}:${from}-${position};`;
    }
    return report(name);
  }
  return { chunks: render(), position: () => position, write: (part) => text.push(part), text };
}

describe('renderInLockstep', () => {
  it('renders every feed whole, in order, and returns their reports in the order of the feeds', () => {
    const log: number[][] = [];
    const feeds = [feed('a', 100, 7, log), feed('b', 100, 30, log), feed('c', 100, 100, log)];
    const reports = renderInLockstep(feeds);
    expect(reports).toEqual([report('a'), report('b'), report('c')]);
    expect(feeds[0]?.text.join('')).toBe(
      Array.from({ length: 15 }, (_, i) => `a:${i * 7}-${Math.min(100, i * 7 + 7)};`).join(''),
    );
    expect(feeds[2]?.text).toEqual(['c:0-100;']);
  });

  it('always advances the feed furthest behind, so feeds stay within one part of each other', () => {
    const log: number[][] = [];
    const positions: LockstepFeed[] = [];
    const feeds = [feed('a', 1000, 10, log), feed('b', 1000, 25, log), feed('c', 1000, 40, log)];
    positions.push(...feeds);
    const spread: number[] = [];
    const watched = feeds.map(
      (inner): LockstepFeed => ({
        ...inner,
        write(part) {
          const at = positions.map((f) => f.position());
          spread.push(Math.max(...at) - Math.min(...at));
          inner.write(part);
        },
      }),
    );
    renderInLockstep(watched);
    // Never more apart than the largest part a render reads at once.
    expect(Math.max(...spread)).toBeLessThanOrEqual(40);
  });

  it('stops at a render that throws', () => {
    function* failing(): FeedChunks {
      yield 'x';
      throw new Error('template failed');
    }
    const log: number[][] = [];
    const good = feed('a', 100, 10, log);
    expect(() => renderInLockstep([good, { chunks: failing(), position: () => 0, write: () => {} }])).toThrow('template failed');
  });

  it('returns nothing for no feeds', () => {
    expect(renderInLockstep([])).toEqual([]);
  });
});
