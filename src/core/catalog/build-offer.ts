/** One unit's offer of one product, from its price-list row and stock-export quantity (`merge-catalog.ts`). */
import { computeAvailability } from './aggregate-offer.js';
import type { AvailabilityTexts, Offer } from './catalog.js';
import type { MergeIssue, MergeOptions, UnitMerge } from './merge-types.js';
import { offerOf } from './offer-of.js';
import { resolveOfferPrices } from './resolve-offer-prices.js';
import { roundQuantity } from './round-money.js';
import type { PriceListRow } from './source.js';
import { PRICE_FROM_ARTICLE, PRICE_FROM_ROW } from './source-rows.js';

export function buildOffer(
  merge: UnitMerge,
  priceRow: PriceListRow | undefined,
  exportStock: number | undefined,
  articleId: string,
  salesPrice: number | undefined,
  isStockItem: boolean,
  options: MergeOptions,
  report: (issue: MergeIssue) => void,
  textsCache: TextsCache,
  position: number,
): Offer {
  const unit = merge.unit.code;
  const counts = merge.counts;
  const prices = resolveOfferPrices({ salesPrice, row: priceRow, currency: options.currency });
  for (const note of prices.notes) {
    report({ reason: note, source: 'price-list', unit, code: priceRow?.code ?? articleId, articleId, ...rowOf(priceRow) });
  }

  let stock = exportStock;
  if (stock !== undefined) {
    counts.stockFromExport += 1;
  } else if (priceRow?.stock !== undefined && Number.isFinite(priceRow.stock)) {
    stock = roundQuantity(priceRow.stock);
    counts.stockFromPriceList += 1;
  } else {
    if (priceRow?.stock !== undefined) {
      report({ reason: 'invalid-stock', source: 'price-list', unit, code: priceRow.code, articleId, row: priceRow.position });
    }
    counts.stockUnknown += 1;
  }

  const availability = computeAvailability(stock, isStockItem, options.unknownStockAvailability);
  const texts = availabilityTexts(priceRow, textsCache);
  if (prices.price === undefined) counts.withoutPrice += 1;
  else counts.withPrice += 1;
  if (prices.source === 'price-list') counts.priceFromPriceList += 1;
  if (prices.source === 'article') counts.priceFromArticle += 1;
  if (prices.salePrice !== undefined) counts.onSale += 1;
  if (availability === 'in_stock') counts.inStock += 1;
  else counts.outOfStock += 1;

  const offer = offerOf(unit, availability, {
    price: prices.price,
    salePrice: prices.salePrice,
    standardPrice: prices.standardPrice,
    stock,
    availabilityTexts: texts,
  });
  if (prices.source !== 'none')
    merge.rows.priceFrom[position] = prices.source === 'article' ? PRICE_FROM_ARTICLE : PRICE_FROM_ROW;
  return offer;
}

export function rowOf(row: PriceListRow | undefined): { row?: number } {
  return row === undefined ? {} : { row: row.position };
}

/**
 * Offers with the same pair of availability labels share one (immutable) `AvailabilityTexts` object: a
 * catalog has a handful of distinct pairs and 500,000 offers. Objects built by conditional spreads also
 * got a hidden class each (~160 bytes apiece); together ~110 MB for 100,000 articles × 5 units
 * (bench/full-sync.ts). Bounded: past `TEXTS_CACHE_LIMIT` pairs, objects are built per offer.
 */
export interface TextsCache {
  readonly byInStock: Map<string, Map<string, AvailabilityTexts>>;
  size: number;
}

export const TEXTS_CACHE_LIMIT = 10_000;

export function createTextsCache(): TextsCache {
  return { byInStock: new Map(), size: 0 };
}

export function availabilityTexts(row: PriceListRow | undefined, cache: TextsCache): AvailabilityTexts | undefined {
  if (row?.availabilityInStock === undefined && row?.availabilityOutOfStock === undefined) return undefined;
  const inStock = row.availabilityInStock?.trim() ?? '';
  const outOfStock = row.availabilityOutOfStock?.trim() ?? '';
  if (inStock === '' && outOfStock === '') return undefined;
  const byOutOfStock = cache.byInStock.get(inStock);
  const cached = byOutOfStock?.get(outOfStock);
  if (cached !== undefined) return cached;
  // Three literals rather than spreads: each keeps one shared hidden class, with `inStock` first as before.
  const texts: AvailabilityTexts = outOfStock === '' ? { inStock } : inStock === '' ? { outOfStock } : { inStock, outOfStock };
  if (cache.size < TEXTS_CACHE_LIMIT) {
    if (byOutOfStock === undefined) cache.byInStock.set(inStock, new Map([[outOfStock, texts]]));
    else byOutOfStock.set(outOfStock, texts);
    cache.size += 1;
  }
  return texts;
}
