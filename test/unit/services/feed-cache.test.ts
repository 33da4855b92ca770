import { describe, expect, it } from 'vitest';
import { createFeedCache, type RenderedBody } from '../../../src/services/feed-cache.js';

const at = new Date('2026-11-22T10:00:00Z');

function body(text: string): RenderedBody {
  return { body: Buffer.from(text), contentType: 'text/plain' };
}

describe('services/feed-cache', () => {
  it('renders once for concurrent requests of the same feed and version', async () => {
    const cache = createFeedCache({ maxBytes: 1_000_000 });
    let renders = 0;
    const render = async () => {
      renders++;
      return body('hello');
    };

    const [a, b] = await Promise.all([cache.get('v1', 'google', at, render), cache.get('v1', 'google', at, render)]);

    expect(renders).toBe(1);
    expect(a).toBe(b);
    expect(a.identity.toString()).toBe('hello');
    expect(a.version).toBe('v1');
  });

  it('gives each feed variant its own tag', async () => {
    const cache = createFeedCache({ maxBytes: 1_000_000 });

    const a = await cache.get('v1', 'csv|U1', at, async () => body('a'));
    const b = await cache.get('v1', 'csv|U2', at, async () => body('b'));

    expect(a.tag).not.toBe(b.tag);
    expect(a.tag.startsWith('v1-')).toBe(true);
  });

  it('does not keep a failed render', async () => {
    const cache = createFeedCache({ maxBytes: 1_000_000 });

    await expect(cache.get('v1', 'google', at, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    const retry = await cache.get('v1', 'google', at, async () => body('ok'));

    expect(retry.identity.toString()).toBe('ok');
  });

  it('drops other versions and evicts the least recently used beyond its budget', async () => {
    const cache = createFeedCache({ maxBytes: 1_500 });
    const big = 'x'.repeat(600);
    await cache.get('v1', 'a', at, async () => body(big));
    await cache.get('v1', 'b', at, async () => body(big));
    await cache.get('v1', 'a', at, async () => body(big));
    await cache.get('v1', 'c', at, async () => body(big));

    let rerendered = false;
    await cache.get('v1', 'b', at, async () => {
      rerendered = true;
      return body(big);
    });
    expect(rerendered).toBe(true);

    cache.retainOnly('v2');
    expect(cache.stats()).toEqual({ entries: 0, bytes: 0 });
  });
});
