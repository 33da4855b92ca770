import type { ProductEnrichment } from '../catalog/catalog.js';
import type { FeedContext, FeedItem, FeedOffer } from './feed-item.js';
import { createFeedReporter, FEED_CHUNK_SIZE, type FeedChunks } from './feed-report.js';
import { formatMoney } from './format-number.js';

export interface JsonFeedOptions {
  /**
   * Number of items, needed up front because `count` precedes `items` in the documented shape. Give it
   * when `items` is a lazy iterable; arrays supply their length. A count that differs from the items
   * actually rendered makes the render throw (the caller must not cache a lying body).
   */
  readonly count?: number;
}

/** Name of the JSON feed in reports. */
export const JSON_FEED_NAME = 'products.json';

function isArray<T>(items: Iterable<T>): items is readonly T[] {
  return Array.isArray(items);
}

function finite(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value);
}

/** `,"name":value` with `value` already JSON text, or nothing when absent. */
function member(name: string, valueText: string | undefined): string {
  return valueText === undefined ? '' : `,"${name}":${valueText}`;
}

/** Money as a JSON number with exactly two decimals (`129.00`, docs/catalog-rules.md rule 6); JSON allows the zeros. */
function money(value: number | undefined): string | undefined {
  return finite(value) ? formatMoney(value) : undefined;
}

/** Quantities as JSON writes them: exact, so they parse back to the same number. */
function number(value: number | undefined): string | undefined {
  return finite(value) ? JSON.stringify(value) : undefined;
}

function text(value: string | undefined): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}

function textList(values: readonly string[] | undefined): string | undefined {
  return values === undefined ? undefined : JSON.stringify(values);
}

/** The enrichment sheet's values (docs/enrichment.md), after the POS's, in the documented key order. */
function jsonEnrichmentText(enrichment: ProductEnrichment | undefined): string {
  if (enrichment === undefined) return '';
  return (
    member('title', text(enrichment.title)) +
    member('description', text(enrichment.description)) +
    member('brand', text(enrichment.brand)) +
    member('category', text(enrichment.category)) +
    member('googleProductCategory', text(enrichment.googleProductCategory)) +
    member('heurekaCategory', text(enrichment.heurekaCategory)) +
    member('zboziCategory', text(enrichment.zboziCategory)) +
    member('additionalImageLinks', textList(enrichment.additionalImageLinks)) +
    member('customLabel0', text(enrichment.customLabel0)) +
    member('customLabel1', text(enrichment.customLabel1)) +
    member('customLabel2', text(enrichment.customLabel2)) +
    member('customLabel3', text(enrichment.customLabel3)) +
    member('customLabel4', text(enrichment.customLabel4)) +
    member('exclude', textList(enrichment.exclude))
  );
}

/** The offer in the documented key order; unit names and store codes are channel data, not catalog data. */
function jsonOfferText(offer: FeedOffer): string {
  return (
    `{"unit":${JSON.stringify(offer.unit)}` +
    member('price', money(offer.price)) +
    member('salePrice', money(offer.salePrice)) +
    member('standardPrice', money(offer.standardPrice)) +
    member('stock', number(offer.stock)) +
    `,"availability":${JSON.stringify(offer.availability)}}`
  );
}

/**
 * One item as JSON text in the key order of docs/http-interface.md; absent values are omitted, never `null`. Written
 * by hand rather than by `JSON.stringify` of an object so that money keeps its two decimals.
 */
export function jsonItemText(item: FeedItem): string {
  return (
    `{"id":${JSON.stringify(item.id)},"name":${JSON.stringify(item.name)}` +
    member('groupId', text(item.groupId)) +
    member('ean', text(item.ean)) +
    member('plu', number(item.plu)) +
    member('internalIdentifier', text(item.internalIdentifier)) +
    member('measureUnit', text(item.measureUnit)) +
    member('price', money(item.price)) +
    member('salePrice', money(item.salePrice)) +
    member('standardPrice', money(item.standardPrice)) +
    member('stock', number(item.stock)) +
    `,"availability":${JSON.stringify(item.availability)}` +
    member('link', text(item.link)) +
    member('imageLink', text(item.imageLink)) +
    jsonEnrichmentText(item.enrichment) +
    `,"offers":[${item.offers.map(jsonOfferText).join(',')}]}`
  );
}

/**
 * The JSON feed (docs/http-interface.md): `{ version, generatedAt, unit, currency, count, items }`, numbers as numbers
 * (money with two decimals),
 * optional fields omitted, one item per line. Text is passed through unchanged: JSON can carry any
 * string (`JSON.stringify` escapes control characters and lone surrogates), so nothing is stripped.
 *
 * @example collectFeed(renderJsonFeed(context, items)).body
 */
export function* renderJsonFeed(context: FeedContext, items: Iterable<FeedItem>, options: JsonFeedOptions = {}): FeedChunks {
  const list: Iterable<FeedItem> = options.count === undefined && !isArray(items) ? [...items] : items;
  const count = options.count ?? (isArray(list) ? list.length : 0);
  const reporter = createFeedReporter(JSON_FEED_NAME);
  let out =
    `{"version":${JSON.stringify(context.version)},"generatedAt":${JSON.stringify(context.generatedAt)},` +
    `"unit":${JSON.stringify(context.unit)},"currency":${JSON.stringify(context.currency)},"count":${count},"items":[`;
  for (const item of list) {
    out += `${reporter.items === 0 ? '\n' : ',\n'}${jsonItemText(item)}`;
    reporter.items++;
    if (out.length >= FEED_CHUNK_SIZE) {
      yield out;
      out = '';
    }
  }
  if (reporter.items !== count) {
    throw new RangeError(`renderJsonFeed: count was ${count} but ${reporter.items} items were rendered`);
  }
  reporter.records = reporter.items;
  yield `${out}${count === 0 ? '' : '\n'}]}\n`;
  return reporter.report();
}
