import { describe, expect, it } from 'vitest';
import { collectFeed } from '../../../../src/core/feeds/collect-feed.js';
import type { FeedChunks } from '../../../../src/core/feeds/feed-report.js';
import { ChangesFeedSchema } from '../../../../src/core/feeds/json-feed-schema.js';
import { renderWholeChangesFeed } from '../../../../src/core/feeds/render-changes-feed.js';
import { renderJsonFeed } from '../../../../src/core/feeds/render-json-feed.js';
import { FIXTURE_CONTEXT, FIXTURE_ITEMS } from './feed-fixture.js';

const body = (chunks: FeedChunks): string => collectFeed(chunks).body.toString('utf8');

describe('core/feeds/render-changes-feed', () => {
  it('lists every item as added, each as products.json has it, with the version to go on from', () => {
    const text = body(renderWholeChangesFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { count: FIXTURE_ITEMS.length }));
    const parsed = JSON.parse(text) as { changes: { id: string; change: string; item: unknown }[] };
    const products = JSON.parse(body(renderJsonFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS))) as { items: unknown[] };

    expect(ChangesFeedSchema.safeParse(parsed).error).toBeUndefined();
    expect(parsed).toMatchObject({
      unit: FIXTURE_CONTEXT.unit,
      since: null,
      next: FIXTURE_CONTEXT.version,
      generatedAt: FIXTURE_CONTEXT.generatedAt,
      count: FIXTURE_ITEMS.length,
    });
    expect(parsed.changes.map((change) => change.id)).toEqual(FIXTURE_ITEMS.map((item) => item.id));
    expect(parsed.changes.every((change) => change.change === 'added')).toBe(true);
    expect(parsed.changes.map((change) => change.item)).toEqual(products.items);
    // One change a line, as the changes since a cursor are written.
    expect(text.split('\n')).toHaveLength(FIXTURE_ITEMS.length + 3);
  });

  it('writes an empty view as the cursor path does, and refuses a count that is not the items', () => {
    expect(body(renderWholeChangesFeed(FIXTURE_CONTEXT, [], { count: 0 }))).toMatch(/,"count":0,"changes":\[\n\n\]\}\n$/);
    expect(() => body(renderWholeChangesFeed(FIXTURE_CONTEXT, FIXTURE_ITEMS, { count: 1 }))).toThrow(RangeError);
  });
});
