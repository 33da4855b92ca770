import { ARTICLE_CATEGORIES, type ArticleCategory, CASHIER_NAMES, TRICKY_NAMES, UNIT_NAMES } from './catalog-vocabulary.js';
import { toEan13 } from './ean13.js';
import type { PosArticle, PosUnit } from './pos-resources.js';
import { createRandom, hash32, hex24, round2, uuidFrom } from './prng.js';

/** Salts keep the hash streams of different kinds of data independent of each other. */
const SALT = {
  article: 1,
  ean: 2,
  unit: 3,
  priceList: 4,
  unitPrice: 5,
  stock: 6,
  device: 7,
  cashier: 8,
  account: 9,
} as const;

/** First number of article localIds (`a-100001`), PLUs (1001) and internal identifiers (KAV-1001). */
const LOCAL_ID_BASE = 100_001;
const PLU_BASE = 1001;
/** Every 250th article shares the EAN of its predecessor: real catalogs have a few duplicates. */
const DUPLICATE_EAN_PERIOD = 250;
/**
 * Every 97th article (from the 12th) has an EAN with a wrong check digit, as a code typed in by hand at the
 * till: the feeds must leave such a GTIN out, and the console say why.
 */
const MISTYPED_EAN_PERIOD = 97;
const MISTYPED_EAN_OFFSET = 11;

export interface SandboxArticle extends PosArticle {
  readonly index: number;
  /** VAT rate in percent; not part of the interface's article, but needed for net prices. */
  readonly vatRate: number;
  readonly byWeight: boolean;
}

export interface SandboxUnit extends PosUnit {
  readonly index: number;
  readonly device: { readonly localId: string; readonly uuid: string; readonly label: string };
  readonly cashier: { readonly localId: string; readonly name: string };
}

/** A unit's own offer for an article, as its price-list XML shows it. */
export interface UnitPrice {
  readonly priceVat: number;
  readonly actionPrice?: number;
  readonly standardPrice?: number;
}

export interface SandboxCatalogOptions {
  readonly seed: number;
  readonly units: number;
  readonly articles: number;
  /**
   * Keep each article once made (~50 MB per 100,000 once all are read) instead of making it again for each
   * document: the standalone sandbox (`main.ts`), a process of its own. Off for a sandbox in the bridge's process.
   */
  readonly keepArticles?: boolean;
}

export interface SandboxCatalog {
  readonly seed: number;
  readonly articleCount: number;
  readonly units: readonly SandboxUnit[];
  /** Id the sale webhooks carry in `accountId`. */
  readonly accountId: string;
  /** Article `index` (0-based), made from (seed, index) when asked for (kept with `keepArticles`). */
  articleAt(index: number): SandboxArticle;
  /** Index of the article with this localId, or undefined. */
  indexOfLocalId(localId: string): number | undefined;
  /** The unit whose localId or code is `identifier`. */
  findUnit(identifier: string): SandboxUnit | undefined;
  /** The unit's price of an article (pass the article: regenerating it here would double the cost). */
  unitPrice(unitIndex: number, article: SandboxArticle): UnitPrice;
  /** Starting stock in thousandths of the measure unit (integers keep kg amounts exact). */
  initialStockMilli(unitIndex: number, articleIndex: number, byWeight: boolean): number;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

const CATEGORY_WEIGHT_TOTAL = ARTICLE_CATEGORIES.reduce((sum, category) => sum + category.weight, 0);

function pickCategory(roll: number): ArticleCategory {
  let remaining = roll * CATEGORY_WEIGHT_TOTAL;
  for (const category of ARTICLE_CATEGORIES) {
    remaining -= category.weight;
    if (remaining < 0) return category;
  }
  const last = ARTICLE_CATEGORIES[ARTICLE_CATEGORIES.length - 1];
  if (last === undefined) throw new Error('no article categories');
  return last;
}

/** Prices as shops set them: whole crowns or x.90. */
function shopPrice(raw: number): number {
  const whole = Math.max(1, Math.floor(raw));
  return whole >= 50 && whole % 3 === 0 ? whole : whole + 0.9;
}

function eanBody(seed: number, index: number): string {
  const a = hash32(seed, SALT.ean, index);
  const b = hash32(seed, SALT.ean, index, 1);
  const digits = `${(a % 100_000).toString().padStart(5, '0')}${(b % 10_000).toString().padStart(4, '0')}`;
  // Imported goods (~5 %) carry their maker's UPC-A as an EAN-13 with a leading zero (GS1 prefix 001-019,
  // US and Canada): the code a spreadsheet must keep as text. The rest: 859, the Czech Republic's prefix.
  return hash32(seed, SALT.ean, index, 3) % 100 < 5 ? `001${digits}` : `859${digits}`;
}

function hasOwnEan(seed: number, index: number): boolean {
  // The predecessor of a duplicate always has an EAN, so the duplicate pair is real.
  if (index % DUPLICATE_EAN_PERIOD === DUPLICATE_EAN_PERIOD - 2) return true;
  if (index % MISTYPED_EAN_PERIOD === MISTYPED_EAN_OFFSET) return true;
  return hash32(seed, SALT.ean, index, 2) % 100 >= 10;
}

function articleEan(seed: number, index: number): string | undefined {
  if (index > 0 && index % DUPLICATE_EAN_PERIOD === DUPLICATE_EAN_PERIOD - 1) return toEan13(eanBody(seed, index - 1));
  if (!hasOwnEan(seed, index)) return undefined;
  const ean = toEan13(eanBody(seed, index));
  if (index % MISTYPED_EAN_PERIOD !== MISTYPED_EAN_OFFSET) return ean;
  const wrongCheckDigit = (Number(ean.charAt(12)) + 1) % 10;
  return `${ean.slice(0, 12)}${wrongCheckDigit}`;
}

function generateArticle(seed: number, index: number): SandboxArticle {
  const random = createRandom(hash32(seed, SALT.article, index));
  const category = pickCategory(random.next());
  const nounIndex = random.int(0, category.nouns.length - 1);
  const noun = category.nouns[nounIndex] ?? '';
  const variant = random.pick(category.variants);
  const size = category.sizes.length > 0 ? random.pick(category.sizes) : '';
  const tricky = random.chance(0.04);
  const base = tricky ? random.pick(TRICKY_NAMES) : variant === '' ? noun : `${noun} ${variant}`;
  const name = size === '' ? base : `${base} ${size}`;

  const hasGroup = random.chance(0.93);
  const hasInternalIdentifier = random.chance(0.85);
  // Every article keeps at least one of internalIdentifier / plu: the price list keys on them.
  const hasPlu = !hasInternalIdentifier || random.chance(0.88);
  const salesItemRoll = random.next();
  const stockItemRoll = random.next();
  const isQuick = random.chance(0.08);
  const ksRoll = random.chance(0.2);

  const salesPrice = shopPrice(category.minPrice + random.next() * (category.maxPrice - category.minPrice));
  const net = salesPrice / (1 + category.vatRate / 100);
  const purchasePrice = category.service ? 0 : round2(net * (0.55 + random.next() * 0.25));
  const avgPurchasePrice = category.service ? 0 : Math.round(purchasePrice * (0.96 + random.next() * 0.08) * 10_000) / 10_000;

  const ean = articleEan(seed, index);
  const measureUnit = category.byWeight ? 'kg' : ksRoll ? 'ks' : 'piece';
  const isSalesItem = salesItemRoll < 0.03 ? false : salesItemRoll < 0.13 ? undefined : true;
  const isStockItem = category.service ? false : stockItemRoll < 0.1 ? undefined : true;
  const categoryIndex = ARTICLE_CATEGORIES.indexOf(category);

  // Built property by property (spreads of optional parts are several times slower on this hot path);
  // the order mirrors the interface table so the JSON reads like the documentation.
  const article: Writable<Partial<SandboxArticle>> = { localId: `a-${LOCAL_ID_BASE + index}`, name };
  if (hasGroup) article.localGroupId = `g-${(categoryIndex + 1) * 10 + (nounIndex % 10)}`;
  if (ean !== undefined) article.ean = ean;
  if (hasPlu) article.plu = PLU_BASE + index;
  if (hasInternalIdentifier) article.internalIdentifier = `${category.prefix}-${PLU_BASE + index}`;
  article.measureUnit = measureUnit;
  if (isSalesItem !== undefined) article.isSalesItem = isSalesItem;
  if (isStockItem !== undefined) article.isStockItem = isStockItem;
  article.isQuick = isQuick;
  article.salesPrice = salesPrice;
  article.purchasePrice = purchasePrice;
  article.avgPurchasePrice = avgPurchasePrice;
  article.index = index;
  article.vatRate = category.vatRate;
  article.byWeight = category.byWeight;
  return article as SandboxArticle;
}

function generateUnits(seed: number, count: number): SandboxUnit[] {
  const units: SandboxUnit[] = [];
  for (let index = 0; index < count; index++) {
    const baseName = UNIT_NAMES[index % UNIT_NAMES.length] ?? 'Prodejna';
    const round = Math.floor(index / UNIT_NAMES.length);
    const name = round === 0 ? baseName : `${baseName} ${round + 1}`;
    const code = `U${index + 1}`;
    const priceLists = [{ localId: hex24(seed, SALT.priceList, index, 0), externalId: `CENIK-${code}`, name: `Ceník ${name}` }];
    // Every third unit also has a promotional price list, so `priceLists` is not always one item.
    if (index % 3 === 2) {
      priceLists.push({
        localId: hex24(seed, SALT.priceList, index, 1),
        externalId: `AKCE-${code}`,
        name: `Akční ceník ${name}`,
      });
    }
    units.push({
      code,
      name,
      localId: hex24(seed, SALT.unit, index),
      priceLists,
      index,
      device: { localId: hex24(seed, SALT.device, index), uuid: uuidFrom(seed, SALT.device, index), label: `P${index + 1}` },
      cashier: {
        localId: hex24(seed, SALT.cashier, index),
        name: CASHIER_NAMES[(index + seed) % CASHIER_NAMES.length] ?? 'Pokladní',
      },
    });
  }
  return units;
}

/** Deterministic demo catalog: the same options always give the same units, articles, prices and stock. */
export function createSandboxCatalog(options: SandboxCatalogOptions): SandboxCatalog {
  const { seed, articles: articleCount } = options;
  const units = generateUnits(seed, options.units);
  const unitsByIdentifier = new Map<string, SandboxUnit>();
  for (const unit of units) {
    unitsByIdentifier.set(unit.localId, unit);
    unitsByIdentifier.set(unit.code, unit);
  }

  // Kept when asked: every sync reads each article in ~11 documents (the article list, each unit's price
  // list and stock export), and making one costs more than the row that shows it.
  const made: (SandboxArticle | undefined)[] | undefined = options.keepArticles === true ? [] : undefined;
  function articleAt(index: number): SandboxArticle {
    if (!Number.isInteger(index) || index < 0 || index >= articleCount) throw new RangeError(`no article #${index}`);
    if (made === undefined) return generateArticle(seed, index);
    let article = made[index];
    if (article === undefined) {
      article = generateArticle(seed, index);
      made[index] = article;
    }
    return article;
  }

  function unitPrice(unitIndex: number, article: SandboxArticle): UnitPrice {
    const random = createRandom(hash32(seed, SALT.unitPrice, unitIndex, article.index));
    // The first unit sells at the article's salesPrice; others differ a little on about a fifth of items.
    const differs = unitIndex > 0 && random.chance(0.2);
    const factor = differs ? 1 + (random.chance(0.5) ? 1 : -1) * (0.01 + random.next() * 0.05) : 1;
    const priceVat = differs ? Math.max(1, round2(article.salesPrice * factor)) : article.salesPrice;
    const actionRoll = random.next();
    const standardRoll = random.next();
    const actionPrice = actionRoll < 0.12 ? round2(priceVat * (0.75 + random.next() * 0.2)) : undefined;
    const standardPrice = standardRoll < 0.1 ? round2(priceVat * (1.1 + random.next() * 0.25)) : undefined;
    return {
      priceVat,
      ...(actionPrice !== undefined && actionPrice < priceVat ? { actionPrice } : {}),
      ...(standardPrice !== undefined && standardPrice > priceVat ? { standardPrice } : {}),
    };
  }

  function initialStockMilli(unitIndex: number, articleIndex: number, byWeight: boolean): number {
    const random = createRandom(hash32(seed, SALT.stock, unitIndex, articleIndex));
    const roll = random.next();
    if (roll < 0.12) return 0;
    if (roll < 0.15) return byWeight ? -random.int(100, 2_500) : -1000 * random.int(1, 4);
    return byWeight ? random.int(250, 40_000) : 1000 * random.int(1, 80);
  }

  return {
    seed,
    articleCount,
    units,
    accountId: hex24(seed, SALT.account),
    articleAt,
    indexOfLocalId(localId) {
      const match = /^a-(\d{6,7})$/.exec(localId);
      if (match?.[1] === undefined) return undefined;
      const index = Number(match[1]) - LOCAL_ID_BASE;
      return index >= 0 && index < articleCount ? index : undefined;
    },
    findUnit: (identifier) => unitsByIdentifier.get(identifier),
    unitPrice,
    initialStockMilli,
  };
}

/** The article as the article list sends it: documented fields only, net prices when asked. */
export function toPosArticle(article: SandboxArticle, priceOutput: 'with_vat' | 'without_vat'): PosArticle {
  const { index: _index, vatRate, byWeight: _byWeight, ...pos } = article;
  if (priceOutput === 'with_vat') return pos;
  return { ...pos, salesPrice: round2(article.salesPrice / (1 + vatRate / 100)) };
}

/** Key that the price-list CODE (and the csv stock export's Kód) uses: internalIdentifier, else plu. */
export function articleCode(article: PosArticle): string | undefined {
  if (article.internalIdentifier !== undefined) return article.internalIdentifier;
  return article.plu !== undefined ? String(article.plu) : undefined;
}
