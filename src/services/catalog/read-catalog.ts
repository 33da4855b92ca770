import type { CatalogSnapshot } from '../../core/catalog/catalog.js';
import { createChunkFingerprint, type ItemChunk, serializeItemsMade } from '../../core/catalog/catalog-chunks.js';
import { fingerprintHeaderOf } from '../../core/catalog/catalog-version.js';
import { type DocumentLimits, documentLimits } from '../../core/catalog/document-limits.js';
import type { IdentityIndex } from '../../core/catalog/identity-index.js';
import {
  type CatalogMerger,
  createCatalogMerger,
  type MergedCatalog,
  type MergeReport,
} from '../../core/catalog/merge-catalog.js';
import type { SourceUnit } from '../../core/catalog/source.js';
import type { CatalogSourceRows } from '../../core/catalog/source-rows.js';
import {
  type CatalogServiceOptions,
  DEFAULT_DOCUMENT_LIMITS,
  type PriceListReport,
  type StockExportReport,
  type SyncError,
  type SyncPhase,
  type SyncSources,
  syncErrorOf,
} from './catalog-types.js';
import type { EnrichmentTableInput } from './enrich-catalog.js';
import type { PosClient, PosSource } from './pos-port.js';
import {
  readUnitDocument,
  readUnitDocuments,
  type UnitDocumentEvent,
  type UnitDocumentLanes,
  type UnitDocumentRequest,
  type UnitDocumentThread,
} from './unit-documents.js';

/**
 * The reading half of a full sync (docs/catalog-rules.md rules 1-7): units, articles, every unit's price list and
 * stock export, merged into one catalog, then serialized into chunks and fingerprinted. It needs nothing
 * but a POS client and returns only shared memory and small reports, so it runs in a worker thread
 * (`src/workers/`) as well as in the calling thread (tests with an in-memory POS); the publishing half
 * (`full-sync.ts`) is the same either way.
 */

export interface ReadCatalogInput {
  readonly version: string;
  /** ISO 8601: the `generatedAt` of the version. */
  readonly startedAt: string;
  readonly options: Omit<CatalogServiceOptions, 'maxShrink'>;
  /** The last good enrichment sheet's table, applied after the merge (docs/enrichment.md). */
  readonly enrichment?: EnrichmentTableInput;
  /**
   * About how many articles the read will find (the previous sync's count, else the served version's
   * products): the thread that runs it is sized for it (`create-catalog-workers.ts`). Absent: nothing is
   * served yet.
   */
  readonly expectedArticles?: number;
}

/** Progress reported while reading: phase timings (`onPhase` probe) and log lines of the POS client. */
export type ReadCatalogEvent = UnitDocumentEvent;

/** What the thread running a read lends it. */
export interface ReadCatalogHelpers {
  /** A forced garbage collection, where the thread may run one (`catalog-worker.ts`). */
  readonly collectGarbage?: () => void;
  /**
   * Makes the collection called after every few MB serialized: a forced one when enough has been left since
   * it was made (`collect-garbage.ts`), so that what the made products leave is freed as the chunks grow.
   * Made once the heap holds only what the serialization needs (right after a forced collection).
   */
  readonly serializationCollector?: () => () => void;
  /**
   * A second thread that reads units' documents beside this one (decision 0020), asked for once the article
   * list is read, with its count (the setting may depend on it); `undefined`: this thread reads them all. The
   * thread is closed once every document is read or the reading failed.
   */
  readonly documentThread?: (articles: number) => UnitDocumentThread | undefined;
  /** Told how many articles the list held, once it is read (before the collection that follows). */
  readonly articlesRead?: (articles: number) => void;
}

/** A merged, serialized catalog: everything a publish needs, in shared memory. */
export interface ReadCatalogResult {
  readonly snapshot: Omit<CatalogSnapshot, 'products'>;
  readonly products: readonly ItemChunk[];
  readonly productCount: number;
  /** Admin-only purchase prices, serialized the same way. */
  readonly internal: readonly ItemChunk[];
  /** The products' identity index (`product-identity.ts`), in shared memory. */
  readonly identity: IdentityIndex;
  readonly fingerprint: string;
  readonly sources: SyncSources;
  readonly merge: MergeReport;
  /** Which document rows gave each product its values (a product's console page). */
  readonly sourceRows: CatalogSourceRows;
}

export type ReadCatalogOutput =
  | ({ readonly ok: true } & ReadCatalogResult)
  /** A source failed: what was read so far is in `sources`. */
  | { readonly ok: false; readonly error: SyncError; readonly sources: SyncSources };

type Emit = (event: ReadCatalogEvent) => void;

interface Progress {
  sources: SyncSources;
  mark: number;
}

function phaseEnded(emit: Emit, phase: SyncPhase, since: number, unit?: string): number {
  const ended = performance.now();
  emit({ type: 'phase', phase, ms: ended - since, ...(unit === undefined ? {} : { unit }) });
  return ended;
}

/**
 * Units and articles, and a merger of the catalog `version` over them. A function of its own so that the
 * article list is garbage once the merger has taken what it needs (~35 MB for 100,000 articles).
 */
async function startMerge(
  pos: PosClient,
  input: ReadCatalogInput,
  progress: Progress,
  emit: Emit,
): Promise<{ units: SourceUnit[]; merger: CatalogMerger; limits: DocumentLimits }> {
  const { options } = input;
  const units = await pos.listUnits();
  progress.mark = phaseEnded(emit, 'units', progress.mark);
  progress.sources = { units: { count: units.items.length, rejected: units.rejected.slice(0, 20), pages: units.pages } };
  const articles = await pos.listArticles({ priceOutput: 'with_vat' });
  progress.mark = phaseEnded(emit, 'articles', progress.mark);
  progress.sources = {
    ...progress.sources,
    articles: {
      count: articles.items.length,
      rejectedCount: articles.rejected.length,
      rejected: articles.rejected.slice(0, 20),
      pages: articles.pages,
    },
  };
  const merger = createCatalogMerger(
    { units: units.items, articles: articles.items },
    {
      version: input.version,
      currency: options.currency,
      ...(options.primaryUnit === undefined ? {} : { primaryUnit: options.primaryUnit }),
      unknownStockAvailability: options.unknownStockAvailability,
      priceListKey: options.priceListKey,
      stockKey: options.stockKey,
    },
    new Date(input.startedAt),
  );
  const limits = documentLimits(articles.items.length, options.documents ?? DEFAULT_DOCUMENT_LIMITS);
  return { units: units.items, merger, limits };
}

/** Resolves once `resolve` is called (a unit's stock export merged). */
function signalled(): { readonly promise: Promise<void>; readonly resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

interface UnitDocumentsRead {
  readonly stock: ReadonlyMap<SourceUnit, StockExportReport>;
  readonly priceLists: ReadonlyMap<SourceUnit, PriceListReport>;
}

/**
 * Every unit's stock export and price list, read here (and in a second thread when lent one) and merged as each
 * arrives. Every stock export first, then the price lists (which build the offers with the exports'
 * quantities): a unit's price list is merged once its export is. The stock parser's rows outlive the young
 * generation and die right after their unit is merged: read while little else is live, that garbage is
 * collected cheaply, instead of driving up the heap limit while the offers accumulate (bench/full-sync.ts).
 * Each document's rows are dropped once merged, so at most the documents in flight are held. When two units
 * share a code, the last one's documents count, as when rows were collected per code.
 */
async function mergeUnitDocuments(
  source: PosSource,
  input: ReadCatalogInput,
  started: { readonly units: readonly SourceUnit[]; readonly merger: CatalogMerger; readonly limits: DocumentLimits },
  emit: Emit,
  helpers: ReadCatalogHelpers,
): Promise<UnitDocumentsRead> {
  const { units, merger, limits } = started;
  const { concurrency, stockColumns } = input.options;
  const lastOfCode = new Map(units.map((unit) => [unit.code, unit]));
  function timedMerge(unit: SourceUnit, add: () => void): void {
    const since = performance.now();
    add();
    phaseEnded(emit, 'unit-merge', since, unit.code);
    // The document's rows are garbage now: freed at once rather than when the heap next reaches its limit,
    // which the offers growing meanwhile keep raising (the thread's peak, bench/full-sync.ts).
    helpers.collectGarbage?.();
  }
  const requests: UnitDocumentRequest[] = [
    ...units.map((unit) => ({ kind: 'stock' as const, unit, limits, stockColumns })),
    ...units.map((unit) => ({ kind: 'price-list' as const, unit, limits, stockColumns })),
  ];
  const stockMerged = new Map(units.map((unit) => [unit, signalled()]));
  const stock = new Map<SourceUnit, StockExportReport>();
  const priceLists = new Map<SourceUnit, PriceListReport>();
  const thread = helpers.documentThread?.(limits.articles);
  const lanes: UnitDocumentLanes = {
    local: (request) => readUnitDocument(source, request),
    helper: thread?.read,
    concurrency,
    emit,
  };
  try {
    await readUnitDocuments(requests, lanes, async ({ unit }, document) => {
      const merges = lastOfCode.get(unit.code) === unit;
      if (document.kind === 'stock') {
        stock.set(unit, document.report);
        if (merges) timedMerge(unit, () => merger.addStock(unit.code, document.rows));
        stockMerged.get(unit)?.resolve();
        return;
      }
      priceLists.set(unit, document.report);
      await stockMerged.get(unit)?.promise;
      if (merges) timedMerge(unit, () => merger.addPriceList(unit.code, document.rows));
    });
  } finally {
    // Its heap is not kept through the serialization.
    await thread?.close();
  }
  return { stock, priceLists };
}

/**
 * Reads every source and merges them. A function of its own so that the merger's working state (per-unit
 * state, the excluded articles' index) is garbage while the catalog is serialized; its identity index stays,
 * as the family's.
 */
async function readAndMerge(
  source: PosSource,
  input: ReadCatalogInput,
  progress: Progress,
  emit: Emit,
  helpers: ReadCatalogHelpers,
): Promise<MergedCatalog> {
  const started = await startMerge(source.pos, input, progress, emit);
  helpers.articlesRead?.(started.limits.articles);
  // The article list is garbage now that the merger holds what it needs (~400 MiB at 1,000,000 articles):
  // freed before the documents arrive rather than beside their rows (bench/full-sync.ts).
  helpers.collectGarbage?.();
  const { units, merger } = started;
  const { stock, priceLists } = await mergeUnitDocuments(source, input, started, emit, helpers);
  const priceListReports: Record<string, PriceListReport> = {};
  const stockReports: Record<string, StockExportReport> = {};
  for (const unit of units) {
    priceListReports[unit.code] = priceLists.get(unit) as PriceListReport;
    stockReports[unit.code] = stock.get(unit) as StockExportReport;
  }
  progress.sources = { ...progress.sources, priceLists: priceListReports, stock: stockReports };
  progress.mark = phaseEnded(emit, 'sources', progress.mark);
  const merged = merger.finish();
  progress.mark = phaseEnded(emit, 'merge', progress.mark);
  return merged;
}

/**
 * The sheet's table matched to the merged products, when there is a sheet: its values are put on each product
 * as it is serialized (`enrich`), and its report is complete after that (`report`).
 */
async function planSheet(merged: MergedCatalog, input: ReadCatalogInput, progress: Progress, emit: Emit) {
  if (input.enrichment === undefined) return undefined;
  // Loaded when a sheet is configured: the reader's libraries would slow every worker thread's start.
  const { planCatalogEnrichment } = await import('./enrich-catalog.js');
  // The descriptions as objects for the matching only: they are garbage once the plan is made.
  const { described } = merged.products;
  const products = Array.from({ length: described.length }, (_, position) => described.at(position));
  const planned = planCatalogEnrichment(products, input.enrichment);
  progress.mark = phaseEnded(emit, 'enrichment', progress.mark);
  return planned;
}

/** A full sync's sources, merged and serialized; never throws for a failing source (`ok: false`). */
export async function readCatalog(
  source: PosSource,
  input: ReadCatalogInput,
  emit: Emit = () => {},
  helpers: ReadCatalogHelpers = {},
): Promise<ReadCatalogOutput> {
  const { collectGarbage } = helpers;
  const progress: Progress = { sources: {}, mark: performance.now() };
  try {
    const merged = await readAndMerge(source, input, progress, emit, helpers);
    // The merger's working state (per-unit state) is garbage before the serialization; its identity index
    // is the family's.
    collectGarbage?.();
    const sheet = await planSheet(merged, input, progress, emit);
    const { products } = merged;
    const header = merged.snapshot;
    const { identity } = merged;
    const purchasePrices = merged.internal.products;
    const internal = await serializeItemsMade(purchasePrices.length, (index) => purchasePrices.at(index));
    const productCount = products.length;
    // The chunks are what the store keeps and what the fingerprint covers: one serialization for both.
    // Each product is made (and given the sheet's values) as its chunk is serialized, never all at once.
    const make =
      sheet === undefined
        ? (position: number) => products.at(position)
        : (position: number) => sheet.plan.enrich(products.at(position), position);
    // The fingerprint is fed each chunk's text as it is serialized: no second pass inflating them.
    const fingerprinting = createChunkFingerprint(fingerprintHeaderOf(header));
    const collect = helpers.serializationCollector?.();
    const chunks = await serializeItemsMade(productCount, make, {
      fingerprint: fingerprinting,
      ...(collect === undefined ? {} : { collect }),
    });
    if (sheet !== undefined) progress.sources = { ...progress.sources, enrichment: sheet.report() };
    const fingerprint = fingerprinting.digest();
    const result: ReadCatalogResult = {
      snapshot: header,
      products: chunks,
      productCount,
      internal,
      identity,
      fingerprint,
      sources: progress.sources,
      merge: merged.report,
      sourceRows: merged.sourceRows,
    };
    phaseEnded(emit, 'fingerprint', progress.mark);
    return { ok: true, ...result };
  } catch (error) {
    return { ok: false, error: syncErrorOf(error), sources: progress.sources };
  }
}
