/**
 * Every `code` of the bridge's JSON error answers `{ "error": { "code", "message" } }` (docs/http-interface.md),
 * with its HTTP status and a default message; docs/report-codes.md#http-error-codes says what each means and
 * what to do. `sendError` takes only these codes, so a new answer needs an entry here (and one in the docs:
 * a unit test checks).
 */
export const HTTP_ERRORS = {
  BAD_QUERY: { status: 400, message: 'A query parameter is not valid' },
  BAD_REQUEST: { status: 400, message: 'Bad request' },
  BAD_BODY: { status: 400, message: 'The body could not be read' },
  INVALID_JSON: { status: 400, message: 'The webhook body is not valid JSON' },
  INVALID_EVENT: { status: 400, message: 'The webhook body is not a valid POS event' },
  UNAUTHORIZED: { status: 401, message: 'A valid token is required' },
  CROSS_ORIGIN: { status: 403, message: 'A state change with the admin session must come from this site' },
  CSRF_FAILED: { status: 403, message: 'A state change with the admin session needs its CSRF token (form field csrf)' },
  NOT_FOUND: { status: 404, message: 'No such route' },
  ADMIN_DISABLED: { status: 404, message: 'The admin endpoints are disabled; set ADMIN_TOKEN to enable them' },
  UNKNOWN_UNIT: { status: 404, message: 'No such unit' },
  UNKNOWN_FEED: { status: 404, message: 'No such feed; see /feeds for the list' },
  FEED_NOT_IN_VIEW: { status: 404, message: 'The feed is not served for this view' },
  UNKNOWN_SCHEMA: { status: 404, message: 'No such schema' },
  UNKNOWN_PRODUCT: { status: 404, message: 'No product with that id' },
  UNKNOWN_RUN: { status: 404, message: 'No stored sync run with that id; GET /api/syncs lists the runs kept' },
  PUSH_UNKNOWN_CHANNEL: { status: 404, message: 'No such push channel is configured' },
  NOT_ACCEPTABLE: { status: 406, message: 'No acceptable content coding (br, gzip or identity)' },
  PUSH_PAUSED_BY_CONFIG: { status: 409, message: 'PUSH_PAUSED names the channel; the configuration wins' },
  PUSH_RECONCILE_REFUSED: { status: 409, message: 'The reconciliation cannot run now' },
  CURSOR_EXPIRED: { status: 410, message: 'The cursor is unknown or too old; read the full feed, then continue from "next"' },
  TOO_LARGE: { status: 413, message: 'The body is too large' },
  TOO_MANY_RENDERS: {
    status: 429,
    message: 'This client waits for the first render of other feeds already; ask again when those are answered',
  },
  TOO_MANY_ATTEMPTS: { status: 429, message: 'Too many wrong admin tokens from this address; try again later' },
  INTERNAL: { status: 500, message: 'Internal error' },
  SYNC_CRASHED: { status: 500, message: 'The sync ended with an error of the bridge itself' },
  CATALOG_NOT_READY: { status: 503, message: 'No catalog yet; try again shortly' },
  SEARCH_BUSY: { status: 503, message: 'Too many product searches at once; try again in a moment' },
  FEED_RENDERING: { status: 503, message: 'This feed is being rendered; try again shortly' },
  STORE_UNAVAILABLE: { status: 503, message: 'The store does not answer' },
  NOT_STORED: { status: 503, message: 'The event could not be stored; deliver it again' },
  PUSH_STOPPING: { status: 503, message: 'The push has stopped: the bridge is shutting down' },
  PUSH_OUTBOX_UNAVAILABLE: { status: 503, message: 'The push outbox did not answer; try again' },
} as const satisfies Readonly<Record<string, { readonly status: number; readonly message: string }>>;

export type HttpErrorCode = keyof typeof HTTP_ERRORS;

/** The status a code is answered with. */
export function statusOf(code: HttpErrorCode): number {
  return HTTP_ERRORS[code].status;
}

/** The JSON text of an error answer, for the handlers that write to the raw response (feeds). */
export function errorBody(code: HttpErrorCode, message: string = HTTP_ERRORS[code].message): string {
  return JSON.stringify({ error: { code, message } });
}
