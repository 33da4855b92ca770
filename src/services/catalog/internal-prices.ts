import { createSlicer } from '../../core/async/create-slicer.js';
import type { InternalProductData } from '../../core/catalog/catalog.js';
import type { CatalogStore } from './catalog-store.js';

/** The purchase prices of the internal store's current version (admin only: docs/catalog-rules.md rule 6). */
export interface PurchasePrices {
  /** The full sync's version they came with; a served version made from it by stock changes has the same products. */
  readonly version: string;
  readonly byId: ReadonlyMap<string, InternalProductData>;
}

export interface InternalPrices {
  /** `undefined` when the store holds no internal version of this source. */
  load(): Promise<PurchasePrices | undefined>;
}

function isInternalItem(value: unknown): value is InternalProductData {
  return typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string';
}

/**
 * Reads the internal version chunk by chunk (each ~128 KiB of JSON: about a millisecond to parse), keeps
 * the last one read until the store names another, and shares one read between concurrent callers.
 */
export function createInternalPrices(store: CatalogStore<{ readonly version: string }>): InternalPrices {
  let cached: PurchasePrices | undefined;
  let reading: Promise<PurchasePrices | undefined> | undefined;
  async function read(): Promise<PurchasePrices | undefined> {
    return store.loadCurrent(async (head, texts) => {
      const byId = new Map<string, InternalProductData>();
      const slicer = createSlicer();
      for await (const text of texts) {
        const items: unknown = JSON.parse(text);
        if (Array.isArray(items)) for (const item of items) if (isInternalItem(item)) byId.set(item.id, item);
        await slicer.next();
      }
      return { version: head.version, byId };
    });
  }
  return {
    async load() {
      const version = await store.currentVersion();
      if (version === undefined) return undefined;
      if (cached?.version === version) return cached;
      reading ??= read().finally(() => {
        reading = undefined;
      });
      const loaded = await reading;
      if (loaded !== undefined) cached = loaded;
      return loaded;
    },
  };
}
