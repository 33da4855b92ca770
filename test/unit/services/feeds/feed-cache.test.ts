import { describe, expect, it } from 'vitest';
import { encodeBody, encodedFeed, encodedSize } from '../../../../src/services/feeds/encoded-feed.js';
import { type CachedFeed, createFeedCache } from '../../../../src/services/feeds/feed-cache.js';

const at = new Date('2026-11-22T10:00:00Z');
const newer = (a: string, b: string) => a > b;

/** A feed whose identity, gzip and br stand-ins are `text` (so its size is three times the text's). */
function entry(key: string, version: string, text: string): CachedFeed {
  const bytes = Buffer.from(text);
  const feed = encodedFeed(
    { identity: bytes, identityLength: bytes.length, gzip: bytes, br: bytes },
    { key, version, lastModified: at, contentType: 'text/plain' },
  );
  return { feed, report: undefined, renderMs: 1 };
}

const big = 'x'.repeat(400);

describe('services/feeds/feed-cache', () => {
  it('keeps the newest render of each key and ignores an older one', () => {
    const cache = createFeedCache({ maxBytes: 1_000_000 });

    cache.put('google', entry('google', 'v2', 'two'), newer);
    cache.put('google', entry('google', 'v1', 'one'), newer);

    expect(cache.latest('google')?.feed.version).toBe('v2');
    expect(cache.latest('google')?.feed.gzip?.toString()).toBe('two');
  });

  it('gives each feed variant its own tag', () => {
    const a = entry('csv|U1', 'v1', 'a');
    const b = entry('csv|U2', 'v1', 'b');

    expect(a.feed.tag).not.toBe(b.feed.tag);
    expect(a.feed.tag.startsWith('v1-')).toBe(true);
  });

  it('evicts the least recently used beyond its budget, and drops keys on request', () => {
    const cache = createFeedCache({ maxBytes: 3_000 });
    cache.put('a', entry('a', 'v1', big), newer);
    cache.put('b', entry('b', 'v1', big), newer);
    cache.latest('a');
    cache.put('c', entry('c', 'v1', big), newer);

    expect(cache.latest('b')).toBeUndefined();
    expect(cache.latest('a')).toBeDefined();

    cache.retain((key) => key !== 'a');
    expect([...cache.entries()].map(([key]) => key)).toEqual(['c']);
    expect(cache.stats()).toEqual({ entries: 1, bytes: 1_200 });
  });

  it('tells which entry a put replaced, and which entries it evicted to make room', () => {
    const evicted: string[] = [];
    const cache = createFeedCache({ maxBytes: 2_500, onEvict: (key, dropped) => evicted.push(`${key}@${dropped.feed.version}`) });
    const first = entry('a', 'v1', big);

    expect(cache.put('a', first, newer)).toEqual({ kept: true });
    expect(cache.put('a', entry('a', 'v0', big), newer)).toEqual({ kept: false });
    expect(cache.put('a', entry('a', 'v2', big), newer)).toEqual({ kept: true, replaced: first });
    cache.put('b', entry('b', 'v1', big), newer);
    cache.put('c', entry('c', 'v1', big), newer);
    cache.retain((key) => key !== 'c');

    // A replaced entry is the caller's to delete; evictions (to make room, by `retain`) are told.
    expect(evicted).toEqual(['a@v2', 'c@v1']);
  });

  it('counts what a feed holds: all three forms of a compressible body, the body alone of one compressed already', async () => {
    const text = Buffer.from('<item>Káva &amp; čaj</item>'.repeat(2_000));
    const zipped = Buffer.from('PK\u0003\u0004 a workbook');
    const compressed = await encodeBody(text);
    const workbook = await encodeBody(zipped, false);
    const cache = createFeedCache({ maxBytes: 10_000_000 });

    cache.put(
      'feed.xml',
      {
        feed: encodedFeed(compressed, { key: 'feed.xml', version: 'v1', lastModified: at, contentType: 'x' }),
        report: undefined,
        renderMs: 1,
      },
      newer,
    );
    cache.put(
      'products.xlsx',
      {
        feed: encodedFeed(workbook, { key: 'products.xlsx', version: 'v1', lastModified: at, contentType: 'x' }),
        report: undefined,
        renderMs: 1,
      },
      newer,
    );

    // Every form is kept: no answer is inflated or compressed per request.
    expect(compressed.identity.equals(text)).toBe(true);
    expect(compressed.identityLength).toBe(text.length);
    expect(encodedSize(compressed)).toBe(text.length + (compressed.gzip?.length ?? 0) + (compressed.br?.length ?? 0));
    expect(workbook.identity?.equals(zipped)).toBe(true);
    expect(encodedSize(workbook)).toBe(zipped.length);
    expect(cache.stats()).toEqual({ entries: 2, bytes: encodedSize(compressed) + zipped.length });
  });

  it('never evicts a pinned key to make room: other entries give way first', () => {
    const cache = createFeedCache({ maxBytes: 3_000 });
    cache.pin(['google', 'heureka']);
    cache.put('google', entry('google', 'v1', big), newer);
    cache.put('unit', entry('unit', 'v1', big), newer);
    cache.put('heureka', entry('heureka', 'v1', big), newer);

    // 3,600 bytes over a budget of 3,000: the least recently used unpinned entry went.
    expect([...cache.entries()].map(([key]) => key)).toEqual(['google', 'heureka']);
    expect(cache.stats().bytes).toBe(2_400);
  });

  it('keeps pinned entries beyond the budget when they alone exceed it, and the one just put until the next', () => {
    const cache = createFeedCache({ maxBytes: 1_000 });
    cache.pin(['google', 'heureka', 'meta']);
    for (const key of ['google', 'heureka', 'meta']) cache.put(key, entry(key, 'v1', big), newer);

    expect(cache.stats()).toEqual({ entries: 3, bytes: 3_600 });

    // Another feed is kept while it is the newest put (its request is answered from it), then gives way.
    cache.put('unit-1', entry('unit-1', 'v1', big), newer);
    expect(cache.latest('unit-1')).toBeDefined();
    cache.put('unit-2', entry('unit-2', 'v1', big), newer);
    expect(cache.latest('unit-1')).toBeUndefined();
    expect([...cache.entries()].map(([key]) => key).sort()).toEqual(['google', 'heureka', 'meta', 'unit-2']);
  });

  it('replaces a pinned key by its newer render, which stays pinned, and unpins keys no longer pinned', () => {
    const cache = createFeedCache({ maxBytes: 1_000 });
    cache.pin(['google', 'heureka']);
    cache.put('google', entry('google', 'v1', big), newer);
    cache.put('heureka', entry('heureka', 'v1', big), newer);
    cache.put('google', entry('google', 'v2', big), newer);

    expect(cache.latest('google')?.feed.version).toBe('v2');
    expect(cache.stats().entries).toBe(2);

    cache.pin(['google']);
    cache.put('unit', entry('unit', 'v2', big), newer);
    expect([...cache.entries()].map(([key]) => key).sort()).toEqual(['google', 'unit']);
  });
});
