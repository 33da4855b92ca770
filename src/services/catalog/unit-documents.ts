import {
  type DocumentLimits,
  DocumentTooLargeError,
  describeByteLimit,
  describeRowLimit,
} from '../../core/catalog/document-limits.js';
import type { StockColumnOverride } from '../../core/catalog/pos-documents.js';
import {
  createPriceListRowCollector,
  type PriceListRowCollector,
  type PriceListRows,
  type PriceListRowsState,
} from '../../core/catalog/price-list-rows.js';
import type { SourceUnit } from '../../core/catalog/source.js';
import {
  createStockRowCollector,
  type StockRowCollector,
  type StockRows,
  type StockRowsState,
} from '../../core/catalog/stock-rows.js';
import type { CatalogLogger, PriceListReport, StockExportReport, SyncPhase } from './catalog-types.js';
import type { PosDocumentReaders, PosSource } from './pos-port.js';

/**
 * A unit's two documents as a full sync reads them (docs/catalog-rules.md rules 4-6): fetched and parsed into
 * typed-array rows, in the sync's thread or in a helper thread beside it (decision 0020): the rows travel
 * between threads as plain data (`UnitDocumentState`), a few typed arrays per 4,096 rows.
 */

/** Progress of a read: its time (the `onPhase` probe) and the POS client's log lines. */
export type UnitDocumentEvent =
  | { readonly type: 'phase'; readonly phase: SyncPhase; readonly ms: number; readonly unit?: string }
  | { readonly type: 'log'; readonly level: 'debug' | 'warn'; readonly meta: object; readonly message: string };

export interface UnitDocumentRequest {
  readonly kind: 'stock' | 'price-list';
  readonly unit: SourceUnit;
  readonly limits: DocumentLimits;
  readonly stockColumns: StockColumnOverride;
}

export type UnitDocument = (
  | { readonly kind: 'stock'; readonly rows: StockRows; readonly report: StockExportReport }
  | { readonly kind: 'price-list'; readonly rows: PriceListRows; readonly report: PriceListReport }
) & { readonly ms: number };

/** A parsed document as plain data, for posting to another thread, with the time its read took (ms). */
export type UnitDocumentState = (
  | { readonly kind: 'stock'; readonly rows: StockRowsState; readonly report: StockExportReport }
  | { readonly kind: 'price-list'; readonly rows: PriceListRowsState; readonly report: PriceListReport }
) & { readonly ms: number };

/** Reads a unit's document in another thread; rejects with a coded error as the read in this thread would. */
export type UnitDocumentHelper = (
  request: UnitDocumentRequest,
  emit: (event: UnitDocumentEvent) => void,
) => Promise<UnitDocument>;

/** The full sync's second thread for documents (`src/workers/unit-document-helper.ts`). */
export interface UnitDocumentThread {
  readonly read: UnitDocumentHelper;
  /** Ends the thread, cutting any read still in flight (the documents are read, or the run is over); once. */
  close(): Promise<void>;
}

type Emit = (event: UnitDocumentEvent) => void;

/** A log line a worker thread's POS client sent back, written to `logger` at its level (phases are not logs). */
export function logUnitDocumentEvent(logger: CatalogLogger, event: UnitDocumentEvent): void {
  if (event.type !== 'log') return;
  if (event.level === 'warn') logger.warn(event.meta, event.message);
  else logger.debug?.(event.meta, event.message);
}

async function readPriceList(
  { pos, documents }: PosSource,
  unit: SourceUnit,
  limits: DocumentLimits,
): Promise<{ rows: PriceListRowCollector; report: PriceListReport }> {
  // Rows are held in typed arrays until the document ends, not as 100,000 objects per unit (see price-list-rows.ts).
  const rows = createPriceListRowCollector();
  const tooLarge = (what: string) =>
    new DocumentTooLargeError(`the price list of unit ${unit.code} has more than ${what}; reading stopped there`);
  const parser = documents.createPriceListParser((row) => {
    // A POS whose document never ends is stopped by the catalog's own size, long before memory runs out.
    if (rows.length >= limits.maxRows) throw tooLarge(describeRowLimit(limits));
    rows.push(row);
  });
  const body = await pos.fetchPriceListXml(unit);
  let bytes = 0;
  try {
    for await (const chunk of body) {
      bytes += chunk.length;
      if (bytes > limits.maxPriceListBytes) throw tooLarge(describeByteLimit(limits.maxPriceListBytes));
      parser.write(chunk);
    }
  } catch (error) {
    body.cancel();
    throw error;
  }
  const summary = parser.end();
  return {
    rows,
    report: {
      rows: rows.length,
      ...(summary.rootElement === undefined ? {} : { root: summary.rootElement }),
      skippedCount: summary.skippedCount,
      warningCount: summary.warningCount,
      skipped: summary.skipped.slice(0, 20),
      // Fields ignored with the reason, characters XML forbids replaced: the first ones, as examples.
      warnings: summary.warnings.slice(0, 20),
    },
  };
}

/**
 * Parses one stock export into typed-array rows (not 100,000 objects per unit; see stock-rows.ts), at most
 * `limits.maxRows` of them.
 */
export function parseStockExport(
  documents: PosDocumentReaders,
  body: Uint8Array,
  columns: StockColumnOverride,
  limits?: DocumentLimits,
  unit?: string,
): { rows: StockRowCollector; report: StockExportReport } {
  const rows = createStockRowCollector();
  const maxRows = limits?.maxRows ?? Number.POSITIVE_INFINITY;
  const summary = documents.readStockExport(
    body,
    (row) => {
      if (rows.length >= maxRows && limits !== undefined) {
        throw new DocumentTooLargeError(
          `the stock export of unit ${unit ?? '?'} has more than ${describeRowLimit(limits)}; reading stopped there`,
        );
      }
      rows.push(row);
    },
    { columns },
  );
  return {
    rows,
    report: {
      rows: rows.length,
      ...(summary.delimiter === undefined ? {} : { delimiter: summary.delimiter }),
      header: summary.header,
      skippedCount: summary.skippedCount,
      skipped: summary.skipped.slice(0, 20),
    },
  };
}

/** A document as read, its rows in their collector (which can give them as plain data). */
type CollectedDocument = (
  | { readonly kind: 'stock'; readonly rows: StockRowCollector; readonly report: StockExportReport }
  | { readonly kind: 'price-list'; readonly rows: PriceListRowCollector; readonly report: PriceListReport }
) & { readonly ms: number };

/** Fetches and parses one unit's document in the calling thread. */
export async function readUnitDocument(source: PosSource, request: UnitDocumentRequest): Promise<CollectedDocument> {
  const { unit, limits } = request;
  const since = performance.now();
  if (request.kind === 'price-list') {
    const { rows, report } = await readPriceList(source, unit, limits);
    return { kind: 'price-list', rows, report, ms: performance.now() - since };
  }
  const body = await source.pos.fetchStockExport(unit, { maxBytes: limits.maxStockExportBytes });
  const { rows, report } = parseStockExport(source.documents, body, request.stockColumns, limits, unit.code);
  return { kind: 'stock', rows, report, ms: performance.now() - since };
}

/** The same, its rows as plain data for posting to another thread. */
export async function readUnitDocumentState(source: PosSource, request: UnitDocumentRequest): Promise<UnitDocumentState> {
  const document = await readUnitDocument(source, request);
  const { ms } = document;
  return document.kind === 'stock'
    ? { kind: 'stock', rows: document.rows.state(), report: document.report, ms }
    : { kind: 'price-list', rows: document.rows.state(), report: document.report, ms };
}

/** The rows of a document read in another thread, readable here. */
export function unitDocumentOf(state: UnitDocumentState): UnitDocument {
  const { ms } = state;
  return state.kind === 'stock'
    ? { kind: 'stock', rows: createStockRowCollector(state.rows), report: state.report, ms }
    : { kind: 'price-list', rows: createPriceListRowCollector(state.rows), report: state.report, ms };
}

/** Every buffer of a document's rows, to move them to another thread instead of copying them. */
export function bufferListOf(state: UnitDocumentState): ArrayBuffer[] {
  const views: ArrayBufferView[] = [...state.rows.codes.pages];
  for (const block of state.rows.codes.blocks) views.push(block.pages, block.offsets, block.lengths);
  if (state.kind === 'stock') views.push(...state.rows.quantities, ...state.rows.lines);
  else for (const block of state.rows.blocks) views.push(block.positions, block.present, block.numbers, block.textRefs);
  return views.map((view) => view.buffer as ArrayBuffer);
}

/**
 * Documents the helper thread reads at once: all of `concurrency` but the one this thread reads, at most
 * `LOCAL_DOCUMENTS` (its parse is CPU-bound as this thread's is, and each document in flight holds its rows).
 */
export function helperSlotsOf(concurrency: number): number {
  return Math.min(LOCAL_DOCUMENTS, Math.max(1, concurrency - 1));
}

/**
 * Documents this thread reads at once, at most. Its parse is CPU-bound: a second document keeps the POS
 * busy (its request sent, its bytes arriving) while the first is parsed, but more only interleave on the
 * same thread, each holding its rows until it ends. With `POS_CONCURRENCY` 4, four price lists of a
 * 1,000,000-article catalog were parsed side by side (~110 MB of rows each) and merged together at the end.
 */
export const LOCAL_DOCUMENTS = 2;

/** Where a sync's unit documents are read: this thread, and a helper thread when there is one. */
export interface UnitDocumentLanes {
  readonly local: (request: UnitDocumentRequest) => Promise<UnitDocument>;
  readonly helper?: UnitDocumentHelper | undefined;
  /** Documents in flight at most (`POS_CONCURRENCY`). */
  readonly concurrency: number;
  readonly emit: Emit;
}

/**
 * Reads `requests` in their order with at most `concurrency` in flight and hands each document to `use` as soon
 * as it is read (`use` may wait; the document's slot waits with it, so at most `concurrency` documents are held).
 * With a helper thread, up to two slots are its (`helperSlotsOf`) and one is this thread's, which also merges every
 * document (bench/full-sync.ts).
 * Without one, this thread reads at most `LOCAL_DOCUMENTS` of them at once.
 * The first failure rejects; no further document is started after it.
 */
export async function readUnitDocuments(
  requests: readonly UnitDocumentRequest[],
  lanes: UnitDocumentLanes,
  use: (request: UnitDocumentRequest, document: UnitDocument) => void | Promise<void>,
): Promise<void> {
  const concurrency = Math.max(1, lanes.concurrency);
  const { helper, emit } = lanes;
  const helperSlots = helper === undefined ? 0 : helperSlotsOf(concurrency);
  let next = 0;
  let failed = false;
  async function slot(read: (request: UnitDocumentRequest) => Promise<UnitDocument>): Promise<void> {
    while (!failed && next < requests.length) {
      const request = requests[next++] as UnitDocumentRequest;
      try {
        const document = await read(request);
        // Its time is the `stock` or `price-list` phase of its unit (the `onPhase` probe).
        emit({ type: 'phase', phase: request.kind, ms: document.ms, unit: request.unit.code });
        await use(request, document);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  }
  const slots = [
    ...Array.from({ length: helperSlots }, () => slot((request) => (helper as UnitDocumentHelper)(request, emit))),
    ...Array.from(
      { length: helper === undefined ? Math.min(concurrency, LOCAL_DOCUMENTS) : Math.min(concurrency - helperSlots, 1) },
      () => slot(lanes.local),
    ),
  ];
  await Promise.all(slots);
}
