import { SUPPLIER_NAMES } from './catalog-vocabulary.js';
import { createFaultInjector, type FaultInjector } from './fault-injector.js';
import type { PosClient, PosMovement } from './pos-resources.js';
import { createRandom, hash32, hex24, round2 } from './prng.js';
import { createRequestLog, type RequestLog } from './request-log.js';
import {
  createSandboxCatalog,
  type SandboxArticle,
  type SandboxCatalog,
  type SandboxCatalogOptions,
  type SandboxUnit,
  type UnitPrice,
} from './sandbox-catalog.js';
import { createSeedClients } from './sandbox-clients.js';

const SALT = { movement: 40, operation: 41, receipt: 42, initial: 43, supplier: 44, client: 45 } as const;
export type MintedIdKind = 'movement' | 'operation' | 'receipt' | 'client';
/** Oldest movements are dropped beyond this many, so a long-running sandbox keeps flat memory. */
const MAX_MOVEMENTS = 200_000;
const INITIAL_RECEIPT_LINES = 5;

export interface ArticleOverride {
  readonly name?: string;
  readonly salesPrice?: number;
}

interface StoredMovement {
  readonly movement: PosMovement;
  readonly createdAtMs: number;
}

export interface MovementQuery {
  readonly fromMs?: number;
  readonly toMs?: number;
  readonly unit?: string;
  readonly article?: string;
  readonly skip: number;
  readonly limit: number;
}

export interface SandboxState {
  readonly catalog: SandboxCatalog;
  readonly now: () => Date;
  readonly faults: FaultInjector;
  readonly requests: RequestLog;
  /** Article with assortment-import overrides applied. */
  article(index: number): SandboxArticle;
  /** The unit's price of an article, with an imported salesPrice applied. */
  unitPrice(unitIndex: number, article: SandboxArticle): UnitPrice;
  /** Current stock in thousandths of the measure unit. */
  stockMilli(unitIndex: number, articleIndex: number): number;
  adjustStock(unitIndex: number, articleIndex: number, deltaMilli: number): void;
  overrideArticle(index: number, override: ArticleOverride): void;
  /** Takes an article out of the article list (`false`: as if deleted in the POS) or puts it back (`true`). */
  setListed(index: number, listed: boolean): void;
  /** Indexes left out of the article list, in order (empty unless `setListed(…, false)` was called). */
  unlisted(): readonly number[];
  readonly clients: PosClient[];
  addMovements(movements: readonly PosMovement[]): void;
  queryMovements(query: MovementQuery): { total: number; items: PosMovement[] };
  /** Next number of a named sequence (receipts per unit, operation numbers), starting at 1. */
  nextNumber(sequence: string): number;
  /** A new ObjectId-like id; deterministic in the seed and the order of creation. */
  mintId(kind: MintedIdKind): string;
}

export interface SandboxStateOptions extends SandboxCatalogOptions {
  readonly now?: () => Date;
}

/** Movement view of an article (2.4): optional fields absent when the article lacks them. */
export function movementArticle(article: SandboxArticle): PosMovement['article'] {
  // The interface observed `ks` in movements where articles say `piece`: the movement shows the short Czech unit.
  const measureUnit = article.measureUnit === 'piece' ? 'ks' : article.measureUnit;
  return {
    _id: article.localId,
    name: article.name,
    ...(article.plu !== undefined ? { plu: article.plu } : {}),
    ...(article.ean !== undefined ? { ean: article.ean } : {}),
    ...(article.internalIdentifier !== undefined ? { internalIdentifier: article.internalIdentifier } : {}),
    measureUnit,
  };
}

export function movementUnit(unit: SandboxUnit): PosMovement['unit'] {
  return { _id: unit.localId, code: unit.code, name: unit.name };
}

/**
 * All mutable state of one sandbox: stock per unit (typed arrays, created on first use of a unit),
 * movements, clients, fault rules and the request log. Articles themselves are never stored.
 */
export function createSandboxState(options: SandboxStateOptions): SandboxState {
  const catalog = createSandboxCatalog(options);
  const now = options.now ?? (() => new Date());
  const stocks: (Int32Array | undefined)[] = new Array(catalog.units.length);
  const overrides = new Map<number, ArticleOverride>();
  const unlisted = new Set<number>();
  const sequences = new Map<string, number>();
  let movements: StoredMovement[] = [];
  let weighedFlags: Uint8Array | undefined;

  function article(index: number): SandboxArticle {
    const base = catalog.articleAt(index);
    const override = overrides.get(index);
    return override === undefined ? base : { ...base, ...override };
  }

  /** 1 = stock item sold by weight, 2 = stock item by piece, 0 = no stock (service). Built once. */
  function stockFlags(): Uint8Array {
    if (weighedFlags !== undefined) return weighedFlags;
    const flags = new Uint8Array(catalog.articleCount);
    for (let index = 0; index < catalog.articleCount; index++) {
      const item = catalog.articleAt(index);
      flags[index] = item.isStockItem === false ? 0 : item.byWeight ? 1 : 2;
    }
    weighedFlags = flags;
    return flags;
  }

  function stockOf(unitIndex: number): Int32Array {
    const existing = stocks[unitIndex];
    if (existing !== undefined) return existing;
    if (unitIndex < 0 || unitIndex >= catalog.units.length) throw new RangeError(`no unit #${unitIndex}`);
    const flags = stockFlags();
    const stock = new Int32Array(catalog.articleCount);
    for (let index = 0; index < catalog.articleCount; index++) {
      const flag = flags[index] ?? 0;
      if (flag !== 0) stock[index] = catalog.initialStockMilli(unitIndex, index, flag === 1);
    }
    stocks[unitIndex] = stock;
    return stock;
  }

  function nextNumber(sequence: string): number {
    const value = (sequences.get(sequence) ?? 0) + 1;
    sequences.set(sequence, value);
    return value;
  }

  /** Whether `movements` is in time order (it is, unless a clock went back): then queries search by time. */
  let inTimeOrder = true;

  function addMovements(added: readonly PosMovement[]): void {
    for (const movement of added) {
      const createdAtMs = Date.parse(movement.warehouseOperation.createdAt);
      const last = movements.at(-1);
      if (last !== undefined && !(createdAtMs >= last.createdAtMs)) inTimeOrder = false;
      movements.push({ movement, createdAtMs });
    }
    if (movements.length > MAX_MOVEMENTS) movements = movements.slice(movements.length - MAX_MOVEMENTS);
  }

  const state: SandboxState = {
    catalog,
    now,
    faults: createFaultInjector(options.seed),
    requests: createRequestLog(500),
    clients: createSeedClients(options.seed),
    article,
    unitPrice(unitIndex, item) {
      const override = overrides.get(item.index)?.salesPrice;
      // Unit prices derive from the generated price, not the overridden one; the override replaces them.
      const price = catalog.unitPrice(unitIndex, override === undefined ? item : catalog.articleAt(item.index));
      if (override === undefined) return price;
      // An imported price holds for every unit; keep the action/standard prices only where still consistent.
      return {
        priceVat: override,
        ...(price.actionPrice !== undefined && price.actionPrice < override ? { actionPrice: price.actionPrice } : {}),
        ...(price.standardPrice !== undefined && price.standardPrice > override ? { standardPrice: price.standardPrice } : {}),
      };
    },
    stockMilli(unitIndex, articleIndex) {
      return stockOf(unitIndex)[articleIndex] ?? 0;
    },
    adjustStock(unitIndex, articleIndex, deltaMilli) {
      const stock = stockOf(unitIndex);
      stock[articleIndex] = (stock[articleIndex] ?? 0) + deltaMilli;
    },
    overrideArticle(index, override) {
      overrides.set(index, { ...overrides.get(index), ...override });
    },
    setListed(index, listed) {
      if (listed) unlisted.delete(index);
      else unlisted.add(index);
    },
    unlisted: () => [...unlisted].sort((a, b) => a - b),
    addMovements,
    queryMovements(query) {
      // The bridge asks for a window of seconds around each sale: search it instead of scanning the log.
      const from = inTimeOrder && query.fromMs !== undefined ? firstAtOrAfter(movements, query.fromMs) : 0;
      const matching = movements.slice(from).filter(({ movement, createdAtMs }) => {
        if (query.fromMs !== undefined && createdAtMs < query.fromMs) return false;
        if (query.toMs !== undefined && createdAtMs > query.toMs) return false;
        if (query.unit !== undefined && movement.unit._id !== query.unit && movement.unit.code !== query.unit) return false;
        if (query.article !== undefined && movement.article._id !== query.article) return false;
        return true;
      });
      return {
        total: matching.length,
        items: matching.slice(query.skip, query.skip + query.limit).map((entry) => entry.movement),
      };
    },
    nextNumber,
    mintId(kind) {
      return hex24(options.seed, SALT[kind], nextNumber(`id:${kind}`));
    },
  };
  seedInitialMovements(state);
  return state;
}

/** The first index whose movement is not older than `ms` (movements in time order). */
function firstAtOrAfter(movements: readonly StoredMovement[], ms: number): number {
  let low = 0;
  let high = movements.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((movements[middle]?.createdAtMs ?? 0) < ms) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * One stock receipt (příjem) per unit dated a day before start, so the movement list is not empty
 * on a fresh sandbox. The receipts explain part of the starting stock; they do not change it.
 */
function seedInitialMovements(state: SandboxState): void {
  const { catalog } = state;
  const start = state.now().getTime();
  const seed = catalog.seed;
  for (const unit of catalog.units) {
    const random = createRandom(hash32(seed, SALT.initial, unit.index));
    const lines: { article: SandboxArticle; count: number }[] = [];
    for (let attempt = 0; attempt < 50 && lines.length < INITIAL_RECEIPT_LINES; attempt++) {
      const candidate = state.article(random.int(0, catalog.articleCount - 1));
      if (candidate.isStockItem === false || lines.some((line) => line.article.index === candidate.index)) continue;
      const count = candidate.byWeight ? random.int(2_000, 20_000) / 1000 : random.int(5, 40);
      lines.push({ article: candidate, count });
    }
    if (lines.length === 0) continue;
    const operationNumber = state.nextNumber('operation-receipt');
    let net = 0;
    let gross = 0;
    for (const line of lines) {
      net += line.article.purchasePrice * line.count;
      gross += line.article.purchasePrice * line.count * (1 + line.article.vatRate / 100);
    }
    const supplierIndex = random.int(0, SUPPLIER_NAMES.length - 1);
    const operation: PosMovement['warehouseOperation'] = {
      _id: state.mintId('operation'),
      number: `PR-${String(operationNumber).padStart(6, '0')}`,
      currency: 'CZK',
      price: { amount: round2(net), VAT: round2(gross - net), amountVAT: round2(gross) },
      createdAt: new Date(start - 86_400_000 + unit.index * 60_000).toISOString(),
      type: 1,
      supplier: { _id: hex24(seed, SALT.supplier, supplierIndex), name: SUPPLIER_NAMES[supplierIndex] ?? 'Dodavatel' },
    };
    state.addMovements(
      lines.map((line) => ({
        _id: state.mintId('movement'),
        count: line.count,
        unit: movementUnit(unit),
        article: movementArticle(line.article),
        warehouseOperation: operation,
      })),
    );
  }
}
