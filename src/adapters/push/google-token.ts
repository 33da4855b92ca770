import { createSign } from 'node:crypto';
import { type Dispatcher, request } from 'undici';
import { readJson } from './channel-http.js';

/**
 * Service-account access tokens for the Merchant API (docs/decisions/0013-channel-push.md, "Google Merchant API
 * v1", Auth). Not google-auth-library: its JWT client (10.x, `gtoken/getToken.js`) posts to a hard-coded
 * `https://oauth2.googleapis.com/token` and ignores the key file's `token_uri`, so GOOGLE_OAUTH_TOKEN_URL could
 * not be honoured. This is the same RFC 7523 JWT-bearer grant: an RS256 assertion signed with the key.
 */

export const GOOGLE_CONTENT_SCOPE = 'https://www.googleapis.com/auth/content';
export const GOOGLE_DEFAULT_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token is renewed this long before Google says it expires (clock skew, requests in flight). */
const EXPIRY_MARGIN_MS = 60_000;

/** The fields of a service-account key file the grant needs. */
export interface ServiceAccountKey {
  readonly client_email: string;
  readonly private_key: string;
  readonly token_uri?: string;
}

/** Parses a key file's text; the message never quotes the file (it holds the private key). */
export function parseServiceAccountKey(text: string): ServiceAccountKey {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('Google service-account key file is not JSON');
  }
  const key = value as Partial<Record<keyof ServiceAccountKey, unknown>>;
  if (typeof key?.client_email !== 'string' || typeof key.private_key !== 'string') {
    throw new Error('Google service-account key file lacks client_email or private_key');
  }
  return {
    client_email: key.client_email,
    private_key: key.private_key,
    ...(typeof key.token_uri === 'string' ? { token_uri: key.token_uri } : {}),
  };
}

export interface GoogleTokenSourceOptions {
  readonly key: ServiceAccountKey;
  /** GOOGLE_OAUTH_TOKEN_URL; else the key file's `token_uri`; else Google's. */
  readonly tokenUrl?: string;
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly dispatcher?: Dispatcher;
}

export interface GoogleTokenSource {
  /** A valid access token, fetched once and reused until shortly before it expires. */
  token(): Promise<string>;
  /** Forgets the cached token (after a 401). */
  invalidate(): void;
}

/** A token request the endpoint refused, or an unreadable answer; never carries the assertion. */
export class GoogleTokenError extends Error {
  override readonly name = 'GoogleTokenError';
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The signed assertion: `iss` the account, `aud` the token endpoint, valid one hour (Google's maximum). */
export function signAssertion(key: ServiceAccountKey, audience: string, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const unsigned = `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url({
    iss: key.client_email,
    scope: GOOGLE_CONTENT_SCOPE,
    aud: audience,
    iat,
    exp: iat + 3600,
  })}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(key.private_key).toString('base64url');
  return `${unsigned}.${signature}`;
}

async function fetchToken(options: GoogleTokenSourceOptions, url: string): Promise<{ token: string; expiresAt: number }> {
  const started = options.now();
  const response = await request(url, {
    method: 'POST',
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: JWT_BEARER, assertion: signAssertion(options.key, url, started) }).toString(),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  const answer = (await readJson(response.body)) as { access_token?: unknown; expires_in?: unknown; error?: unknown } | undefined;
  if (response.statusCode !== 200 || typeof answer?.access_token !== 'string') {
    // Only the OAuth error code is kept: the answer may echo request parts.
    const code = typeof answer?.error === 'string' ? `: ${answer.error.slice(0, 60)}` : '';
    throw new GoogleTokenError(`Google token endpoint answered HTTP ${response.statusCode}${code}`);
  }
  const seconds = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600;
  return { token: answer.access_token, expiresAt: started + seconds * 1000 - EXPIRY_MARGIN_MS };
}

/** One token shared by all calls; concurrent callers wait on the same fetch. */
export function createGoogleTokenSource(options: GoogleTokenSourceOptions): GoogleTokenSource {
  const url = options.tokenUrl ?? options.key.token_uri ?? GOOGLE_DEFAULT_TOKEN_URL;
  let cached: { token: string; expiresAt: number } | undefined;
  let pending: Promise<{ token: string; expiresAt: number }> | undefined;
  return {
    async token() {
      if (cached !== undefined && options.now() < cached.expiresAt) return cached.token;
      pending ??= fetchToken(options, url).finally(() => {
        pending = undefined;
      });
      cached = await pending;
      return cached.token;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
