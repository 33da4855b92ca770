import type { Request } from 'express';

/** A `Host` header that is a host name or an address, and maybe a port: nothing else is put into a link. */
const PLAIN_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The base of the absolute links a page or a listing gives (feed URLs to copy into the channels):
 * `PUBLIC_BASE_URL`, else what the request was sent to. The `Host` header is anyone's to write, so it is
 * taken only when it is a plain host (and port), else `localhost`; the scheme is `https` only from TLS or
 * a proxy `TRUST_PROXY` names. On a host the internet reaches, set `PUBLIC_BASE_URL` (docs/security.md).
 */
export function requestBaseUrl(req: Request, publicBaseUrl: string | undefined): string {
  if (publicBaseUrl !== undefined) return publicBaseUrl;
  const host = req.headers.host;
  return `${req.protocol}://${host !== undefined && PLAIN_HOST.test(host) ? host : 'localhost'}`;
}
