import { createSlicer } from '../../core/async/create-slicer.js';
import { ALL_UNITS, type CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { ChangeLog } from '../../core/catalog/change-log.js';
import { createEnrichedProducts } from '../../core/catalog/family-enrichment.js';
import { jsonItemText } from '../../core/feeds/render-json-feed.js';
import { toFeedItem } from '../../core/feeds/to-feed-item.js';
import { type EncodedFeed, encodeBody, encodedFeed, encodedSize } from './encoded-feed.js';
import { type FeedServiceOptions, itemOptionsOf } from './feed-builder.js';
import { JSON_TYPE } from './feed-descriptors.js';

export type ChangesResult = { readonly ok: true; readonly feed: EncodedFeed } | { readonly ok: false; readonly next: string };

/** Changes feeds kept (they are cheap and many cursors are in use at once)… */
const MAX_CHANGES_ENTRIES = 64;
/** …within this many bytes (all three forms are kept; one without a cursor lists the whole catalog). */
const MAX_CHANGES_BYTES = 64 * 1024 * 1024;

type ChangeEntry = { id: string; change: string; fields?: readonly string[] };

/** The changes feed (`changes.json`): what changed in a view since a cursor, each changed item with it. */
export interface ChangesFeed {
  /** The changes feed since a cursor (a version id); `ok: false` when the cursor is unknown. */
  changes(snapshot: CatalogSnapshot, view: string, since: string | undefined): Promise<ChangesResult>;
  /** Forgets the encoded feeds (a new version is served). */
  clear(): void;
}

async function changesBody(
  options: FeedServiceOptions,
  snapshot: CatalogSnapshot,
  view: string,
  since: string | undefined,
  list: readonly ChangeEntry[],
): Promise<EncodedFeed> {
  const itemOpts = itemOptionsOf(snapshot, options);
  const positionOf = new Map<string, number>();
  const slicer = createSlicer();
  if (list.length > 0) {
    for (const [position, product] of snapshot.products.entries()) {
      positionOf.set(product.id, position);
      if ((position & 1023) === 1023) await slicer.next();
    }
  }
  // With their enrichment values, which the served catalog keeps off its products (family-enrichment.ts).
  const products = createEnrichedProducts(snapshot);
  const lines: string[] = [];
  for (const entry of list) {
    const position = positionOf.get(entry.id);
    const product = position === undefined ? undefined : products.at(position);
    const item = entry.change === 'removed' || product === undefined ? undefined : toFeedItem(product, view, itemOpts);
    const head = JSON.stringify(entry);
    lines.push(item === undefined ? head : `${head.slice(0, -1)},"item":${jsonItemText(item)}}`);
    await slicer.next();
  }
  const head = JSON.stringify({
    unit: view,
    since: since ?? null,
    next: snapshot.version,
    generatedAt: snapshot.generatedAt,
    count: list.length,
  });
  const body = Buffer.from(`${head.slice(0, -1)},"changes":[\n${lines.join(',\n')}\n]}\n`);
  return encodedFeed(await encodeBody(body), {
    key: `changes.json|${view}|${since ?? ''}`,
    version: snapshot.version,
    lastModified: new Date(snapshot.generatedAt),
    contentType: JSON_TYPE,
  });
}

export function createChangesFeed(changeLog: Pick<ChangeLog, 'changesSince'>, options: FeedServiceOptions): ChangesFeed {
  const changesCache = new Map<string, Promise<EncodedFeed>>();
  /** Bytes of the finished ones. */
  const sizes = new Map<string, number>();

  /** Oldest first beyond the count or the bytes (a request holding one keeps its body until it is sent). */
  function trim(): void {
    let bytes = 0;
    for (const size of sizes.values()) bytes += size;
    for (const old of changesCache.keys()) {
      if (changesCache.size <= MAX_CHANGES_ENTRIES && bytes <= MAX_CHANGES_BYTES) break;
      changesCache.delete(old);
      bytes -= sizes.get(old) ?? 0;
      sizes.delete(old);
    }
  }

  async function changes(snapshot: CatalogSnapshot, view: string, since: string | undefined): Promise<ChangesResult> {
    let list: ChangeEntry[];
    if (since === undefined) {
      list = [];
      for (const product of snapshot.products) {
        if (view === ALL_UNITS || product.offers.some((offer) => offer.unit === view))
          list.push({ id: product.id, change: 'added' });
      }
    } else {
      const result = await changeLog.changesSince(since, view, snapshot.version);
      if (!result.ok) return { ok: false, next: snapshot.version };
      list = [...result.changes];
    }
    const key = `${snapshot.version}|${view}|${since ?? ''}`;
    let feed = changesCache.get(key);
    if (feed === undefined) {
      feed = changesBody(options, snapshot, view, since, list);
      changesCache.set(key, feed);
      const pending = feed;
      pending.then(
        (body) => {
          if (changesCache.get(key) !== pending) return;
          sizes.set(key, encodedSize(body));
          trim();
        },
        () => {
          if (changesCache.get(key) === pending) changesCache.delete(key);
        },
      );
      trim();
    }
    return { ok: true, feed: await feed };
  }

  return {
    changes,
    clear() {
      changesCache.clear();
      sizes.clear();
    },
  };
}
