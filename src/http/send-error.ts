import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import { errorBody, HTTP_ERRORS, type HttpErrorCode, statusOf } from './error-codes.js';

export interface SendErrorOptions {
  /** Fields added to `error` (e.g. the cursor to continue from). */
  readonly extra?: Readonly<Record<string, unknown>>;
  /** Another status than the code's own: an error caught by express carries its own (a body parser's 413, say). */
  readonly status?: number;
}

/** The bridge's API error body (docs/http-interface.md): `{ "error": { "code", "message" } }`, with the code's status. */
export function sendError(
  res: Response,
  code: HttpErrorCode,
  message: string = HTTP_ERRORS[code].message,
  options: SendErrorOptions = {},
): void {
  res
    .status(options.status ?? HTTP_ERRORS[code].status)
    .set('cache-control', 'no-store')
    .json({ error: { code, message, ...options.extra } });
}

/**
 * The same error body on a bare response, for what answers before express dresses the request (the guess
 * throttle, the feeds' fast path): not to be kept, not to be sniffed, with `Retry-After` when given.
 */
export function sendRawError(
  req: IncomingMessage,
  res: ServerResponse,
  code: HttpErrorCode,
  options: { readonly message?: string; readonly retryAfterSeconds?: number } = {},
): void {
  const body = errorBody(code, options.message);
  res.writeHead(statusOf(code), {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(options.retryAfterSeconds === undefined ? {} : { 'retry-after': String(options.retryAfterSeconds) }),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
