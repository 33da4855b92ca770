import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import proxyaddr from 'proxy-addr';
import { createLoginThrottle } from './admin/login-throttle.js';
import { rememberClient } from './client-address.js';
import { sendRawError } from './send-error.js';

/** Wrong credentials one address may send within the window before it is refused everything. */
export const GUESS_LIMIT = 30;
const GUESS_WINDOW_MS = 15 * 60_000;

/**
 * Guessing a feed token, a webhook key or the metrics token: every `401` counts against the client's
 * address (an IPv6 client by its /64, which one subscriber holds whole), and past `GUESS_LIMIT` in 15
 * minutes that address gets `429` for every request (a right credential too, else the answer would still
 * tell a right guess from a wrong one) until the window ends; `/healthz` and a `/readyz` without a token
 * still answer, for the load balancer in front. Checked before any route, the feeds' fast path included;
 * counted when the `401` is written, so requests sent at once cannot slip past the count. The admin area
 * keeps its own, stricter count (its answers are not counted here). The client is the socket's address,
 * or the one a proxy named by `TRUST_PROXY` forwarded (docs/security.md): without that setting behind a
 * proxy, every client is the proxy.
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
      const key = throttleKeyOf(client);
      const blockedMs = throttle.blockedFor(key);
      if (blockedMs > 0 && !isProbe(req)) {
        sendRawError(req, res, 'TOO_MANY_ATTEMPTS', {
          message: 'Too many wrong tokens or keys from this address; try again later',
          retryAfterSeconds: Math.ceil(blockedMs / 1000),
        });
        return true;
      }
      if (!(req.url ?? '').startsWith('/admin')) countUnauthorized(res, () => throttle.fail(key));
      return false;
    },
  };
}

/** `/healthz`, and `/readyz` without a token: what a load balancer asks, never a guess. */
function isProbe(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  if (url === '/healthz') return true;
  return url === '/readyz' && req.headers.authorization === undefined;
}

/** Calls `fail` when the response's head is written with `401`. */
function countUnauthorized(res: ServerResponse, fail: () => void): void {
  const writeHead = res.writeHead;
  res.writeHead = function countingWriteHead(this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (args[0] === 401) fail();
    res.writeHead = writeHead;
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
}

/** An IPv4 address as it is; an IPv6 one by its first 64 bits. */
function throttleKeyOf(address: string): string {
  if (isIP(address) !== 6 || address.startsWith('::ffff:')) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
