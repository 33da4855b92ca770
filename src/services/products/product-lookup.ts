import { createSlicer } from '../../core/async/create-slicer.js';
import { ALL_UNITS, type CatalogSnapshot, type Offer, type Product, type ProductEnrichment } from '../../core/catalog/catalog.js';
import { createEnrichedProducts } from '../../core/catalog/family-enrichment.js';
import type { FamilyIndex } from '../../core/catalog/family-index.js';
import type { FamilySourceRows } from '../../core/catalog/source-rows.js';
import { csvItemText, explainTemplateItem, type ItemVerdict, notOffered } from '../../core/feeds/explain-item.js';
import { type GtinProblem, gtinProblemOf } from '../../core/feeds/normalize-gtin.js';
import { jsonItemText } from '../../core/feeds/render-json-feed.js';
import { toFeedItem } from '../../core/feeds/to-feed-item.js';
import type { IssueTexts } from '../../core/push/channel-verdicts.js';
import type { GoogleVerdict } from '../../core/push/google-product-status.js';
import type { MetaItemIssue } from '../../core/push/meta-verdicts.js';
import { feedContextOf, itemOptionsOf, unitColumnsOf } from '../feeds/feed-builder.js';
import type { FeedService } from '../feeds/feed-service.js';
import type { LastStockChanges } from './last-stock-changes.js';
import { type SourceReports, sourcesOf, type UnitSources } from './product-sources.js';

/**
 * One product as the console shows it (docs/console.md#product-detail): its POS and sheet values, its
 * offer per unit, where they came from, and per feed and view whether it is in and as what text, or which
 * rule left it out. Never purchase prices: `Product` has none. Proportional to feeds × views, not to the
 * catalog: the product is found through the family's index, built once per family in slices.
 */

export interface OfferView {
  /** A unit code, or `all`. */
  readonly unit: string;
  readonly unitName: string;
  /** The channel store code (`UNIT_STORE_CODES`); absent for `all`. */
  readonly storeCode?: string;
  readonly price?: number;
  readonly salePrice?: number;
  readonly standardPrice?: number;
  readonly stock?: number;
  readonly availability: Offer['availability'];
  /** The unit's price list's label for this availability. */
  readonly availabilityText?: string;
}

export type FeedVerdict = {
  readonly feed: string;
  readonly title: string;
  readonly file: string;
  readonly view: string;
  /** `/feeds/{view}/{file}`. */
  readonly path: string;
} & ItemVerdict;

export interface ProductView {
  readonly version: string;
  readonly generatedAt: string;
  readonly currency: string;
  readonly product: Omit<Product, 'offers' | 'aggregate' | 'enrichment'>;
  /** The enrichment sheet's values (`null`: no row names the product). */
  readonly enrichment: ProductEnrichment | null;
  /** `all` first, then each unit that offers the product (or the one asked for). */
  readonly offers: readonly OfferView[];
  readonly sources: readonly UnitSources[];
  readonly feeds: readonly FeedVerdict[];
  /** Why the POS's EAN is not sent as a GTIN (channels get none for this product), when it is not. */
  readonly eanProblem?: GtinProblem;
  /** What the channels that report back say of the product (Google's verdict), where one is pushed to. */
  readonly channels?: ChannelVerdictViews;
}

/** Google's verdict on the product as last read back; `verdict` absent when that read did not list it. */
export interface GoogleVerdictView {
  /** When the verdicts were last read (ISO 8601); absent before the first read. */
  readonly readAt?: string;
  /** The last read that failed (the verdicts of the read before stay). */
  readonly lastError?: { readonly at: string; readonly message: string };
  readonly verdict?: GoogleVerdict;
  /** Google's own texts of the verdict's issues by code, per language (`cs`, `en`), where it rendered them. */
  readonly issueTexts?: IssueTexts;
}

/** Meta's word on the item: its last batch's error, if that batch left it invalid. */
export interface MetaVerdictView {
  readonly issue?: MetaItemIssue;
}

export interface ChannelVerdictViews {
  readonly google?: GoogleVerdictView;
  readonly meta?: MetaVerdictView;
}

export type ProductLookupResult =
  | { readonly ok: true; readonly view: ProductView }
  | { readonly ok: false; readonly reason: 'not-ready' | 'unknown-product' | 'unknown-unit' };

/** A product's verdicts yield this often: its page must not hold other requests for long. */
const SLICE_BUDGET_MS = 3;

export interface ProductLookupDeps {
  readonly current: () => CatalogSnapshot | undefined;
  readonly familyIndex: (snapshot: CatalogSnapshot) => Promise<FamilyIndex>;
  readonly feeds: Pick<FeedService, 'feeds' | 'templates' | 'options'>;
  readonly reports: () => SourceReports;
  readonly lastChanges: Pick<LastStockChanges, 'of' | 'rereadOf'>;
  /** The rows of the full sync that built the snapshot's family, when this instance ran it. */
  readonly sourceRows?: (snapshot: CatalogSnapshot) => FamilySourceRows | undefined;
  /** The channels' verdicts on a product (Google's, when pushed to). */
  readonly channelVerdicts?: (id: string) => Promise<ChannelVerdictViews | undefined>;
}

export interface ProductLookup {
  /** The product `id` (its POS `localId`), restricted to the view `unit` when given. */
  find(id: string, unit?: string): Promise<ProductLookupResult>;
}

function offerView(offer: Offer, unitName: string, storeCode: string | undefined): OfferView {
  const texts = offer.availabilityTexts;
  const availabilityText = offer.availability === 'in_stock' ? texts?.inStock : texts?.outOfStock;
  return {
    unit: offer.unit,
    unitName,
    ...(storeCode === undefined ? {} : { storeCode }),
    ...(offer.price === undefined ? {} : { price: offer.price }),
    ...(offer.salePrice === undefined ? {} : { salePrice: offer.salePrice }),
    ...(offer.standardPrice === undefined ? {} : { standardPrice: offer.standardPrice }),
    ...(offer.stock === undefined ? {} : { stock: offer.stock }),
    availability: offer.availability,
    ...(availabilityText === undefined ? {} : { availabilityText }),
  };
}

function offersOf(
  snapshot: CatalogSnapshot,
  product: Product,
  views: readonly string[],
  storeCodes: Readonly<Record<string, string>>,
) {
  const names = new Map(snapshot.units.map((unit) => [unit.code, unit.name]));
  const offers: OfferView[] = [];
  for (const view of views) {
    if (view === ALL_UNITS) offers.push(offerView(product.aggregate, 'All units', undefined));
    const offer = product.offers.find((candidate) => candidate.unit === view);
    if (offer !== undefined) offers.push(offerView(offer, names.get(view) ?? view, storeCodes[view] ?? view));
  }
  return offers;
}

export function createProductLookup(deps: ProductLookupDeps): ProductLookup {
  const { feeds } = deps;
  const templateOf = new Map(feeds.templates.map((template) => [template.file, template]));

  /** The product in one feed of one view. */
  function verdictOf(snapshot: CatalogSnapshot, product: Product, file: string, view: string): ItemVerdict {
    const item = toFeedItem(product, view, itemOptionsOf(snapshot, feeds.options));
    if (item === undefined) return notOffered(view);
    const context = feedContextOf(snapshot, view, feeds.options);
    const template = templateOf.get(file);
    if (template !== undefined) return explainTemplateItem(template, context, item);
    if (file === 'products.json') return { included: true, text: jsonItemText(item) };
    if (file === 'products.csv')
      return { included: true, text: csvItemText(context, item, { unitColumns: unitColumnsOf(snapshot, view) }) };
    // The workbook's cells are not text: it is in, as every built-in feed has every product of the view.
    return { included: true };
  }

  /** Every feed in every view: ~75 one-item renders, in slices (a cold render or a GC can take a few ms). */
  async function feedsOf(snapshot: CatalogSnapshot, product: Product, views: readonly string[]): Promise<FeedVerdict[]> {
    const verdicts: FeedVerdict[] = [];
    const slicer = createSlicer(SLICE_BUDGET_MS);
    for (const descriptor of feeds.feeds) {
      for (const view of views) {
        if (!descriptor.servesView(view)) continue;
        await slicer.next();
        const place = { feed: descriptor.name, title: descriptor.title, file: descriptor.file, view };
        verdicts.push({
          ...place,
          path: `/feeds/${view}/${descriptor.file}`,
          ...verdictOf(snapshot, product, descriptor.file, view),
        });
      }
    }
    // The changes feed carries the item, as in products.json, in the entry of each version that changed it.
    for (const view of views) {
      const item = toFeedItem(product, view, itemOptionsOf(snapshot, feeds.options));
      const verdict: ItemVerdict = item === undefined ? notOffered(view) : { included: true, text: jsonItemText(item) };
      verdicts.push({
        feed: 'changes',
        title: 'Changes (JSON)',
        file: 'changes.json',
        view,
        path: `/feeds/${view}/changes.json`,
        ...verdict,
      });
    }
    return verdicts;
  }

  return {
    async find(id, unit) {
      const snapshot = deps.current();
      if (snapshot === undefined) return { ok: false, reason: 'not-ready' };
      if (unit !== undefined && unit !== ALL_UNITS && !snapshot.units.some((entry) => entry.code === unit)) {
        return { ok: false, reason: 'unknown-unit' };
      }
      const position = (await deps.familyIndex(snapshot)).positions.get(id);
      // The sheet's values are kept off the served products (family-enrichment.ts).
      const product = position === undefined ? undefined : createEnrichedProducts(snapshot).at(position);
      if (product === undefined || product.id !== id) return { ok: false, reason: 'unknown-product' };
      const views = unit === undefined ? [ALL_UNITS, ...snapshot.units.map((entry) => entry.code)] : [unit];
      const { offers: _offers, aggregate: _aggregate, enrichment, ...values } = product;
      const eanProblem = product.ean === undefined ? undefined : gtinProblemOf(product.ean);
      const channels = await deps.channelVerdicts?.(id).catch(() => undefined);
      return {
        ok: true,
        view: {
          version: snapshot.version,
          generatedAt: snapshot.generatedAt,
          currency: snapshot.currency,
          product: values,
          enrichment: enrichment ?? null,
          offers: offersOf(snapshot, product, views, feeds.options.links.storeCodes),
          sources: sourcesOf(snapshot, product, {
            reports: deps.reports(),
            rows: { family: deps.sourceRows?.(snapshot), position: position as number },
            changes: deps.lastChanges,
          }),
          feeds: await feedsOf(snapshot, product, views),
          ...(eanProblem === undefined ? {} : { eanProblem }),
          ...(channels === undefined ? {} : { channels }),
        },
      };
    },
  };
}
