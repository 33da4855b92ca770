import { isIP } from 'node:net';

/** Redirects a sheet's read follows at most (a published Google Sheet takes one). */
export const MAX_SHEET_REDIRECTS = 5;

/**
 * Whether `host` (a URL's `hostname`) names this machine or a private network by itself: `localhost`, or
 * an address literal in a loopback, private, link-local or unique-local range. A name that resolves to
 * one is not caught here.
 */
export function isInternalHost(host: string): boolean {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  const name = bare.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const family = isIP(name);
  if (family === 4) return isInternalV4(name);
  if (family === 6) {
    if (name === '::1' || name === '::') return true;
    // An IPv4 address in IPv6 clothes (`::ffff:7f00:1`, as the URL parser writes `[::ffff:127.0.0.1]`).
    const v4 = embeddedV4(name);
    if (v4 !== undefined) return isInternalV4(v4);
    return /^f[cd]/.test(name) || /^fe[89ab]/.test(name);
  }
  return false;
}

function isInternalV4(address: string): boolean {
  const [a = 0, b = 0] = address.split('.').map(Number);
  return (
    a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)
  );
}

/** The IPv4 address of an IPv4-mapped or -compatible IPv6 address (`::ffff:a.b.c.d`, `::ffff:7f00:1`, `::7f00:1`). */
function embeddedV4(address: string): string | undefined {
  const match = /^::(?:ffff:)?(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/.exec(address);
  if (match === null) return undefined;
  if (match[1] !== undefined) return match[1];
  const high = Number.parseInt(match[2] ?? '0', 16);
  const low = Number.parseInt(match[3] ?? '0', 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * Why a redirect of the sheet's read is not followed, or `undefined` when it is: never from https to
 * http (the sheet, and what the answer says, would travel in the clear), never to another scheme, and
 * never to this machine or a private network unless the configured sheet is there itself (else a
 * redirect from the internet could make the bridge read an internal page and show its first line).
 */
export function redirectProblem(configured: URL, to: URL, from: URL): string | undefined {
  if (to.protocol !== 'http:' && to.protocol !== 'https:') return `to a ${to.protocol} address`;
  if (isInternalHost(to.hostname) && !isInternalHost(configured.hostname)) return `to an internal address (${to.host})`;
  if (from.protocol === 'https:' && to.protocol === 'http:') return `from https to http (${to.host})`;
  return undefined;
}
