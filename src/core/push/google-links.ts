/**
 * The links from Google's answers the console and the warnings follow (docs/channel-push.md#googles-verdicts):
 * Google's own sites over HTTPS, never a page anyone can write (`sites.google.com`) nor a redirect.
 */
const GOOGLE_HOSTS = new Set(['merchants.google.com', 'support.google.com', 'ads.google.com', 'business.google.com']);

function googleHostOf(url: string | null | undefined): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.username === '' && GOOGLE_HOSTS.has(parsed.hostname)
      ? parsed.hostname
      : undefined;
  } catch {
    return undefined;
  }
}

/** Merchant Center, Google's help, Ads and Business: where an issue's actions lead. */
export function isGoogleLink(url: string | null | undefined): url is string {
  return googleHostOf(url) !== undefined;
}

/** Google's help pages: an issue's `documentation`. */
export function isGoogleHelpLink(url: string | null | undefined): url is string {
  return googleHostOf(url) === 'support.google.com';
}
