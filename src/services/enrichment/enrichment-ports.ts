import type { EnrichmentCheck } from '../../core/enrichment/enrichment-check.js';

/**
 * The enrichment service's ports: where the marketer's sheet is read from (`adapters/enrichment/
 * enrichment-source.ts`, a file or a URL) and where the last good one is kept (`adapters/store/
 * keyv-enrichment-store.ts`).
 */

/** What makes the next read conditional. */
export interface EnrichmentValidators {
  readonly etag?: string;
  readonly lastModified?: string;
  /** A file's `size:mtimeMs`. */
  readonly fileStamp?: string;
  /** SHA-256 (hex) of the last body. */
  readonly sha256?: string;
}

/** One read of the sheet, as it came. */
export interface EnrichmentDocument {
  /** In shared memory (a worker task reads them in place). */
  readonly bytes: Uint8Array;
  /** File name (from the path or the URL), a format hint. */
  readonly name: string;
  readonly contentType?: string;
  readonly validators: EnrichmentValidators;
  /** ISO time of the read. */
  readonly fetchedAt: string;
}

export type EnrichmentRead =
  | { readonly changed: true; readonly document: EnrichmentDocument }
  /** `validators`: fresher ones for the same content (a new ETag or file time), to ask with next time. */
  | { readonly changed: false; readonly validators?: EnrichmentValidators };

export type EnrichmentSourceErrorCode =
  | 'ENRICHMENT_UNREACHABLE'
  | 'ENRICHMENT_HTTP_STATUS'
  | 'ENRICHMENT_TOO_LARGE'
  | 'ENRICHMENT_TIMEOUT'
  | 'ENRICHMENT_NOT_FOUND'
  | 'ENRICHMENT_NOT_A_SHEET';

export interface EnrichmentSource {
  /** Where the sheet is, safe for logs and pages (credentials in a URL redacted). */
  readonly label: string;
  /** SHA-256 of the location: tells two sheets apart whose labels read the same (redacted URLs). */
  readonly identity: string;
  read(previous: EnrichmentValidators | undefined, signal?: AbortSignal): Promise<EnrichmentRead>;
  close(): Promise<void>;
}

/** What is known of the last good sheet without its bytes: enough to tell whether another instance stored a newer one. */
export interface StoredEnrichmentMeta {
  readonly name: string;
  readonly contentType?: string;
  readonly validators: EnrichmentValidators;
  readonly fetchedAt: string;
  /** Where it was read from (a redacted label): a sheet from another source is not used. */
  readonly source: string;
  readonly check: EnrichmentCheck;
  /** How many slices its bytes are stored in. */
  readonly slices: number;
}

/** How the last read of the source went, as the instance that read it says (in a group: the leader). */
export interface StoredReadStatus {
  readonly lastCheckAt: string;
  readonly problem?: { readonly at: string; readonly code: string; readonly message: string };
}

/** The last good enrichment sheet, kept in the store so that a restart or a new leader applies it at once. */
export interface EnrichmentStore {
  /** The last read's outcome, for the instances that do not read (followers show the leader's). */
  saveReadStatus(status: StoredReadStatus): Promise<void>;
  loadReadStatus(): Promise<StoredReadStatus | undefined>;
  loadMeta(): Promise<StoredEnrichmentMeta | undefined>;
  load(): Promise<EnrichmentDocument | undefined>;
  /** Bytes first, then the meta that names them: a reader never finds meta without its bytes. */
  save(document: EnrichmentDocument, check: EnrichmentCheck): Promise<void>;
}
