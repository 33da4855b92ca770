import type { Response } from 'express';
import { HTTP_ERRORS, type HttpErrorCode } from './error-codes.js';

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
