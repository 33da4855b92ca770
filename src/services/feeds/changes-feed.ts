import { createSlicer } from '../../core/async/create-slicer.js';
import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import type { ChangeLog } from '../../core/catalog/change-log.js';
import { createEnrichedProducts } from '../../core/catalog/family-enrichment.js';
import { CHANGES_FEED_FILE } from '../../core/feeds/render-changes-feed.js';
import { jsonItemText } from '../../core/feeds/render-json-feed.js';
import { toFeedItem } from '../../core/feeds/to-feed-item.js';
import { type EncodedFeed, encodeBody, encodedFeed, encodedSize } from './encoded-feed.js';
import { type FeedServiceOptions, itemOptionsOf } from './feed-builder.js';
import { JSON_TYPE } from './feed-descriptors.js';

export type ChangesResult = { readonly ok: true; readonly feed: EncodedFeed } | { readonly ok: false; readonly next: string };

/** Changes feeds kept (they are cheap and many cursors are in use at once)… */
const MAX_CHANGES_ENTRIES = 64;
/** …within this many bytes (all three forms are kept; the whole catalog's list is a feed of its own, in files). */
const MAX_CHANGES_BYTES = 64 * 1024 * 1024;

type ChangeEntry = { id: string; change: string; fields?: readonly string[] };

/**
 * The body is made in pieces of about this many characters, each turned into bytes on its own: the changes
 * since a cursor run to tens of thousands of items (up to 20,000 a transition, several transitions), and
 * such a text joined and encoded at once held the event loop for tens of milliseconds.
 */
const PIECE_CHARS = 256 * 1024;

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
  since: string,
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
  const head = JSON.stringify({
    unit: view,
    since,
    next: snapshot.version,
    generatedAt: snapshot.generatedAt,
    count: list.length,
  });
  const pieces: Buffer[] = [];
  let piece = `${head.slice(0, -1)},"changes":[\n`;
  for (const [index, entry] of list.entries()) {
    const position = positionOf.get(entry.id);
    const product = position === undefined ? undefined : products.at(position);
    const item = entry.change === 'removed' || product === undefined ? undefined : toFeedItem(product, view, itemOpts);
    const line = JSON.stringify(entry);
    piece += `${index === 0 ? '' : ',\n'}${item === undefined ? line : `${line.slice(0, -1)},"item":${jsonItemText(item)}}`}`;
    if (piece.length >= PIECE_CHARS) {
      pieces.push(Buffer.from(piece));
      piece = '';
    }
    await slicer.next();
  }
  pieces.push(Buffer.from(`${piece}\n]}\n`));
  // One copy into the answer's buffer (~5 ms for 50 MB), rather than a string of it encoded at once.
  const body = Buffer.concat(pieces);
  return encodedFeed(await encodeBody(body), {
    key: `${CHANGES_FEED_FILE}|${view}|${since}`,
    version: snapshot.version,
    lastModified: new Date(snapshot.generatedAt),
    contentType: JSON_TYPE,
  });
}

/**
 * `whole`: the changes feed without a cursor, every item of the view as added. It is a feed of its own
 * (rendered in the render thread into files, `render-changes-feed.ts`; the newest render is served while
 * a newer one is made, and its `next` is its own version, so a client goes on from there); the changes
 * since a cursor are made here, from the change log.
 */
export function createChangesFeed(
  changeLog: Pick<ChangeLog, 'changesSince'>,
  options: FeedServiceOptions,
  whole: (snapshot: CatalogSnapshot, view: string) => Promise<EncodedFeed>,
): ChangesFeed {
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

  /** The body of `key`, made once (a request meanwhile gets the one being made). */
  function bodyOf(key: string, make: () => Promise<EncodedFeed>): Promise<EncodedFeed> {
    const cached = changesCache.get(key);
    if (cached !== undefined) return cached;
    const pending = make();
    changesCache.set(key, pending);
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
    return pending;
  }

  async function changes(snapshot: CatalogSnapshot, view: string, since: string | undefined): Promise<ChangesResult> {
    if (since === undefined) return { ok: true, feed: await whole(snapshot, view) };
    const key = `${snapshot.version}|${view}|${since}`;
    const cached = changesCache.get(key);
    if (cached !== undefined) return { ok: true, feed: await cached };
    const result = await changeLog.changesSince(since, view, snapshot.version);
    if (!result.ok) return { ok: false, next: snapshot.version };
    return { ok: true, feed: await bodyOf(key, () => changesBody(options, snapshot, view, since, result.changes)) };
  }

  return {
    changes,
    clear() {
      changesCache.clear();
      sizes.clear();
    },
  };
}
