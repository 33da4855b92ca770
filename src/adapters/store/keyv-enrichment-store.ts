import type { Keyv } from 'keyv';
import type { EnrichmentCheck } from '../../core/enrichment/enrichment-check.js';
import type { EnrichmentDocument, EnrichmentValidators } from '../enrichment/enrichment-source.js';

/** What is known of the last good sheet without its bytes: enough to tell whether another instance stored a newer one. */
export interface StoredEnrichmentMeta {
  readonly name: string;
  readonly contentType?: string;
  readonly validators: EnrichmentValidators;
  readonly fetchedAt: string;
  /** Where it was read from (a redacted label): a sheet from another source is not used. */
  readonly source: string;
  readonly check: EnrichmentCheck;
}

/** The last good enrichment sheet, kept in the store so that a restart or a new leader applies it at once. */
export interface EnrichmentStore {
  loadMeta(): Promise<StoredEnrichmentMeta | undefined>;
  load(): Promise<EnrichmentDocument | undefined>;
  /** Bytes first, then the meta that names them: a reader never finds meta without its bytes. */
  save(document: EnrichmentDocument, check: EnrichmentCheck): Promise<void>;
}

interface StoredBytes {
  readonly sha256: string | undefined;
  readonly base64: string;
}

export function createKeyvEnrichmentStore(
  keyv: Keyv,
  options: { readonly source: string; readonly prefix?: string },
): EnrichmentStore {
  const prefix = options.prefix ?? 'enrichment';
  const metaKey = `${prefix}:last-good:meta`;
  const bytesKey = `${prefix}:last-good:bytes`;

  async function loadMeta(): Promise<StoredEnrichmentMeta | undefined> {
    const meta = (await keyv.get(metaKey)) as StoredEnrichmentMeta | undefined;
    return meta?.source === options.source ? meta : undefined;
  }

  return {
    loadMeta,
    async load() {
      const meta = await loadMeta();
      if (meta === undefined) return undefined;
      const stored = (await keyv.get(bytesKey)) as StoredBytes | undefined;
      if (stored === undefined || stored.sha256 !== meta.validators.sha256) return undefined;
      return {
        name: meta.name,
        ...(meta.contentType === undefined ? {} : { contentType: meta.contentType }),
        validators: meta.validators,
        fetchedAt: meta.fetchedAt,
        bytes: new Uint8Array(Buffer.from(stored.base64, 'base64')),
      };
    },
    async save(document, check) {
      const bytes: StoredBytes = { sha256: document.validators.sha256, base64: Buffer.from(document.bytes).toString('base64') };
      await keyv.set(bytesKey, bytes);
      const meta: StoredEnrichmentMeta = {
        name: document.name,
        ...(document.contentType === undefined ? {} : { contentType: document.contentType }),
        validators: document.validators,
        fetchedAt: document.fetchedAt,
        source: options.source,
        check,
      };
      await keyv.set(metaKey, meta);
    },
  };
}
