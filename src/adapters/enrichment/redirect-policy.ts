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
  const name = bare.toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const family = isIP(name);
  if (family === 4) {
    const [a = 0, b = 0] = name.split('.').map(Number);
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254)
    );
  }
  if (family === 6) {
    if (name === '::1' || name === '::') return true;
    if (name.startsWith('::ffff:')) return isInternalHost(name.slice(7));
    return /^f[cd]/.test(name) || /^fe[89ab]/.test(name);
  }
  return false;
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
