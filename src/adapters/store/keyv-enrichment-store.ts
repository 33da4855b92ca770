import type { Keyv } from 'keyv';
import type { EnrichmentStore, StoredEnrichmentMeta, StoredReadStatus } from '../../services/enrichment/enrichment-ports.js';
import { copyShared } from '../enrichment/shared-bytes.js';

/**
 * Bytes per stored slice. A 60 MB sheet in one keyv value would be one 80 MB base64 string that keyv
 * serializes and parses in one go on the main thread; slices keep each step to about a millisecond.
 */
const SLICE_BYTES = 512 * 1024;

export function createKeyvEnrichmentStore(
  keyv: Keyv,
  options: { readonly source: string; readonly prefix?: string },
): EnrichmentStore {
  const prefix = options.prefix ?? 'enrichment';
  const metaKey = `${prefix}:last-good:meta`;
  const readStatusKey = `${prefix}:read-status`;
  // Slices are named by the sheet's hash: a save that stops half-way never touches the slices in use.
  const sliceKey = (sha256: string | undefined, index: number) => `${prefix}:last-good:bytes:${sha256 ?? 'none'}:${index}`;

  async function loadMeta(): Promise<StoredEnrichmentMeta | undefined> {
    const meta = (await keyv.get(metaKey)) as StoredEnrichmentMeta | undefined;
    return meta?.source === options.source && typeof meta.slices === 'number' ? meta : undefined;
  }

  async function deleteSlices(old: StoredEnrichmentMeta | undefined, keep: string | undefined): Promise<void> {
    if (old === undefined || typeof old.slices !== 'number' || old.validators.sha256 === keep) return;
    for (let index = 0; index < old.slices; index += 1) await keyv.delete(sliceKey(old.validators.sha256, index));
  }

  return {
    async saveReadStatus(status) {
      await keyv.set(readStatusKey, { source: options.source, ...status });
    },
    async loadReadStatus() {
      const stored = (await keyv.get(readStatusKey)) as (StoredReadStatus & { source?: string }) | undefined;
      if (stored?.source !== options.source) return undefined;
      const { source: _source, ...status } = stored;
      return status;
    },
    loadMeta,
    async load() {
      const meta = await loadMeta();
      if (meta === undefined) return undefined;
      const parts: Buffer[] = [];
      let size = 0;
      for (let index = 0; index < meta.slices; index += 1) {
        const slice = (await keyv.get(sliceKey(meta.validators.sha256, index))) as string | undefined;
        if (typeof slice !== 'string') return undefined;
        const part = Buffer.from(slice, 'base64');
        parts.push(part);
        size += part.byteLength;
      }
      return {
        name: meta.name,
        ...(meta.contentType === undefined ? {} : { contentType: meta.contentType }),
        validators: meta.validators,
        fetchedAt: meta.fetchedAt,
        bytes: await copyShared(parts, size),
      };
    },
    async save(document, check) {
      const previous = (await keyv.get(metaKey)) as StoredEnrichmentMeta | undefined;
      const sha256 = document.validators.sha256;
      const { bytes } = document;
      let slices = 0;
      for (let from = 0; from < bytes.byteLength; from += SLICE_BYTES) {
        const slice = Buffer.from(bytes.subarray(from, Math.min(bytes.byteLength, from + SLICE_BYTES)));
        await keyv.set(sliceKey(sha256, slices), slice.toString('base64'));
        slices += 1;
      }
      const meta: StoredEnrichmentMeta = {
        name: document.name,
        ...(document.contentType === undefined ? {} : { contentType: document.contentType }),
        validators: document.validators,
        fetchedAt: document.fetchedAt,
        source: options.source,
        check,
        slices,
      };
      await keyv.set(metaKey, meta);
      // The sheet it replaced: its slices are no longer named by anything.
      await deleteSlices(previous, sha256);
    },
  };
}
