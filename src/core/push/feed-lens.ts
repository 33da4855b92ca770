import { parse } from 'csv-parse/sync';
import type { CatalogSnapshot, Product } from '../catalog/catalog.js';
import type { CompiledFeed } from '../feeds/compiled-feed.js';
import { explainTemplateItem } from '../feeds/explain-item.js';
import type { FeedContext, FeedItem } from '../feeds/feed-item.js';
import { type FeedItemOptions, toFeedItem } from '../feeds/to-feed-item.js';

/**
 * A channel's pushed values are its feed's values (docs/decisions/0013-channel-push.md, section 1, "Same item,
 * same values as the feed"): the compiled template renders the one item in the target's view, as the product
 * page does (`explain-item.ts`), so its stock policy (buffers, thresholds, `outOfStock: omit`), filter and
 * `require` checks decide exactly as in the served feed. Pure; the wiring passes the served feed's options.
 */

export type FeedLensResult =
  | { readonly kind: 'not-offered' }
  | { readonly kind: 'left-out'; readonly item: FeedItem; readonly reason: string }
  /** `text`: the item's exact text in the feed; `head`: the feed's text before its items (a CSV's header). */
  | { readonly kind: 'included'; readonly item: FeedItem; readonly text: string; readonly head: string };

/** The product in the view of one feed (`undefined` product: removed). */
export type FeedLens = (snapshot: CatalogSnapshot, product: Product, view: string) => FeedLensResult;

export interface FeedLensOptions {
  readonly template: Pick<CompiledFeed, 'render' | 'frame'>;
  readonly itemOptions: (snapshot: CatalogSnapshot) => FeedItemOptions;
  readonly context: (snapshot: CatalogSnapshot, view: string) => FeedContext;
}

interface ViewParts {
  readonly itemOptions: FeedItemOptions;
  readonly contexts: Map<string, { readonly context: FeedContext; readonly head: string }>;
}

export function createFeedLens(options: FeedLensOptions): FeedLens {
  // Per served version: a batch of 3,000 targets shares one context and frame per view.
  const parts = new WeakMap<CatalogSnapshot, ViewParts>();

  function partsOf(snapshot: CatalogSnapshot, view: string) {
    let forSnapshot = parts.get(snapshot);
    if (forSnapshot === undefined) {
      forSnapshot = { itemOptions: options.itemOptions(snapshot), contexts: new Map() };
      parts.set(snapshot, forSnapshot);
    }
    let forView = forSnapshot.contexts.get(view);
    if (forView === undefined) {
      const context = options.context(snapshot, view);
      forView = { context, head: options.template.frame(context).head };
      forSnapshot.contexts.set(view, forView);
    }
    return { itemOptions: forSnapshot.itemOptions, ...forView };
  }

  return (snapshot, product, view) => {
    const { itemOptions, context, head } = partsOf(snapshot, view);
    const item = toFeedItem(product, view, itemOptions);
    if (item === undefined) return { kind: 'not-offered' };
    const verdict = explainTemplateItem(options.template, context, item);
    if (!verdict.included) return { kind: 'left-out', item, reason: `left out of the feed: ${verdict.reason.message}` };
    // The workbook gives no text; the push's feeds (CSV, XML) always do.
    if (verdict.text === undefined) return { kind: 'left-out', item, reason: 'the feed gives no text for the item' };
    return { kind: 'included', item, text: verdict.text, head };
  };
}

/** A CSV feed's row of the item, by header (rfc4180, as the Meta template writes it); empty cells left out. */
export function csvRowValues(head: string, text: string, delimiter = ','): Record<string, string> | undefined {
  const records = parse(head + text, { columns: true, bom: true, delimiter, relax_column_count: true }) as Record<
    string,
    string
  >[];
  const [record] = records;
  if (record === undefined) return undefined;
  const values: Record<string, string> = {};
  for (const [header, value] of Object.entries(record)) if (value !== '') values[header] = value;
  return values;
}

/**
 * The XML feed's `AMOUNT` of the item (the Shoptet template's `STOCK/AMOUNT`): `undefined` when the feed
 * leaves it out (unknown stock: not 0), `NaN` never (an unreadable amount is left out too).
 */
export function xmlAmountOf(text: string): number | undefined {
  const match = /<AMOUNT>\s*([^<]*?)\s*<\/AMOUNT>/.exec(text);
  if (match === null) return undefined;
  const amount = Number(match[1]);
  return Number.isFinite(amount) ? amount : undefined;
}
