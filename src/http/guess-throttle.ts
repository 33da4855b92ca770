import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyaddr from 'proxy-addr';
import { createLoginThrottle } from './admin/login-throttle.js';
import { rememberClient } from './client-address.js';
import { HTTP_ERRORS } from './error-codes.js';

/** Wrong credentials one address may send within the window before it is refused everything. */
export const GUESS_LIMIT = 30;
const GUESS_WINDOW_MS = 15 * 60_000;

/**
 * Guessing a feed token, a webhook key or the metrics token: every `401` counts against the client's
 * address, and past `GUESS_LIMIT` in 15 minutes that address gets `429` for every request (a right
 * credential too, else the answer would still tell a right guess from a wrong one) until the window
 * ends. Checked before any route, the feeds' fast path included. The client is the socket's address,
 * or the one a proxy named by `TRUST_PROXY` forwarded (docs/security.md): without that setting behind a
 * proxy, every client is the proxy. The admin area keeps its own, stricter count.
 */
export interface GuessThrottle {
  /** Answers `429` and returns true when the request's address is blocked; else counts its answer if it is a `401`. */
  refuse(req: IncomingMessage, res: ServerResponse): boolean;
}

export function createGuessThrottle(options: {
  readonly trust: (address: string, hop: number) => boolean;
  readonly now?: () => Date;
}): GuessThrottle {
  const throttle = createLoginThrottle({
    now: options.now ?? (() => new Date()),
    maxFailures: GUESS_LIMIT,
    windowMs: GUESS_WINDOW_MS,
  });
  return {
    refuse(req, res) {
      const client = proxyaddr(req, options.trust);
      rememberClient(req, client);
      const blockedMs = throttle.blockedFor(client);
      if (blockedMs > 0) {
        sendTooMany(res, blockedMs);
        return true;
      }
      res.once('finish', () => {
        if (res.statusCode === 401) throttle.fail(client);
      });
      return false;
    },
  };
}

function sendTooMany(res: ServerResponse, blockedMs: number): void {
  const message = 'Too many wrong tokens or keys from this address; try again later';
  const body = JSON.stringify({ error: { code: 'TOO_MANY_ATTEMPTS', message } });
  res.writeHead(HTTP_ERRORS.TOO_MANY_ATTEMPTS.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'retry-after': String(Math.ceil(blockedMs / 1000)),
  });
  res.end(body);
}
