import type { Dispatcher } from 'undici';
import type { PosBodyStream } from '../../services/catalog/pos-port.js';
import { PosError, type PosRejectedError, PosUnavailableError } from './pos-errors.js';

/**
 * Reading the POS's HTTP answers (for `pos-transport.ts` and the reads on top of it): bodies read whole under a limit or streamed, error
 * texts, and what an error means for a retry. No requests are made here.
 */

type ResponseData = Dispatcher.ResponseData;

/** How much of an error response is read to find the POS's error texts. */
export const ERROR_BODY_BYTES = 64 * 1024;

/** What an attempt does with a 2xx response: read it within the attempt (so failures are retried) or hand it on. */
export type ResponseHandler<T> = (response: ResponseData, operation: Operation) => Promise<T>;

/** Where a call went, for errors and logs. */
export interface CallPlace {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

/** One call to the POS, as the client makes it. */
export interface Operation {
  readonly method: 'GET' | 'POST';
  /** Path as called (base path included), for requests, logs and errors. */
  readonly path: string;
  readonly body?: string;
  readonly accept: string;
  /**
   * The attempt's timer stops at the response headers: the body is then bounded by its stalls (no byte
   * for `POS_TIMEOUT_MS`, undici's `bodyTimeout`) and its size limit, not by one deadline. Documents: a
   * stock export of a million rows that keeps coming is read to its end however long it takes.
   */
  readonly timedToHeaders?: boolean;
}

/** undici errors that mean a bug on our side (or an unmocked call in tests): retrying cannot help. */
const PROGRAMMING_ERROR_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'UND_MOCK_ERR_MOCK_NOT_MATCHED']);

export function isProgrammingError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && PROGRAMMING_ERROR_CODES.has(code);
}

export function rejectionHint(status: number, path = ''): string {
  if (status === 401 || status === 403) return `HTTP ${status}: the API key was refused (check POS_API_KEY)`;
  if (status === 404 && path.includes('/price-list/export/')) {
    // The interface names the export `eshop-update`, the vendor's public pages `shoptet-update`.
    return `HTTP ${status}: not found (check POS_PRICE_LIST_EXPORT: eshop-update or shoptet-update; then POS_BASE_URL, POS_EXPORT_PATH_PREFIX, POS_UNIT_IDENTIFIER)`;
  }
  if (status === 404) return `HTTP ${status}: not found (check POS_BASE_URL, POS_EXPORT_PATH_PREFIX, POS_UNIT_IDENTIFIER)`;
  if (status >= 300 && status < 400) return `HTTP ${status}: unexpected redirect (check POS_BASE_URL)`;
  return `HTTP ${status}`;
}

export function describeNetworkError(error: unknown, redact: (text: string) => string): string {
  if (!(error instanceof Error)) return 'network error';
  const code = (error as { code?: unknown }).code;
  const label = typeof code === 'string' ? `network error ${code}` : 'network error';
  return redact(`${label}: ${error.message}`);
}

/** Whether redaction would change the text of an error (or of its causes). */
export function mentions(value: unknown, redact: (text: string) => string, depth: number): boolean {
  if (depth > 5) return false;
  const changes = (text: string) => redact(text) !== text;
  if (!(value instanceof Error)) return changes(String(value));
  if (changes(value.message) || changes(value.stack ?? '')) return true;
  return value.cause !== undefined && mentions(value.cause, redact, depth + 1);
}

/**
 * The original error as `cause`, unless its text (or that of its own causes) holds the key: then a
 * redacted copy. pino's error serializer prints cause messages and stacks, so a cause is output too.
 */
export function safeCause(error: unknown, redact: (text: string) => string): unknown {
  if (!mentions(error, redact, 0)) return error;
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(redact(source.message));
  copy.name = source.name;
  copy.stack = redact(source.stack ?? '');
  const code = (source as { code?: unknown }).code;
  return typeof code === 'string' ? Object.assign(copy, { code }) : copy;
}

export function decodeUtf8(bytes: Uint8Array): string {
  // A BOM before JSON is not JSON, but it is harmless to drop.
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

/**
 * Reads a body into memory up to `limit` bytes. Over the limit: `'fail'` destroys the body and throws
 * `onTooLarge()`, `'truncate'` stops and returns what it has.
 */
export async function readCapped(
  body: ResponseData['body'],
  limit: number,
  overflow: 'fail' | 'truncate',
  onTooLarge?: () => Error,
): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > limit) {
      body.destroy();
      if (overflow === 'fail') throw onTooLarge?.() ?? new Error('body too large');
      chunks.push(buffer.subarray(0, limit - size));
      size = limit;
      break;
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return Buffer.concat(chunks, size);
}

/** `application/json` or `…+json`, parameters ignored. */
export function isJsonMediaType(header: string | readonly string[] | undefined): boolean {
  const value = typeof header === 'string' ? header : header?.[0];
  const type = value?.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

export function toBodyStream(
  response: ResponseData,
  operation: Operation,
  redact: (text: string) => string,
  envelopeRejection: (bytes: Uint8Array, where: CallPlace) => PosRejectedError | undefined,
): PosBodyStream {
  const body = response.body;
  const contentType = response.headers['content-type'];
  async function* chunks(): AsyncGenerator<Uint8Array> {
    let received = 0;
    // A JSON answer is held back (up to ERROR_BODY_BYTES) to see whether it is an `isValid: false` envelope.
    let held: Buffer[] | undefined = isJsonMediaType(contentType) ? [] : undefined;
    try {
      for await (const chunk of body) {
        const buffer = chunk as Buffer;
        received += buffer.length;
        if (held === undefined) {
          yield buffer;
          continue;
        }
        held.push(buffer);
        if (received > ERROR_BODY_BYTES) {
          const release = held;
          held = undefined;
          yield* release;
        }
      }
      if (held !== undefined) {
        const bytes = Buffer.concat(held, received);
        const where = { method: operation.method, path: operation.path, status: response.statusCode };
        const rejected = envelopeRejection(bytes, where);
        if (rejected !== undefined) throw rejected;
        if (bytes.length > 0) yield bytes;
      }
    } catch (error) {
      if (error instanceof PosError) throw error;
      throw new PosUnavailableError(`the body broke off after ${received} bytes (${describeNetworkError(error, redact)})`, {
        method: operation.method,
        path: operation.path,
        status: response.statusCode,
        cause: error,
      });
    } finally {
      // Reached also when the consumer leaves the loop early: release the connection.
      if (!body.destroyed) body.destroy();
    }
  }
  const iterator = chunks();
  return {
    ...(typeof contentType === 'string' ? { contentType } : {}),
    [Symbol.asyncIterator]: () => iterator,
    cancel() {
      if (!body.destroyed) body.destroy();
    },
  };
}
