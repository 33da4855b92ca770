import type { merchantapi_products_v1 } from '@googleapis/merchantapi';
import { z } from 'zod';
import { createSlicer } from '../async/create-slicer.js';
import { channelText } from './channel-text.js';

/**
 * Google's verdict on each product, as the Merchant API v1 reports it (`products.list`: the processed
 * products of the account, each with its `productStatus`): per reporting context (Shopping ads, free
 * listings, local inventory…) the countries where the product is approved, pending or disapproved, and the
 * item-level issues with their severity, the attribute at fault, what to do and a link to Google's help.
 * This module reads one page of the listing and turns each product into the compact verdict the bridge
 * keeps; reading the pages, pacing and keeping them is the Google channel's (docs/channel-push.md).
 */

const text = z.string().nullish();
const texts = z.array(z.string()).nullish();

export const GoogleDestinationStatusSchema = z.object({
  reportingContext: text,
  approvedCountries: texts,
  pendingCountries: texts,
  disapprovedCountries: texts,
});

export const GoogleItemLevelIssueSchema = z.object({
  code: text,
  /** `NOT_IMPACTED`, `DEMOTED` or `DISAPPROVED`. */
  severity: text,
  /** `MERCHANT_ACTION` (the shop must act) or `PENDING_PROCESSING` (Google is still at it). */
  resolution: text,
  attribute: text,
  reportingContext: text,
  description: text,
  detail: text,
  documentation: text,
  applicableCountries: texts,
});

export const GoogleProductStatusSchema = z.object({
  destinationStatuses: z.array(GoogleDestinationStatusSchema).nullish(),
  itemLevelIssues: z.array(GoogleItemLevelIssueSchema).nullish(),
  creationDate: text,
  lastUpdateDate: text,
  googleExpirationDate: text,
});

/** A processed product as `products.list` gives it; only what the verdict needs is read, the rest passes. */
export const GoogleListedProductSchema = z.object({
  name: z.string(),
  offerId: z.string(),
  contentLanguage: z.string(),
  feedLabel: z.string(),
  productStatus: GoogleProductStatusSchema.nullish(),
});

/** One page of `GET /products/v1/accounts/{account}/products` (`ListProductsResponse`). */
export const GoogleProductsPageSchema = z.object({
  products: z.array(z.unknown()).nullish(),
  nextPageToken: text,
});

// Compile-time check that the schemas read what the official client's types describe.
const _shapes: [
  (page: merchantapi_products_v1.Schema$ListProductsResponse) => z.input<typeof GoogleProductsPageSchema>,
  (status: merchantapi_products_v1.Schema$ProductStatus) => z.input<typeof GoogleProductStatusSchema>,
  (issue: merchantapi_products_v1.Schema$ItemLevelIssue) => z.input<typeof GoogleItemLevelIssueSchema>,
  (destination: merchantapi_products_v1.Schema$DestinationStatus) => z.input<typeof GoogleDestinationStatusSchema>,
] = [(page) => page, (status) => status, (issue) => issue, (destination) => destination];
void _shapes;

/** Work per slice while a page is checked: the leader serves feeds meanwhile. */
const PAGE_SLICE_MS = 3;

/** Most pages read in one pass (1,000 products each): a guard against a listing that never ends. */
export const GOOGLE_MAX_PRODUCT_PAGES = 2_000;
/** `products.list`'s largest page. */
export const GOOGLE_PRODUCTS_PAGE_SIZE = 1_000;
/**
 * The partial response asked for (Google's `fields` system parameter): the verdict's fields only. A whole
 * product carries its attributes (descriptions up to 5,000 characters): a page of 1,000 would pass the
 * answer size cap and take tens of milliseconds to parse.
 */
export const GOOGLE_PRODUCTS_FIELDS = 'products(name,offerId,contentLanguage,feedLabel,productStatus),nextPageToken';

export type GoogleVerdictStatus = 'approved' | 'pending' | 'disapproved';

export interface GoogleDestinationVerdict {
  /** e.g. `SHOPPING_ADS`, `FREE_LISTINGS`, `LOCAL_INVENTORY_ADS`. */
  readonly context: string;
  readonly approved: readonly string[];
  readonly pending: readonly string[];
  readonly disapproved: readonly string[];
}

export interface GoogleIssue {
  readonly code: string;
  readonly severity: string;
  readonly resolution?: string;
  readonly attribute?: string;
  readonly context?: string;
  readonly description?: string;
  readonly detail?: string;
  readonly documentation?: string;
  readonly countries?: readonly string[];
}

/** What the bridge keeps of Google's verdict on one product. */
export interface GoogleVerdict {
  readonly offerId: string;
  /** In the shop's country when Google names it there (`statusOf`), else the worst of its destinations. */
  readonly status: GoogleVerdictStatus;
  readonly destinations: readonly GoogleDestinationVerdict[];
  readonly issues: readonly GoogleIssue[];
  /** When Google last updated the product (ISO 8601), as it says. */
  readonly updatedAt?: string;
}

export interface GoogleProductsPage {
  /** The verdicts of the products in the bridge's language and feed label. */
  readonly verdicts: readonly GoogleVerdict[];
  /** Products of the page that could not be read (each named), left out of `verdicts`. */
  readonly unreadable: readonly string[];
  readonly nextPageToken?: string;
}

function list(values: readonly string[] | null | undefined): readonly string[] {
  return values ?? [];
}

function issueOf(raw: z.infer<typeof GoogleItemLevelIssueSchema>): GoogleIssue {
  const optional: Record<string, string | readonly string[] | undefined> = {
    resolution: channelText(raw.resolution),
    attribute: channelText(raw.attribute),
    context: channelText(raw.reportingContext),
    description: channelText(raw.description),
    detail: channelText(raw.detail),
    documentation: channelText(raw.documentation),
    countries: raw.applicableCountries === null || raw.applicableCountries === undefined ? undefined : raw.applicableCountries,
  };
  const defined = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  return { code: channelText(raw.code) ?? 'unknown', severity: channelText(raw.severity) ?? 'SEVERITY_UNSPECIFIED', ...defined };
}

/**
 * The worst status over the destinations; a product Google lists without any is still pending. With the
 * shop's `country` (the feed label, when it is one), only what Google says for that country counts: a
 * product Google also lists abroad (cross-border) and disapproves there is not disapproved for the shop.
 */
export function statusOf(destinations: readonly GoogleDestinationVerdict[], country?: string): GoogleVerdictStatus {
  const mentions = (destination: GoogleDestinationVerdict) =>
    destination.approved.includes(country ?? '') ||
    destination.pending.includes(country ?? '') ||
    destination.disapproved.includes(country ?? '');
  if (country !== undefined && destinations.some(mentions)) {
    if (destinations.some((destination) => destination.disapproved.includes(country))) return 'disapproved';
    return destinations.some((destination) => destination.pending.includes(country)) ? 'pending' : 'approved';
  }
  if (destinations.some((destination) => destination.disapproved.length > 0)) return 'disapproved';
  if (destinations.length === 0 || destinations.some((destination) => destination.pending.length > 0)) return 'pending';
  return 'approved';
}

/** A feed label that is a country (ISO 3166-1 alpha-2, as `CZ`): the shop's target country. */
export function countryOf(feedLabel: string): string | undefined {
  return /^[A-Z]{2}$/.test(feedLabel) ? feedLabel : undefined;
}

/** The verdict on one listed product. */
export function verdictOf(product: z.infer<typeof GoogleListedProductSchema>): GoogleVerdict {
  const status = product.productStatus ?? undefined;
  const destinations = (status?.destinationStatuses ?? []).map((destination) => ({
    context: channelText(destination.reportingContext) ?? 'REPORTING_CONTEXT_UNSPECIFIED',
    approved: list(destination.approvedCountries),
    pending: list(destination.pendingCountries),
    disapproved: list(destination.disapprovedCountries),
  }));
  const updatedAt = channelText(status?.lastUpdateDate);
  return {
    offerId: product.offerId,
    status: statusOf(destinations, countryOf(product.feedLabel)),
    destinations,
    issues: (status?.itemLevelIssues ?? []).map(issueOf),
    ...(updatedAt === undefined ? {} : { updatedAt }),
  };
}

/**
 * Reads one page of the listing: the verdicts of the products in `contentLanguage`/`feedLabel` (the bridge's
 * own; an account may hold others), each product checked on its own, so one odd product does not cost the
 * page. Returns a message when the page itself is not a listing. In slices that yield: a page of 1,000 takes
 * ~6 ms to check (~50 ms the first time, while the schemas warm up).
 */
export async function parseProductsPage(
  answer: unknown,
  identity: { readonly contentLanguage: string; readonly feedLabel: string },
): Promise<GoogleProductsPage | string> {
  const page = GoogleProductsPageSchema.safeParse(answer);
  if (!page.success)
    return `products.list answered something other than a product listing: ${page.error.issues[0]?.message ?? ''}`;
  const verdicts: GoogleVerdict[] = [];
  const unreadable: string[] = [];
  const slicer = createSlicer(PAGE_SLICE_MS);
  for (const [index, raw] of (page.data.products ?? []).entries()) {
    const pause = slicer.next();
    if (pause !== undefined) await pause;
    const product = GoogleListedProductSchema.safeParse(raw);
    if (!product.success) {
      const name = typeof raw === 'object' && raw !== null && 'name' in raw ? String(raw.name) : `#${index}`;
      unreadable.push(
        `${name}: ${product.error.issues[0]?.path.join('.') ?? ''} ${product.error.issues[0]?.message ?? ''}`.trim(),
      );
      continue;
    }
    if (product.data.contentLanguage !== identity.contentLanguage || product.data.feedLabel !== identity.feedLabel) continue;
    verdicts.push(verdictOf(product.data));
  }
  const nextPageToken = channelText(page.data.nextPageToken);
  return { verdicts, unreadable, ...(nextPageToken === undefined ? {} : { nextPageToken }) };
}
