import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Constant-time comparison of secrets of any length: both sides are hashed first, so neither the
 * content nor the length of the expected secret leaks through timing.
 */
export function secretMatches(provided: string | undefined, expected: string): boolean {
  if (provided === undefined) return false;
  const a = createHash('sha256').update(provided).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer …` header, if any. */
export function bearerTokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim();
}

/** The tokens that open the operator's details: `/metrics` and the full `/readyz` (docs/security.md). */
export interface OperatorTokens {
  /** `FEED_TOKEN`: as `?token=…` or a bearer token, as for the feeds and the status page that shows the same. */
  readonly feed: string | undefined;
  /** `METRICS_TOKEN`: a bearer token for a monitoring system, which opens nothing else. */
  readonly metrics: string | undefined;
}

/**
 * Whether a request may read the operator's details. They are as open as the status page, which shows
 * the same: open while neither `FEED_TOKEN` nor `METRICS_TOKEN` is set; else either token opens them (the
 * query form for `FEED_TOKEN` only, as query strings end up in access logs). `ADMIN_TOKEN` does not: its
 * guesses are the admin area's to count.
 */
export function operatorAccess(tokens: OperatorTokens): (req: IncomingMessage, queryToken: unknown) => boolean {
  if (tokens.feed === undefined && tokens.metrics === undefined) return () => true;
  const bearerTokens = [tokens.feed, tokens.metrics].filter((token) => token !== undefined);
  return (req, queryToken) => {
    const bearer = bearerTokenOf(req);
    // Every configured token is compared, so the time taken does not tell which one came close.
    let matched = false;
    for (const token of bearerTokens) matched = secretMatches(bearer, token) || matched;
    if (tokens.feed !== undefined && typeof queryToken === 'string') matched = secretMatches(queryToken, tokens.feed) || matched;
    return matched;
  };
}
