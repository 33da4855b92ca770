import { z } from 'zod';
import type { Availability } from '../catalog/catalog.js';
import { ALL_UNITS } from '../catalog/catalog.js';
import { roundQuantity } from '../catalog/round-money.js';
import type { FeedItem, FeedOffer } from './feed-item.js';

/**
 * A feed's stock policy (docs/custom-feeds.md, "Stock policy"): how much stock a channel is told of and
 * when an item counts as out of stock. It is applied when a feed is rendered, per feed; the catalog keeps
 * the POS's truth (docs/catalog-rules.md, rule 7). Set by a template's `stockPolicy`, overridden per key
 * by `FEED_STOCK_POLICY`, with every unit's own buffer from `UNIT_STOCK_BUFFER`.
 *
 * - **Buffer**: the advertised stock is the unit's stock minus its buffer (the unit's plus the feed's),
 *   never below 0. The `all` view sums every unit's advertised stock (each floored at 0, as rule 7 does).
 * - **Whole pieces** (`quantity`, one rule for units and totals): a unit's advertised stock rounded down,
 *   never below 1 while any remains; a total is the sum of its units' whole pieces, so a channel that
 *   reads a total beside per-unit records (Heureka's depots) finds them adding up.
 * - **Thresholds**: the advertised whole pieces below `outOfStockBelow` are out of stock; below
 *   `limitedBelow` (when set) `limited_availability`, which still counts as in stock.
 * - **Listing**: `outOfStock: "omit"` leaves out-of-stock items (and per-unit records) out of the feed.
 * - **Unknown stock stays unknown**: no buffer, threshold or sum turns it into 0; its availability stays
 *   the catalog's (`UNKNOWN_STOCK_AVAILABILITY`). Services (`isStockItem: false`) are left as they are.
 */

/** The availability a template sees: the catalog's two values, and `limited_availability` under `limitedBelow`. */
export type FeedAvailability = Availability | 'limited_availability';

export const OUT_OF_STOCK_LISTINGS = ['list', 'omit'] as const;
export type OutOfStockListing = (typeof OUT_OF_STOCK_LISTINGS)[number];

/** Largest buffer or threshold accepted: a guard against typos, far above any shelf. */
const MAX_POLICY_NUMBER = 1_000_000_000;

/** A template's `stockPolicy` block. */
export const StockPolicySchema = z.strictObject({
  $comment: z.string().optional(),
  /** Pieces kept back from every unit's stock in this feed, added to the unit's own `UNIT_STOCK_BUFFER`. */
  buffer: z.number().min(0).max(MAX_POLICY_NUMBER).optional(),
  /** Advertised whole pieces below this are out of stock (default 1: 0 pieces is out of stock). */
  outOfStockBelow: z.int().min(1).max(MAX_POLICY_NUMBER).optional(),
  /** Advertised whole pieces from `outOfStockBelow` up to below this are `limited_availability`. */
  limitedBelow: z.int().min(2).max(MAX_POLICY_NUMBER).optional(),
  /** `list` (default): out-of-stock items are written as such; `omit`: they are left out of the feed. */
  outOfStock: z.enum(OUT_OF_STOCK_LISTINGS).optional(),
});

/** The policy as a template or `FEED_STOCK_POLICY` states it (every key optional). */
export type StockPolicySpec = Omit<z.infer<typeof StockPolicySchema>, '$comment'>;

/** The keys of a policy, in the order the messages list them. */
export const STOCK_POLICY_KEYS = ['buffer', 'outOfStockBelow', 'limitedBelow', 'outOfStock'] as const;
type StockPolicyKey = (typeof STOCK_POLICY_KEYS)[number];

/** What the configuration adds to every template feed's policy. */
export interface StockSettings {
  /** `UNIT_STOCK_BUFFER`: unit code → pieces kept back; the key `*` is the default for units not named. */
  readonly unitBuffers: Readonly<Record<string, number>>;
  /** `FEED_STOCK_POLICY`: feed name → keys overriding the template's `stockPolicy`. */
  readonly feedPolicies: Readonly<Record<string, StockPolicySpec>>;
}

export const NO_STOCK_SETTINGS: StockSettings = { unitBuffers: {}, feedPolicies: {} };

/** The resolved policy of one feed. */
export interface StockPolicy {
  /** The feed's own buffer (added to each unit's). */
  readonly buffer: number;
  readonly unitBuffers: ReadonlyMap<string, number>;
  /** The buffer of units `UNIT_STOCK_BUFFER` does not name (its `*`, else 0). */
  readonly defaultUnitBuffer: number;
  readonly outOfStockBelow: number;
  readonly limitedBelow: number | undefined;
  readonly outOfStock: OutOfStockListing;
  /** Whether any unit has a buffer in this feed (else the catalog's own sum is the `all` view's stock). */
  readonly buffered: boolean;
  /**
   * Whether the policy changes any stock or availability: a buffer, or thresholds other than the catalog's
   * (rule 7: above 0 is in stock, which is 1 piece or more). Without, the catalog's values are used as they are.
   */
  readonly adjusts: boolean;
}

/**
 * The policy of one feed: the template's keys, each overridden by the configuration's, and the units'
 * buffers. Returns a message instead when the thresholds contradict each other.
 */
export function resolveStockPolicy(
  template: StockPolicySpec | undefined,
  override: StockPolicySpec | undefined,
  unitBuffers: Readonly<Record<string, number>>,
): StockPolicy | string {
  const spec = { ...template, ...override };
  const outOfStockBelow = spec.outOfStockBelow ?? 1;
  const limitedBelow = spec.limitedBelow;
  if (limitedBelow !== undefined && limitedBelow <= outOfStockBelow) {
    return `limitedBelow (${limitedBelow}) must be above outOfStockBelow (${outOfStockBelow}), else nothing is ever limited`;
  }
  const byUnit = new Map<string, number>();
  for (const [unit, buffer] of Object.entries(unitBuffers)) if (unit !== '*') byUnit.set(unit, buffer);
  const defaultUnitBuffer = unitBuffers['*'] ?? 0;
  const buffer = spec.buffer ?? 0;
  const buffered = buffer > 0 || defaultUnitBuffer > 0 || [...byUnit.values()].some((value) => value > 0);
  return {
    buffer,
    unitBuffers: byUnit,
    defaultUnitBuffer,
    outOfStockBelow,
    limitedBelow,
    outOfStock: spec.outOfStock ?? 'list',
    buffered,
    adjusts: buffered || outOfStockBelow !== 1 || limitedBelow !== undefined,
  };
}

function defaultPolicy(): StockPolicy {
  const policy = resolveStockPolicy(undefined, undefined, {});
  if (typeof policy === 'string') throw new Error(policy);
  return policy;
}

/** The policy of a feed without `stockPolicy` and without configuration: the catalog's availability, as is. */
export const DEFAULT_STOCK_POLICY: StockPolicy = defaultPolicy();

/** Pieces kept back from `unit`'s stock in this feed. */
export function bufferOf(policy: StockPolicy, unit: string): number {
  return policy.buffer + (policy.unitBuffers.get(unit) ?? policy.defaultUnitBuffer);
}

/**
 * Whole units for channels that count pieces: fractional stock is rounded down, but never below 1 while
 * any stock remains (0.5 kg in stock must not read as "0 available" next to `in_stock`); negative
 * stock counts as 0; unknown stock stays unknown.
 */
export function quantityOf(stock: number | undefined): number | undefined {
  if (stock === undefined || Number.isNaN(stock)) return undefined;
  if (stock <= 0) return 0;
  return stock === Number.POSITIVE_INFINITY ? undefined : Math.max(1, Math.floor(stock));
}

/** A known stock minus a buffer, never below 0 (float noise of the subtraction removed). */
function advertise(stock: number, buffer: number): number {
  if (Number.isNaN(stock)) return stock;
  return buffer === 0 ? Math.max(0, stock) : Math.max(0, roundQuantity(stock - buffer));
}

/**
 * The whole pieces of a total: the sum of each known unit stock's whole pieces; `undefined` when no unit's
 * stock is known. Without per-unit records, the total's own.
 */
function piecesOfTotal(offers: readonly FeedOffer[], total: number | undefined): number | undefined {
  if (offers.length === 0) return quantityOf(total);
  let sum: number | undefined;
  for (const offer of offers) {
    const pieces = offer.stock === undefined ? undefined : quantityOf(offer.stock);
    if (pieces !== undefined) sum = (sum ?? 0) + pieces;
  }
  return sum;
}

/** Availability of a known number of advertised whole pieces; `undefined` when it has none. */
function classifyPieces(policy: StockPolicy, pieces: number | undefined): FeedAvailability | undefined {
  if (pieces === undefined) return undefined;
  if (pieces < policy.outOfStockBelow) return 'out_of_stock';
  return policy.limitedBelow !== undefined && pieces < policy.limitedBelow ? 'limited_availability' : 'in_stock';
}

/** Availability of a known advertised unit stock, by its whole pieces. */
function classify(policy: StockPolicy, stock: number): FeedAvailability | undefined {
  return classifyPieces(policy, quantityOf(stock));
}

/**
 * The policy applied to the item in scope, one per render and reused for every item (no allocation per
 * item): the item's advertised values are kept until the next item, since a template reads them several
 * times (the filter, `availability`, `inStock`, `quantity`).
 */
export interface StockState {
  readonly policy: StockPolicy;
  /** Whether the view is the aggregate `all`. */
  readonly aggregate: boolean;
  /** The buffer of the view's unit (a unit view). */
  readonly viewBuffer: number;
  /** Per-unit records left out by `outOfStock: omit` so far (the renderers tell an item's reason by it). */
  omittedOffers: number;
  item: FeedItem | undefined;
  stock: number | undefined;
  /** The item's advertised whole pieces (a total in the `all` view: the sum of its units'). */
  pieces: number | undefined;
  availability: FeedAvailability;
}

export function createStockState(policy: StockPolicy, view: string): StockState {
  return {
    policy,
    aggregate: view === ALL_UNITS,
    viewBuffer: bufferOf(policy, view),
    omittedOffers: 0,
    item: undefined,
    stock: undefined,
    pieces: undefined,
    availability: 'out_of_stock',
  };
}

function refresh(state: StockState, item: FeedItem): void {
  state.item = item;
  const { policy } = state;
  if (!item.isStockItem || !policy.adjusts) {
    state.stock = item.stock;
    state.pieces = state.aggregate && item.isStockItem ? piecesOfTotal(item.offers, item.stock) : quantityOf(item.stock);
    state.availability = item.availability;
    return;
  }
  let stock: number | undefined;
  if (!state.aggregate) {
    stock = item.stock === undefined ? undefined : advertise(item.stock, state.viewBuffer);
    state.pieces = quantityOf(stock);
  } else {
    // One pass over the units (this runs for every item of every render): each known stock as advertised,
    // added up (the catalog's own sum when nothing is buffered: rule 7), and its whole pieces added up.
    let advertised: number | undefined;
    let pieces: number | undefined;
    for (const offer of item.offers) {
      if (offer.stock === undefined) continue;
      const unitStock = advertise(offer.stock, bufferOf(policy, offer.unit));
      advertised = (advertised ?? 0) + unitStock;
      const whole = quantityOf(unitStock);
      if (whole !== undefined) pieces = (pieces ?? 0) + whole;
    }
    stock = policy.buffered ? (advertised === undefined ? undefined : roundQuantity(advertised)) : item.stock;
    state.pieces = item.offers.length === 0 ? quantityOf(stock) : pieces;
  }
  state.stock = stock;
  let availability = classifyPieces(policy, state.pieces);
  if (availability === 'out_of_stock' && state.aggregate) {
    // A unit of unknown stock may still have the goods: its (the unknown-stock) availability decides (rule 7).
    for (const offer of item.offers) {
      if (offer.stock === undefined) {
        availability = offer.availability;
        break;
      }
    }
  }
  state.availability = availability ?? item.availability;
}

/** The item's advertised whole pieces (`quantity`); a total is the sum of its units' whole pieces. */
export function itemPiecesOf(state: StockState, item: FeedItem): number | undefined {
  if (state.item !== item) refresh(state, item);
  return state.pieces;
}

/** The item's stock as this feed advertises it; `undefined` when unknown. */
export function itemStockOf(state: StockState, item: FeedItem): number | undefined {
  if (state.item !== item) refresh(state, item);
  return state.stock;
}

/** The item's availability in this feed. */
export function itemAvailabilityOf(state: StockState, item: FeedItem): FeedAvailability {
  if (state.item !== item) refresh(state, item);
  return state.availability;
}

/** The unit's stock of an offer as this feed advertises it; `undefined` when unknown. */
export function offerStockOf(state: StockState, offer: FeedOffer, isStockItem: boolean): number | undefined {
  const stock = offer.stock;
  if (stock === undefined || !isStockItem || !state.policy.adjusts) return stock;
  return advertise(stock, bufferOf(state.policy, offer.unit));
}

/** The unit's availability of an offer in this feed. */
export function offerAvailabilityOf(state: StockState, offer: FeedOffer, isStockItem: boolean): FeedAvailability {
  const stock = offer.stock;
  if (stock === undefined || !isStockItem || !state.policy.adjusts) return offer.availability;
  return classify(state.policy, advertise(stock, bufferOf(state.policy, offer.unit))) ?? offer.availability;
}

/** Whether the listing policy leaves the item out of this feed (out of stock under `omit`). */
export function omitsItem(state: StockState, item: FeedItem): boolean {
  return state.policy.outOfStock === 'omit' && itemAvailabilityOf(state, item) === 'out_of_stock';
}

/** Whether the listing policy leaves this unit's record out (counted in `omittedOffers`). */
export function omitsOffer(state: StockState, offer: FeedOffer, isStockItem: boolean): boolean {
  if (state.policy.outOfStock !== 'omit' || offerAvailabilityOf(state, offer, isStockItem) !== 'out_of_stock') return false;
  state.omittedOffers++;
  return true;
}

/**
 * Parses `FEED_STOCK_POLICY`: `google:buffer=1;google-local-inventory:buffer=1,limitedBelow=5;heureka:outOfStock=omit`
 * (sections by `;`, a feed name, `:`, then `key=value` pairs by `,`). Every problem is a message naming the feed and key.
 * Whether the feed names exist is checked where the templates are loaded.
 */
export function parseStockPolicies(text: string): { policies: Record<string, StockPolicySpec>; problems: string[] } {
  const policies: Record<string, StockPolicySpec> = {};
  const problems: string[] = [];
  for (const rawSection of text.split(';')) {
    const section = rawSection.trim();
    if (section === '') continue;
    const colon = section.indexOf(':');
    const feed = colon < 0 ? '' : section.slice(0, colon).trim();
    if (colon < 0 || feed === '') {
      problems.push(`"${section}" is not of the form FEED:key=value,key=value (e.g. google:buffer=1,outOfStockBelow=2)`);
      continue;
    }
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(feed)) {
      problems.push(`"${feed}" is not a feed name (a template's "name": lower-case letters, digits and dashes)`);
      continue;
    }
    if (Object.hasOwn(policies, feed)) {
      problems.push(`feed "${feed}" is named twice; give all its keys in one section`);
      continue;
    }
    const spec: { -readonly [K in StockPolicyKey]?: StockPolicySpec[K] } = {};
    for (const rawPair of section.slice(colon + 1).split(',')) {
      const pair = rawPair.trim();
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const key = eq < 0 ? '' : pair.slice(0, eq).trim();
      const value = eq < 0 ? '' : pair.slice(eq + 1).trim();
      if (key === '' || value === '') {
        problems.push(`feed "${feed}": "${pair}" is not of the form key=value`);
        continue;
      }
      if (!(STOCK_POLICY_KEYS as readonly string[]).includes(key)) {
        problems.push(`feed "${feed}": unknown key "${key}" (known: ${STOCK_POLICY_KEYS.join(', ')})`);
        continue;
      }
      if (Object.hasOwn(spec, key)) {
        problems.push(`feed "${feed}": key "${key}" is given twice`);
        continue;
      }
      const parsed = parsePolicyValue(key as StockPolicyKey, value);
      if (typeof parsed === 'string') {
        problems.push(`feed "${feed}": ${parsed}`);
        continue;
      }
      Object.assign(spec, { [key]: parsed.value });
    }
    policies[feed] = spec;
  }
  return { policies, problems };
}

function parsePolicyValue(key: StockPolicyKey, text: string): { value: number | OutOfStockListing } | string {
  if (key === 'outOfStock') {
    const listing = OUT_OF_STOCK_LISTINGS.find((candidate) => candidate === text);
    return listing === undefined ? `outOfStock must be ${OUT_OF_STOCK_LISTINGS.join(' or ')}, got "${text}"` : { value: listing };
  }
  const value = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (key === 'buffer') {
    return Number.isFinite(value) && value <= MAX_POLICY_NUMBER
      ? { value }
      : `buffer must be a non-negative number of pieces, got "${text}"`;
  }
  const min = key === 'outOfStockBelow' ? 1 : 2;
  return Number.isInteger(value) && value >= min && value <= MAX_POLICY_NUMBER
    ? { value }
    : `${key} must be a whole number of pieces, at least ${min}, got "${text}"`;
}
