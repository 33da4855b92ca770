import { describe, expect, it } from 'vitest';
import { encodedFeed } from '../../../src/services/feeds/encoded-feed.js';
import { type CachedFeed, createFeedCache } from '../../../src/services/feeds/feed-cache.js';

const at = new Date('2026-11-22T10:00:00Z');
const newer = (a: string, b: string) => a > b;

function entry(key: string, version: string, text: string): CachedFeed {
  const bytes = Buffer.from(text);
  const feed = encodedFeed(
    { identity: bytes, gzip: bytes, br: bytes },
    { key, version, lastModified: at, contentType: 'text/plain' },
  );
  return { feed, report: undefined, renderMs: 1 };
}

describe('services/feeds/feed-cache', () => {
  it('keeps the newest render of each key and ignores an older one', () => {
    const cache = createFeedCache({ maxBytes: 1_000_000 });

    cache.put('google', entry('google', 'v2', 'two'), newer);
    cache.put('google', entry('google', 'v1', 'one'), newer);

    expect(cache.latest('google')?.feed.version).toBe('v2');
    expect(cache.latest('google')?.feed.identity.toString()).toBe('two');
  });

  it('gives each feed variant its own tag', () => {
    const a = entry('csv|U1', 'v1', 'a');
    const b = entry('csv|U2', 'v1', 'b');

    expect(a.feed.tag).not.toBe(b.feed.tag);
    expect(a.feed.tag.startsWith('v1-')).toBe(true);
  });

  it('evicts the least recently used beyond its budget, and drops keys on request', () => {
    const cache = createFeedCache({ maxBytes: 4_000 });
    const big = 'x'.repeat(600);
    cache.put('a', entry('a', 'v1', big), newer);
    cache.put('b', entry('b', 'v1', big), newer);
    cache.latest('a');
    cache.put('c', entry('c', 'v1', big), newer);

    expect(cache.latest('b')).toBeUndefined();
    expect(cache.latest('a')).toBeDefined();

    cache.retain((key) => key !== 'a');
    expect([...cache.entries()].map(([key]) => key)).toEqual(['c']);
    expect(cache.stats()).toEqual({ entries: 1, bytes: 1_800 });
  });
});
