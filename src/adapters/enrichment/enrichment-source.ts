import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { Agent, type Dispatcher, request } from 'undici';
import type {
  EnrichmentRead,
  EnrichmentSource,
  EnrichmentSourceErrorCode,
  EnrichmentValidators,
} from '../../services/enrichment/enrichment-ports.js';
import { MAX_SHEET_REDIRECTS, redirectProblem } from './redirect-policy.js';
import { collectShared } from './shared-bytes.js';

/** The statuses of a redirect with a `Location` to follow. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Reads the marketer's enrichment sheet (`ENRICHMENT_SOURCE`, docs/enrichment.md): a local file or an
 * http(s) URL, typically a Google Sheets "publish to the web" CSV link (which redirects). Every read is
 * conditional: `If-None-Match`/`If-Modified-Since` for HTTP, size and modification time for a file, and a
 * body whose SHA-256 equals the last one's counts as unchanged too (servers without validators). Reads are
 * bounded in size and time; what the bytes mean is decided elsewhere (`core/enrichment`).
 */

export class EnrichmentSourceError extends Error {
  override readonly name = 'EnrichmentSourceError';
  readonly code: EnrichmentSourceErrorCode;
  constructor(code: EnrichmentSourceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * A sheet URL as logs and pages show it: no credentials, query values hidden, long path segments
 * shortened. A published Google Sheet's URL is its only key: whoever has it can read the sheet.
 */
export function redactSheetUrl(location: string): string {
  const url = new URL(location);
  const path = url.pathname
    .split('/')
    .map((part) => (part.length > 16 ? `${part.slice(0, 6)}…` : part))
    .join('/');
  const query = [...url.searchParams.keys()].map((key) => `${key}=…`).join('&');
  return `${url.protocol}//${url.host}${path}${query === '' ? '' : `?${query}`}`;
}

export interface EnrichmentSourceOptions {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  /** undici dispatcher (tests); without one the source owns an Agent that follows redirects. */
  readonly dispatcher?: Dispatcher;
}

export function isUrlLocation(location: string): boolean {
  return /^https?:\/\//i.test(location);
}

function tooLarge(label: string, maxBytes: number): EnrichmentSourceError {
  return new EnrichmentSourceError(
    'ENRICHMENT_TOO_LARGE',
    `the enrichment sheet ${label} is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`,
  );
}

export function createEnrichmentSource(location: string, options: EnrichmentSourceOptions): EnrichmentSource {
  const source = isUrlLocation(location) ? createUrlSource(location, options) : createFileSource(location, options);
  return { ...source, identity: createHash('sha256').update(location).digest('hex') };
}

function createFileSource(location: string, options: EnrichmentSourceOptions): Omit<EnrichmentSource, 'identity'> {
  const path = resolve(location);
  const label = path;
  return {
    label,
    async read(previous) {
      const info = await stat(path).catch((error: unknown) => {
        throw new EnrichmentSourceError('ENRICHMENT_NOT_FOUND', `cannot read the enrichment sheet ${label}`, { cause: error });
      });
      const fileStamp = stampOf(info);
      if (previous?.fileStamp === fileStamp) return { changed: false };
      if (info.size > options.maxBytes) throw tooLarge(label, options.maxBytes);
      // Read in 64 KiB chunks and hashed as they come: a large sheet never holds the main thread.
      const { bytes, sha256 } = await collectShared(createReadStream(path, { highWaterMark: 64 * 1024 }), options.maxBytes, () =>
        tooLarge(label, options.maxBytes),
      );
      // A file caught while it is being saved: taken on the next read, once it is whole.
      if (stampOf(await stat(path)) !== fileStamp) return { changed: false };
      if (previous?.sha256 === sha256) return { changed: false, validators: { fileStamp, sha256 } };
      return {
        changed: true,
        document: { bytes, name: basename(path), validators: { fileStamp, sha256 }, fetchedAt: new Date().toISOString() },
      };
    },
    close: async () => undefined,
  };
}

function stampOf(info: { readonly size: number; readonly mtimeMs: number }): string {
  return `${info.size}:${info.mtimeMs}`;
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A name for a sheet read from a URL: `sheet.xlsx` or `sheet.csv`, a format hint only. The URL's own last
 * segment is not shown: in some share links it is the secret.
 */
function nameOfUrl(url: URL): string {
  const last = url.pathname.split('/').pop()?.toLowerCase() ?? '';
  const asked = url.searchParams.get('output') ?? url.searchParams.get('format');
  return last.endsWith('.xlsx') || asked === 'xlsx' ? 'sheet.xlsx' : 'sheet.csv';
}

function validatorsOf(response: Dispatcher.ResponseData, sha256: string): EnrichmentValidators {
  const etag = header(response.headers, 'etag');
  const lastModified = header(response.headers, 'last-modified');
  return { ...(etag === undefined ? {} : { etag }), ...(lastModified === undefined ? {} : { lastModified }), sha256 };
}

/** What went wrong with a request, as the source's error (a timeout, an unreachable host). */
function requestError(error: unknown, label: string, timeout: AbortSignal, timeoutMs: number): unknown {
  if (error instanceof EnrichmentSourceError) return error;
  if (timeout.aborted) {
    const message = `the enrichment sheet ${label} did not arrive within ${timeoutMs} ms`;
    return new EnrichmentSourceError('ENRICHMENT_TIMEOUT', message, { cause: error });
  }
  return new EnrichmentSourceError('ENRICHMENT_UNREACHABLE', `cannot reach the enrichment sheet ${label}`, { cause: error });
}

/** The answer to a conditional GET: not modified, the same body again, or a new sheet. */
async function readAnswer(
  response: Dispatcher.ResponseData,
  url: URL,
  label: string,
  previous: EnrichmentValidators | undefined,
  maxBytes: number,
): Promise<EnrichmentRead> {
  if (response.statusCode === 304) {
    await response.body.dump();
    return { changed: false };
  }
  if (response.statusCode !== 200) {
    await response.body.dump().catch(() => undefined);
    const message = `the enrichment sheet ${label} answered HTTP ${response.statusCode}`;
    throw new EnrichmentSourceError('ENRICHMENT_HTTP_STATUS', message);
  }
  // A web page is no sheet; and its first line, quoted as a sheet's header, could be anyone's page.
  if (/^\s*text\/html\b/i.test(header(response.headers, 'content-type') ?? '')) {
    await response.body.dump().catch(() => undefined);
    const message = `the enrichment sheet ${label} answered a web page (text/html), not a CSV or a workbook: publish the sheet as CSV and use that link`;
    throw new EnrichmentSourceError('ENRICHMENT_NOT_A_SHEET', message);
  }
  const { bytes, sha256 } = await collectShared(response.body, maxBytes, () => {
    response.body.destroy();
    return tooLarge(label, maxBytes);
  });
  const validators = validatorsOf(response, sha256);
  if (previous?.sha256 === sha256) return { changed: false, validators };
  const contentType = header(response.headers, 'content-type');
  return {
    changed: true,
    document: {
      bytes,
      name: nameOfUrl(url),
      ...(contentType === undefined ? {} : { contentType }),
      validators,
      fetchedAt: new Date().toISOString(),
    },
  };
}

function createUrlSource(location: string, options: EnrichmentSourceOptions): Omit<EnrichmentSource, 'identity'> {
  const url = new URL(location);
  const label = redactSheetUrl(location);
  // Redirects are followed here, each checked (redirect-policy.ts): a published Google Sheet answers with
  // one to googleusercontent.com.
  const owned = options.dispatcher === undefined ? new Agent({ keepAliveTimeout: 10_000 }) : undefined;
  const dispatcher = options.dispatcher ?? (owned as Dispatcher);
  return {
    label,
    async read(previous, signal) {
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const headers: Record<string, string> = {
        accept: 'text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, */*;q=0.5',
      };
      if (previous?.etag !== undefined) headers['if-none-match'] = previous.etag;
      if (previous?.lastModified !== undefined) headers['if-modified-since'] = previous.lastModified;
      try {
        let at = url;
        for (let hop = 0; ; hop += 1) {
          const response = await request(at, {
            method: 'GET',
            headers,
            dispatcher,
            signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
            headersTimeout: options.timeoutMs,
            bodyTimeout: options.timeoutMs,
          });
          const location = REDIRECTS.has(response.statusCode) ? header(response.headers, 'location') : undefined;
          if (location === undefined) return await readAnswer(response, url, label, previous, options.maxBytes);
          await response.body.dump().catch(() => undefined);
          const next = new URL(location, at);
          const problem = hop >= MAX_SHEET_REDIRECTS ? `more than ${MAX_SHEET_REDIRECTS} times` : redirectProblem(url, next, at);
          if (problem !== undefined) {
            throw new EnrichmentSourceError(
              'ENRICHMENT_UNREACHABLE',
              `the enrichment sheet ${label} redirected ${problem}: not followed`,
            );
          }
          at = next;
        }
      } catch (error) {
        if (signal?.aborted === true) throw error;
        throw requestError(error, label, timeout, options.timeoutMs);
      }
    },
    async close() {
      await owned?.close();
    },
  };
}
