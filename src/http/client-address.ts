import type { IncomingMessage } from 'node:http';

/**
 * The client's address of each request, as the guess throttle read it before any route (the socket's, or
 * the one a proxy `TRUST_PROXY` names forwarded): one reading for every per-client limit.
 */
const addresses = new WeakMap<IncomingMessage, string>();

export function rememberClient(req: IncomingMessage, address: string): void {
  addresses.set(req, address);
}

/** The request's client: as remembered, else the socket's address. */
export function clientAddressOf(req: IncomingMessage): string {
  return addresses.get(req) ?? req.socket.remoteAddress ?? 'unknown';
}
