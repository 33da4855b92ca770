import { Agent, type Dispatcher } from 'undici';
import type { Config } from '../../config/load-config.js';
import { createRedactor } from '../../core/redact-secrets.js';
import type { PosClient } from '../../services/catalog/pos-port.js';
import { PosClientDataSchema } from './pos-address-book-schema.js';
import { createEnvelopeReading } from './pos-envelope-reading.js';
import { createExportReads } from './pos-export-reads.js';
import { createListReads } from './pos-list-reads.js';
import { createPosTransport, type PosClientLogger } from './pos-transport.js';
import type { RetryPolicy } from './retry.js';

export type { PosClientLogger } from './pos-transport.js';

/**
 * HTTP client of the POS interface (docs/pos-interface.md, part 4; behaviour in ./README.md), the
 * implementation of the services' `PosClient` port. One pooled keep-alive undici Agent (or an injected
 * dispatcher) under `pos-transport.ts` (key, timeouts, retries, error families); the operations per
 * family on top: the paged lists (`pos-list-reads.ts`), client get (here), and the document exports
 * (`pos-export-reads.ts`), whose price-list XML and stock exports come back raw for the streaming parsers.
 */

export type PosClientConfig = Pick<
  Config['pos'],
  'exportPathPrefix' | 'unitIdentifier' | 'stockExportType' | 'pageSize' | 'timeoutMs' | 'maxRetries' | 'concurrency' | 'maxPages'
> &
  Partial<Pick<Config['pos'], 'priceListExport'>> & {
    readonly baseUrl: string;
    readonly apiKey: string;
    /** Bound on one call, attempts and backoff waits together; default 4 × `timeoutMs`. */
    readonly callBudgetMs?: number;
    /** Largest stock export accepted; default `documents.maxDocumentBytes` (`POS_MAX_DOCUMENT_MB`), else 256 MiB. */
    readonly maxStockExportBytes?: number;
    /** The documents' limits of the configuration; their cap bounds a stock export. */
    readonly documents?: { readonly maxDocumentBytes: number };
    /** Largest JSON response accepted (`POS_MAX_PAGE_MB`); default 16 MiB. */
    readonly maxPageBytes?: number;
  };

export interface CreatePosClientOptions {
  readonly config: PosClientConfig;
  /** undici dispatcher (MockAgent in tests); without one the client creates and owns a pooled Agent. */
  readonly dispatcher?: Dispatcher;
  readonly logger?: PosClientLogger;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Source of jitter, [0, 1). */
  readonly random?: () => number;
  /** Wall clock in ms (call budget, `Retry-After` dates). */
  readonly now?: () => number;
  /** Backoff tuning; the defaults suit a POS over the internet. */
  readonly retry?: Partial<Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterMs'>>;
}

const DEFAULT_MAX_STOCK_EXPORT_BYTES = 256 * 1024 * 1024;
/** One page of a list is ~1 MB at 500 items; parsed, 16 MiB of JSON already costs ~100 MB of objects. */
const DEFAULT_MAX_JSON_BYTES = 16 * 1024 * 1024;

const CLIENT_GET_PATH = '/ext/address-book/client/get';

/**
 * Creates the POS client.
 *
 * @example
 * const pos = createPosClient({ config: { ...config.pos, baseUrl, apiKey }, logger });
 * const { items: units } = await pos.listUnits();
 * for await (const chunk of await pos.fetchPriceListXml(units[0])) parser.write(chunk);
 * await pos.close();
 */
export function createPosClient(options: CreatePosClientOptions): PosClient {
  const { config } = options;
  const ownedAgent =
    options.dispatcher === undefined
      ? new Agent({ keepAliveTimeout: 10_000, connections: Math.max(2, config.concurrency * 2) })
      : undefined;
  const logger = options.logger ?? silentLogger;
  /**
   * Foreign text (POS messages, network errors) could in theory echo the key; it never reaches a message.
   * Whole values only, so a short or common-word key does not mangle other words (core/redact-secrets.ts).
   */
  const redact = createRedactor([config.apiKey]);
  const transport = createPosTransport({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    exportPathPrefix: config.exportPathPrefix,
    timeoutMs: config.timeoutMs,
    dispatcher: options.dispatcher ?? (ownedAgent as Agent),
    logger,
    redact,
    effects: { sleep: options.sleep ?? defaultSleep, random: options.random ?? Math.random, now: options.now ?? Date.now },
    policy: {
      maxRetries: config.maxRetries,
      baseDelayMs: options.retry?.baseDelayMs ?? 500,
      maxDelayMs: options.retry?.maxDelayMs ?? 30_000,
      maxRetryAfterMs: options.retry?.maxRetryAfterMs ?? 60_000,
      timeoutMs: config.timeoutMs,
      budgetMs: config.callBudgetMs ?? 4 * config.timeoutMs,
    },
  });
  const envelopes = createEnvelopeReading({ maxJsonBytes: config.maxPageBytes ?? DEFAULT_MAX_JSON_BYTES, redact, logger });
  const lists = createListReads(transport, envelopes, config, logger);
  const exports = createExportReads(
    transport,
    envelopes,
    {
      exportPathPrefix: config.exportPathPrefix,
      priceListExport: config.priceListExport ?? 'eshop-update',
      unitIdentifier: config.unitIdentifier,
      stockExportType: config.stockExportType,
      maxStockExportBytes: config.maxStockExportBytes ?? config.documents?.maxDocumentBytes ?? DEFAULT_MAX_STOCK_EXPORT_BYTES,
    },
    redact,
  );

  return {
    listUnits: () => lists.listUnits(),
    listArticles: (listOptions) => lists.listArticles(listOptions),
    listMovements: (listOptions) => lists.listMovements(listOptions),
    async getClient(query) {
      return transport.call(transport.jsonOperation(CLIENT_GET_PATH, query), envelopes.readEnvelope(PosClientDataSchema));
    },
    fetchPriceListXml: (unit) => exports.fetchPriceListXml(unit),
    fetchStockExport: (unit, readOptions) => exports.fetchStockExport(unit, readOptions),
    fetchStockExportAll: () => exports.fetchStockExportAll(),
    async close() {
      await ownedAgent?.close();
    },
  };
}

const silentLogger: PosClientLogger = {
  debug() {},
  warn() {},
};

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
