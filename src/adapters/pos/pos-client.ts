import { Agent, type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import type { Config } from '../../config/load-config.js';
import { describeByteLimit } from '../../core/catalog/document-limits.js';
import type { SourceArticle, SourceUnit } from '../../core/catalog/source.js';
import { createRedactor } from '../../core/redact-secrets.js';
import { readAllPages } from './paging.js';
import { DocumentTooLargeError } from './parse-errors.js';
import { PosError, PosRejectedError, PosResponseInvalidError, PosUnavailableError } from './pos-errors.js';
import {
  decodeUtf8,
  describeNetworkError,
  ERROR_BODY_BYTES,
  isJsonMediaType,
  isProgrammingError,
  mentions,
  type Operation,
  type PosBodyStream,
  readCapped,
  rejectionHint,
  toBodyStream,
} from './pos-responses.js';
import {
  formatIssues,
  PosClientDataSchema,
  type PosClientRecord,
  PosEnvelopeSchema,
  PosListDataSchema,
  type PosMovement,
  PosMovementSchema,
  type PosRejectedItem,
  parseLooseList,
  posItemId,
  SourceArticleSchema,
  SourceUnitSchema,
} from './pos-schema.js';
import { type AttemptContext, parseRetryAfterMs, type RetryPolicy, withRetries } from './retry.js';

export type { PosBodyStream } from './pos-responses.js';

/**
 * HTTP client of the POS interface (docs/pos-interface.md, part 4; behaviour in ./README.md).
 * One pooled keep-alive undici Agent (or an injected dispatcher), `x-api-key` on every call, retries
 * with backoff on transient failures, paging that reads every page, and the three error families of
 * pos-errors.ts. The price-list XML and stock exports come back raw for the streaming parsers.
 */

export type PosClientConfig = Pick<
  Config['pos'],
  'exportPathPrefix' | 'unitIdentifier' | 'stockExportType' | 'pageSize' | 'timeoutMs' | 'maxRetries' | 'concurrency' | 'maxPages'
> & {
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

/** The two log levels the client uses; a pino logger fits. */
export interface PosClientLogger {
  debug(meta: object, message: string): void;
  warn(meta: object, message: string): void;
}

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

export interface PosListResult<T> {
  readonly items: T[];
  /** Items that failed their schema or repeated an earlier item's id; never fatal. */
  readonly rejected: PosRejectedItem[];
  /** Requests made to read the list. */
  readonly pages: number;
  /** `total` as the POS reported it, for lists that have one. */
  readonly total?: number;
}

export interface PosMovementFilter {
  readonly dateFrom?: string;
  readonly dateTo?: string;
  readonly unit?: string;
  readonly article?: string;
}

/** Lookup fields of client get (interface 4.3). */
export interface PosClientQuery {
  readonly _id?: string;
  readonly externalId?: string;
  readonly email?: string;
  readonly phone?: string;
  readonly clientCardIdentifier?: string;
  readonly company?: { readonly TIN?: string; readonly VATID?: string };
}

/** Per-call options of the POS client's reads. */
export interface RequestOptions {
  readonly signal?: AbortSignal;
}

/** Options of reading a whole document. */
export interface DocumentRequestOptions extends RequestOptions {
  /** Largest body accepted, below the client's own limit (`maxStockExportBytes`): more fails the read. */
  readonly maxBytes?: number;
}

export interface PosClient {
  /** Every unit (POST /ext/unit/list, all pages). */
  listUnits(): Promise<PosListResult<SourceUnit>>;
  /** Every article (POST /ext/assortment/article/list, all pages), gross prices by default. */
  listArticles(options?: { readonly priceOutput?: string }): Promise<PosListResult<SourceArticle>>;
  /** Every stock movement matching the filter (POST /ext/stockholding/movement/list, all pages). */
  listMovements(options?: { readonly filter?: PosMovementFilter }): Promise<PosListResult<PosMovement>>;
  /** One address-book client, or `undefined` when the POS returned no data (POST /ext/address-book/client/get). */
  getClient(query: PosClientQuery): Promise<PosClientRecord | undefined>;
  /** The unit's e-shop price-list XML as a stream (GET {prefix}/unit/{identifier}/price-list/export/eshop-update). */
  fetchPriceListXml(unit: SourceUnit): Promise<PosBodyStream>;
  /**
   * The unit's stock export, whole (GET {prefix}/warehouse/stock/export/{type}/{identifier}). When
   * `options.signal` aborts, the request is cut and no retry follows: it rejects with the signal's reason.
   */
  fetchStockExport(unit: SourceUnit, options?: DocumentRequestOptions): Promise<Uint8Array>;
  /** The stock export of all units, whole (GET {prefix}/warehouse/stock/export/{type}). */
  fetchStockExportAll(): Promise<Uint8Array>;
  /** Closes the Agent the client created; an injected dispatcher is left to its owner. */
  close(): Promise<void>;
}

const DEFAULT_MAX_STOCK_EXPORT_BYTES = 256 * 1024 * 1024;
/** One page of a list is ~1 MB at 500 items; parsed, 16 MiB of JSON already costs ~100 MB of objects. */
const DEFAULT_MAX_JSON_BYTES = 16 * 1024 * 1024;

const PATHS = {
  units: '/ext/unit/list',
  articles: '/ext/assortment/article/list',
  movements: '/ext/stockholding/movement/list',
  client: '/ext/address-book/client/get',
} as const;

type ResponseData = Dispatcher.ResponseData;

/** What an attempt does with a 2xx response: read it within the attempt (so failures are retried) or hand it on. */
type ResponseHandler<T> = (response: ResponseData, operation: Operation) => Promise<T>;

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
  const base = new URL(config.baseUrl);
  // Query, fragment and credentials of the base URL are ignored: the key travels only in `x-api-key`.
  const origin = base.origin;
  const basePath = base.pathname.replace(/\/+$/, '');
  const ownedAgent =
    options.dispatcher === undefined
      ? new Agent({ keepAliveTimeout: 10_000, connections: Math.max(2, config.concurrency * 2) })
      : undefined;
  const dispatcher: Dispatcher = options.dispatcher ?? (ownedAgent as Agent);
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const effects = {
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    now,
  };
  const policy: RetryPolicy = {
    maxRetries: config.maxRetries,
    baseDelayMs: options.retry?.baseDelayMs ?? 500,
    maxDelayMs: options.retry?.maxDelayMs ?? 30_000,
    maxRetryAfterMs: options.retry?.maxRetryAfterMs ?? 60_000,
    timeoutMs: config.timeoutMs,
    budgetMs: config.callBudgetMs ?? 4 * config.timeoutMs,
  };
  const maxJsonBytes = config.maxPageBytes ?? DEFAULT_MAX_JSON_BYTES;
  const maxStockExportBytes = config.maxStockExportBytes ?? config.documents?.maxDocumentBytes ?? DEFAULT_MAX_STOCK_EXPORT_BYTES;

  /**
   * Foreign text (POS messages, network errors) could in theory echo the key; it never reaches a message.
   * Whole values only, so a short or common-word key does not mangle other words (core/redact-secrets.ts).
   */
  const redact = createRedactor([config.apiKey]);

  /**
   * The original error as `cause`, unless its text (or that of its own causes) holds the key: then a
   * redacted copy. pino's error serializer prints cause messages and stacks, so a cause is output too.
   */
  function safeCause(error: unknown): unknown {
    if (!mentions(error, redact, 0)) return error;
    const source = error instanceof Error ? error : new Error(String(error));
    const copy = new Error(redact(source.message));
    copy.name = source.name;
    copy.stack = redact(source.stack ?? '');
    const code = (source as { code?: unknown }).code;
    return typeof code === 'string' ? Object.assign(copy, { code }) : copy;
  }

  function jsonOperation(path: string, body: unknown): Operation {
    return { method: 'POST', path: basePath + path, body: JSON.stringify(body), accept: 'application/json' };
  }

  function exportOperation(path: string, accept: string): Operation {
    return { method: 'GET', path: basePath + config.exportPathPrefix + path, accept };
  }

  async function call<T>(operation: Operation, handle: ResponseHandler<T>, signal?: AbortSignal): Promise<T> {
    return withRetries(
      (context) => {
        // Aborted by the caller (a sync's deadline, a shutdown): no further attempt.
        signal?.throwIfAborted();
        return attempt(operation, context, handle, signal);
      },
      policy,
      effects,
      ({ error, attempt, delayMs }) => {
        logger.warn(
          { method: operation.method, path: operation.path, status: error.status, attempt, delayMs, reason: error.message },
          'POS request failed, retrying',
        );
      },
    );
  }

  async function attempt<T>(
    operation: Operation,
    context: AttemptContext,
    handle: ResponseHandler<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const abortByCaller = () => controller.abort();
    signal?.addEventListener('abort', abortByCaller, { once: true });
    // Our own timer (not AbortSignal.timeout) so it can be cleared once a stream is handed on, and so
    // fake timers drive it in tests. It covers connect, headers and, for buffered calls, the whole body.
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, context.timeoutMs);
    const where = { method: operation.method, path: operation.path, attempts: context.attempt };
    try {
      let response: ResponseData;
      try {
        response = await request(origin + operation.path, {
          dispatcher,
          method: operation.method,
          headers: headersFor(operation),
          ...(operation.body === undefined ? {} : { body: operation.body }),
          signal: controller.signal,
          // undici's own timers as a second line: a server that stops sending after the headers is caught too.
          headersTimeout: context.timeoutMs,
          bodyTimeout: config.timeoutMs,
        });
      } catch (error) {
        if (isProgrammingError(error)) throw error;
        signal?.throwIfAborted();
        throw unavailable(error, timedOut, context, where);
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw await statusError(response, where);
      }
      try {
        return await handle(response, operation);
      } catch (error) {
        // Whatever went wrong, the connection must not stay tied to a half-read body.
        if (!response.body.destroyed) response.body.destroy();
        signal?.throwIfAborted();
        // A body over its limit is an answer, not a broken transfer: no retry.
        if (error instanceof PosError || error instanceof DocumentTooLargeError) throw error;
        // The body broke off or timed out while it was read: transient, like a failed connection.
        throw unavailable(error, timedOut, context, { ...where, status: response.statusCode });
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abortByCaller);
    }
  }

  function headersFor(operation: Operation): Record<string, string> {
    const headers: Record<string, string> = { 'x-api-key': config.apiKey, accept: operation.accept };
    if (operation.body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  function unavailable(
    error: unknown,
    timedOut: boolean,
    context: AttemptContext,
    where: { method: string; path: string; attempts: number; status?: number },
  ): PosUnavailableError {
    const reason = timedOut ? `no complete answer within ${context.timeoutMs} ms` : describeNetworkError(error, redact);
    return new PosUnavailableError(reason, { ...where, cause: safeCause(error) });
  }

  async function statusError(
    response: ResponseData,
    where: { method: string; path: string; attempts: number },
  ): Promise<PosError> {
    const status = response.statusCode;
    const posErrors = await readErrorTexts(response);
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfterMs(response.headers['retry-after'], now());
      return new PosUnavailableError(`HTTP ${status}`, {
        ...where,
        status,
        ...(posErrors.length === 0 ? {} : { details: { posErrors } }),
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    return new PosRejectedError(rejectionHint(status), { ...where, status, posErrors });
  }

  /** Best effort: the POS's `errors` texts from an error response, if it is an envelope. */
  async function readErrorTexts(response: ResponseData): Promise<string[]> {
    try {
      const bytes = await readCapped(response.body, ERROR_BODY_BYTES, 'truncate');
      const parsed = PosEnvelopeSchema.safeParse(JSON.parse(decodeUtf8(bytes)));
      return parsed.success ? (parsed.data.errors ?? []).map(redact) : [];
    } catch {
      return [];
    } finally {
      if (!response.body.destroyed) response.body.destroy();
    }
  }

  /** Reads, parses and checks a JSON envelope, then validates its `data`. */
  function readEnvelope<Schema extends z.ZodType>(dataSchema: Schema): ResponseHandler<z.output<Schema>> {
    return async (response, operation) => {
      const where = { method: operation.method, path: operation.path, status: response.statusCode };
      const bytes = await readCapped(response.body, maxJsonBytes, 'fail', () =>
        invalidError(`response larger than ${maxJsonBytes} bytes (POS_MAX_PAGE_MB; a smaller POS_PAGE_SIZE also helps)`, where),
      );
      let json: unknown;
      try {
        json = JSON.parse(decodeUtf8(bytes));
      } catch (error) {
        // The parser's message quotes the body; it stays in `cause`, out of the message.
        throw invalidError(`malformed JSON (${bytes.length} bytes)`, { ...where, cause: safeCause(error) });
      }
      const envelope = PosEnvelopeSchema.safeParse(json);
      if (!envelope.success) {
        throw invalidError('the envelope does not match the interface', { ...where, issues: formatIssues(envelope.error) });
      }
      const { isValid, errors = [], warnings = [], messages = [] } = envelope.data;
      if (isValid === false) {
        throw new PosRejectedError('isValid is false', { ...where, posErrors: errors.map(redact) });
      }
      if (warnings.length > 0) logger.warn({ ...where, warnings: warnings.map(redact) }, 'POS returned warnings');
      if (messages.length > 0) logger.debug({ ...where, messages: messages.map(redact) }, 'POS returned messages');
      const data = dataSchema.safeParse(envelope.data.data);
      if (!data.success) {
        const issues = data.error.issues.map((issue) => {
          const path = ['data', ...issue.path.map(String)].join('.');
          return `${path}: ${issue.message}`;
        });
        throw invalidError('data does not match the interface', { ...where, issues });
      }
      return data.data;
    };
  }

  function invalidError(
    reason: string,
    context: { method: string; path: string; status?: number; cause?: unknown; issues?: readonly string[] },
  ): PosResponseInvalidError {
    return new PosResponseInvalidError(reason, context);
  }

  async function readList<Schema extends z.ZodType>(
    path: string,
    makeBody: (skip: number, limit: number) => Record<string, unknown>,
    itemSchema: Schema,
    idOfItem: (item: z.output<Schema>) => string,
  ): Promise<PosListResult<z.output<Schema>>> {
    type Item = z.output<Schema>;
    const method = 'POST';
    const fullPath = basePath + path;
    const paged = await readAllPages({
      pageSize: config.pageSize,
      concurrency: config.concurrency,
      maxPages: config.maxPages,
      method,
      path: fullPath,
      idOf: posItemId,
      fetchPage: async (skip, limit) => {
        const data = await call(jsonOperation(path, makeBody(skip, limit)), readEnvelope(PosListDataSchema));
        const items = Array.isArray(data.items) ? data.items : [data.items];
        logger.debug({ method, path: fullPath, skip, limit, received: items.length, total: data.total }, 'POS page read');
        return data.total === undefined ? { items } : { items, total: data.total };
      },
      onPage: (raw, offset) => {
        // Item by item, so that every kept item keeps its position in the list for the duplicate report.
        const kept: { item: Item; index: number }[] = [];
        const rejected: PosRejectedItem[] = [];
        for (const [position, entry] of raw.entries()) {
          const index = offset + position;
          const parsed = parseLooseList([entry], itemSchema, { offset: index });
          const item = parsed.items[0];
          if (parsed.items.length === 1 && item !== undefined) kept.push({ item, index });
          rejected.push(...parsed.rejected);
        }
        return { kept, rejected };
      },
    });
    const items: Item[] = [];
    const rejected: PosRejectedItem[] = [];
    const seen = new Set<string>();
    for (const page of paged.results) {
      rejected.push(...page.rejected);
      for (const { item, index } of page.kept) {
        const id = idOfItem(item);
        if (seen.has(id)) {
          // A list that shifted while it was read (or a POS bug): one item per id, the rest reported.
          rejected.push({ id, index, issues: ['duplicate id: an earlier item of the list has the same id'] });
          continue;
        }
        seen.add(id);
        items.push(item);
      }
    }
    if (rejected.length > 0) {
      logger.warn({ method, path: fullPath, rejected: rejected.length, accepted: items.length }, 'POS list items rejected');
    }
    return {
      items,
      rejected,
      pages: paged.pages,
      ...(paged.total === undefined ? {} : { total: paged.total }),
    };
  }

  function unitIdentifier(unit: SourceUnit, path: string): string {
    const identifier = unit[config.unitIdentifier];
    if (identifier.trim() === '') {
      throw new PosResponseInvalidError(`unit has an empty ${config.unitIdentifier}`, { method: 'GET', path });
    }
    return encodeURIComponent(identifier);
  }

  async function fetchStock(path: string, options: DocumentRequestOptions = {}): Promise<Uint8Array> {
    const operation = exportOperation(path, 'text/plain, text/csv;q=0.9, */*;q=0.1');
    const limit = Math.min(maxStockExportBytes, options.maxBytes ?? Number.POSITIVE_INFINITY);
    return call(
      operation,
      async (response) => {
        const where = { method: operation.method, path: operation.path, status: response.statusCode };
        const tooLarge = () =>
          new DocumentTooLargeError(`the stock export (${operation.path}) is larger than ${describeByteLimit(limit)}`);
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > limit) {
          response.body.destroy();
          throw tooLarge();
        }
        const bytes = await readCapped(response.body, limit, 'fail', tooLarge);
        const rejected = isJsonMediaType(response.headers['content-type']) ? envelopeRejection(bytes, where) : undefined;
        if (rejected !== undefined) throw rejected;
        return bytes;
      },
      options.signal,
    );
  }

  /**
   * An export answered with a JSON envelope saying `isValid: false` (where XML or text was expected) is
   * the POS refusing the call: a `PosRejectedError` with its texts, not a document for the parsers.
   */
  function envelopeRejection(
    bytes: Uint8Array,
    where: { method: string; path: string; status: number },
  ): PosRejectedError | undefined {
    let json: unknown;
    try {
      json = JSON.parse(decodeUtf8(bytes));
    } catch {
      return undefined;
    }
    const envelope = PosEnvelopeSchema.safeParse(json);
    if (!envelope.success || envelope.data.isValid !== false) return undefined;
    return new PosRejectedError('isValid is false', { ...where, posErrors: (envelope.data.errors ?? []).map(redact) });
  }

  return {
    async listUnits() {
      // `select` is omitted: its allowed values are not documented, and without it the POS sends whole units.
      return readList(
        PATHS.units,
        (skip, limit) => ({ limit, skip }),
        SourceUnitSchema,
        (unit) => unit.localId,
      );
    },

    async listArticles({ priceOutput = 'with_vat' } = {}) {
      return readList(
        PATHS.articles,
        (skip, limit) => ({ limit, skip, options: { priceOutput } }),
        SourceArticleSchema,
        (article) => article.localId,
      );
    },

    async listMovements({ filter } = {}) {
      return readList(
        PATHS.movements,
        (skip, limit) => (filter === undefined ? { limit, skip } : { filter, limit, skip }),
        PosMovementSchema,
        (movement) => movement._id,
      );
    },

    async getClient(query) {
      return call(jsonOperation(PATHS.client, query), readEnvelope(PosClientDataSchema));
    },

    async fetchPriceListXml(unit) {
      const template = '/unit/{identifier}/price-list/export/eshop-update';
      const identifier = unitIdentifier(unit, config.exportPathPrefix + template);
      const operation = exportOperation(
        `/unit/${identifier}/price-list/export/eshop-update`,
        'application/xml, text/xml;q=0.9, */*;q=0.1',
      );
      // Retries cover everything up to the response headers; once the body flows it belongs to the parser.
      return call(operation, async (response) => toBodyStream(response, operation, redact, envelopeRejection));
    },

    async fetchStockExport(unit, options = {}) {
      const template = '/warehouse/stock/export/{type}/{identifier}';
      const identifier = unitIdentifier(unit, config.exportPathPrefix + template);
      return fetchStock(`/warehouse/stock/export/${encodeURIComponent(config.stockExportType)}/${identifier}`, options);
    },

    async fetchStockExportAll() {
      return fetchStock(`/warehouse/stock/export/${encodeURIComponent(config.stockExportType)}`);
    },

    async close() {
      await ownedAgent?.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Helpers

const silentLogger: PosClientLogger = {
  debug() {},
  warn() {},
};

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
